#include "cuda/peaks.h"

#include "cuda/cuda_util.h"
#include "cuda/kernels.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace iterscope::cuda {
namespace {

void checkLt(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CudaError(std::string(call) + " failed: cuBLAS status " +
                        std::to_string(static_cast<int>(status)));
}
#define ITERSCOPE_LT(call) checkLt((call), #call)

struct GemmType {
    const char* precision;
    cudaDataType_t data;
    cudaDataType_t output;
    cublasComputeType_t compute;
    FillType fill;
    std::size_t element_bytes;
};

// FP16/BF16 accumulate in FP32: the rate mixed-precision training gets (hardware.md note 3).
constexpr std::array<GemmType, 4> kGemmTypes{{
    {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, FillType::Float32, 4},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, FillType::Float32, 4},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, FillType::Float16, 2},
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, FillType::BFloat16, 2},
}};

// Best of cuBLASLt's top heuristic candidates for one square GEMM, in ms; 0 when the
// library offers no algorithm for this type on this GPU (TF32 before Ampere, say).
double ltGemmMs(cublasLtHandle_t lt, const GemmType& type, int64_t n, DeviceBuffer& a,
                DeviceBuffer& b, DeviceBuffer& c, DeviceBuffer& workspace, cudaStream_t stream,
                const PeakOptions& options) {
    const auto un = static_cast<uint64_t>(n);
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    double best = 0;
    try {
        ITERSCOPE_LT(cublasLtMatmulDescCreate(&desc, type.compute, CUDA_R_32F));
        ITERSCOPE_LT(cublasLtMatrixLayoutCreate(&la, type.data, un, un, n));
        ITERSCOPE_LT(cublasLtMatrixLayoutCreate(&lb, type.data, un, un, n));
        ITERSCOPE_LT(cublasLtMatrixLayoutCreate(&lc, type.output, un, un, n));
        ITERSCOPE_LT(cublasLtMatmulPreferenceCreate(&pref));
        const uint64_t ws = workspace.size();
        ITERSCOPE_LT(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
        std::array<cublasLtMatmulHeuristicResult_t, 4> results{};
        int returned = 0;
        const cublasStatus_t found = cublasLtMatmulAlgoGetHeuristic(
            lt, desc, la, lb, lc, lc, pref, static_cast<int>(results.size()), results.data(),
            &returned);
        const float alpha = 1, beta = 0;
        for (int i = 0; found == CUBLAS_STATUS_SUCCESS && i < returned; ++i) {
            if (results[static_cast<std::size_t>(i)].state != CUBLAS_STATUS_SUCCESS)
                continue;
            const cublasLtMatmulAlgo_t* algo = &results[static_cast<std::size_t>(i)].algo;
            const double ms = timeMedianMs(
                [&] {
                    ITERSCOPE_LT(cublasLtMatmul(lt, desc, &alpha, a.get(), la, b.get(), lb, &beta,
                                                c.get(), lc, c.get(), lc, algo, workspace.get(),
                                                workspace.size(), stream));
                },
                stream, options.warmup, options.repetitions);
            if (ms > 0 && (best == 0 || ms < best))
                best = ms;
        }
    } catch (...) {
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatmulDescDestroy(desc);
        throw;
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatmulDescDestroy(desc);
    return best;
}

double measureBandwidth(const DeviceFacts& device, const PeakOptions& options,
                        cudaStream_t stream) {
    std::size_t free_bytes = 0, total_bytes = 0;
    ITERSCOPE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Far larger than L2 so that the copy streams from HBM/GDDR, yet leaving headroom.
    const std::size_t bytes =
        std::min<std::size_t>(static_cast<std::size_t>(options.bandwidth_bytes), free_bytes / 4) &
        ~std::size_t{15};
    DeviceBuffer in(bytes), out(bytes);
    launchFill(in.get(), bytes / 4, FillType::Float32, 1, stream);
    const std::size_t count16 = bytes / 16;
    double best_ms = 0;
    for (int blocks_per_sm : {4, 8, 16})
        for (int threads : {256, 512}) {
            const int blocks = std::max(1, device.sm_count) * blocks_per_sm;
            const double ms = timeMedianMs(
                [&] { launchCopy(out.get(), in.get(), count16, blocks, threads, stream); }, stream,
                options.warmup, options.repetitions);
            ITERSCOPE_CUDA(cudaGetLastError());
            if (ms > 0 && (best_ms == 0 || ms < best_ms))
                best_ms = ms;
        }
    // A copy reads and writes every byte: the convention of STREAM and nvbandwidth.
    return best_ms > 0 ? 2.0 * static_cast<double>(count16 * 16) / (best_ms * 1e-3) / 1e9 : 0;
}

double measureLaunchOverheadUs(cudaStream_t stream, const PeakOptions& options) {
    constexpr int kLaunches = 1000;
    const double ms = timeMedianMs(
        [&] {
            for (int i = 0; i < kLaunches; ++i)
                launchEmpty(stream);
        },
        stream, options.warmup, options.repetitions);
    ITERSCOPE_CUDA(cudaGetLastError());
    return ms * 1e3 / kLaunches;
}

} // namespace

int visibleGpuCount() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw CudaError(std::string("no CUDA GPU or driver found (cudaGetDeviceCount: ") +
                        cudaGetErrorString(status) + "); calibrating needs a GPU");
    }
    if (count < 1)
        throw CudaError("no CUDA GPU is visible (check CUDA_VISIBLE_DEVICES)");
    return count;
}

DeviceFacts queryDevice(int device) {
    DeviceFacts facts;
    facts.visible_gpus = visibleGpuCount();
    if (device < 0 || device >= facts.visible_gpus)
        throw CudaError("GPU " + std::to_string(device) + " does not exist (" +
                        std::to_string(facts.visible_gpus) + " visible)");
    ITERSCOPE_CUDA(cudaSetDevice(device));
    cudaDeviceProp prop{};
    ITERSCOPE_CUDA(cudaGetDeviceProperties(&prop, device));
    facts.index = device;
    facts.name = prop.name;
    facts.compute_major = prop.major;
    facts.compute_minor = prop.minor;
    facts.sm_count = prop.multiProcessorCount;
    facts.memory_bus_bits = prop.memoryBusWidth;
    facts.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    facts.l2_bytes = prop.l2CacheSize;
    facts.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    // Clocks left cudaDeviceProp in CUDA 13; the attributes remain.
    int khz = 0;
    ITERSCOPE_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    facts.sm_clock_mhz = khz / 1000.0;
    ITERSCOPE_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    facts.memory_clock_mhz = khz / 1000.0;
    char bus[32] = {};
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", static_cast<unsigned>(prop.pciDomainID),
                  static_cast<unsigned>(prop.pciBusID), static_cast<unsigned>(prop.pciDeviceID));
    facts.pci_bus_id = bus;
    ITERSCOPE_CUDA(cudaDriverGetVersion(&facts.driver_version));
    ITERSCOPE_CUDA(cudaRuntimeGetVersion(&facts.runtime_version));
    facts.cudnn_version = static_cast<int>(cudnnGetVersion());
    facts.cublas_version = static_cast<int>(cublasLtGetVersion());
    int nccl = 0;
    if (ncclGetVersion(&nccl) == ncclSuccess)
        facts.nccl_version = nccl;
    return facts;
}

MeasuredPeaks measurePeaks(const DeviceFacts& device, const PeakOptions& options,
                           const Progress& progress) {
    MeasuredPeaks peaks;
    cudaStream_t stream = nullptr;
    ITERSCOPE_CUDA(cudaStreamCreate(&stream));
    cublasLtHandle_t lt = nullptr;
    try {
        progress("memory bandwidth (copy kernel)");
        peaks.memory_bandwidth_gbps = measureBandwidth(device, options, stream);
        progress("kernel launch overhead");
        peaks.launch_overhead_us = measureLaunchOverheadUs(stream, options);

        ITERSCOPE_LT(cublasLtCreate(&lt));
        const int64_t largest = std::max<int64_t>(256, options.gemm_size);
        const std::size_t elems = static_cast<std::size_t>(largest * largest);
        DeviceBuffer a(elems * 4), b(elems * 4), c(elems * 4), workspace(std::size_t{64} << 20);
        for (const GemmType& type : kGemmTypes) {
            progress(std::string("GEMM throughput, ") + type.precision);
            launchFill(a.get(), elems, type.fill, 2, stream);
            launchFill(b.get(), elems, type.fill, 3, stream);
            double best = 0;
            for (int64_t n : {largest / 2, largest}) {
                const double ms = ltGemmMs(lt, type, n, a, b, c, workspace, stream, options);
                if (ms <= 0)
                    continue;
                const double tflops = 2.0 * static_cast<double>(n) * static_cast<double>(n) *
                                      static_cast<double>(n) / (ms * 1e-3) / 1e12;
                peaks.gemm.push_back(GemmPoint{type.precision, "cublaslt", n, n, n, ms, tflops});
                best = std::max(best, tflops);
            }
            const std::string p = type.precision;
            (p == "fp32"   ? peaks.fp32_tflops
             : p == "tf32" ? peaks.tf32_tflops
             : p == "fp16" ? peaks.fp16_tensor_tflops
                           : peaks.bf16_tensor_tflops) = best;
        }
    } catch (...) {
        if (lt)
            cublasLtDestroy(lt);
        cudaStreamDestroy(stream);
        throw;
    }
    cublasLtDestroy(lt);
    cudaStreamDestroy(stream);
    return peaks;
}

} // namespace iterscope::cuda
