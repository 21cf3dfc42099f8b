#include "cuda/nccl_bench.h"

#include "cuda/cuda_util.h"
#include "cuda/kernels.h"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace iterscope::cuda {
namespace {

void checkNccl(ncclResult_t status, const char* call) {
    if (status != ncclSuccess)
        throw CudaError(std::string(call) + " failed: " + ncclGetErrorString(status));
}
#define ITERSCOPE_NCCL(call) checkNccl((call), #call)

// Everything one rank owns; the destructor tears it down in the right order.
struct Rank {
    int device = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    DeviceBuffer send, recv;
};

struct Ranks {
    std::vector<Rank> ranks;
    ~Ranks() {
        for (Rank& r : ranks) {
            cudaSetDevice(r.device);
            if (r.comm)
                ncclCommDestroy(r.comm);
            if (r.stream)
                cudaStreamDestroy(r.stream);
            r.send = DeviceBuffer{};
            r.recv = DeviceBuffer{};
        }
    }
};

// One all-reduce on every rank, grouped so that a single thread drives all GPUs.
void allreduceAll(Ranks& all, std::size_t count) {
    ITERSCOPE_NCCL(ncclGroupStart());
    for (Rank& r : all.ranks)
        ITERSCOPE_NCCL(
            ncclAllReduce(r.send.get(), r.recv.get(), count, ncclFloat, ncclSum, r.comm, r.stream));
    ITERSCOPE_NCCL(ncclGroupEnd());
}

void synchronizeAll(Ranks& all) {
    for (Rank& r : all.ranks) {
        ITERSCOPE_CUDA(cudaSetDevice(r.device));
        ITERSCOPE_CUDA(cudaStreamSynchronize(r.stream));
    }
}

} // namespace

AllreduceRun measureAllreduce(const AllreduceOptions& options, const Progress& progress) {
    const int visible = visibleGpuCount();
    const int n = options.gpus > 0 ? std::min(options.gpus, visible) : visible;
    const std::size_t max_count =
        std::max<std::size_t>(1, static_cast<std::size_t>(options.max_bytes) / sizeof(float));
    Ranks all;
    all.ranks.resize(static_cast<std::size_t>(n));
    std::vector<int> devices(static_cast<std::size_t>(n));
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        Rank& r = all.ranks[static_cast<std::size_t>(i)];
        r.device = devices[static_cast<std::size_t>(i)] = i;
        ITERSCOPE_CUDA(cudaSetDevice(i));
        ITERSCOPE_CUDA(cudaStreamCreate(&r.stream));
        r.send.grow(max_count * sizeof(float));
        r.recv.grow(max_count * sizeof(float));
        launchFill(r.send.get(), max_count, FillType::Float32, static_cast<uint32_t>(i), r.stream);
    }
    progress("NCCL init over " + std::to_string(n) + " GPU(s)");
    ITERSCOPE_NCCL(ncclCommInitAll(comms.data(), n, devices.data()));
    for (int i = 0; i < n; ++i)
        all.ranks[static_cast<std::size_t>(i)].comm = comms[static_cast<std::size_t>(i)];

    AllreduceRun run;
    run.ranks = n;
    run.dtype = "float";
    std::size_t count =
        std::max<std::size_t>(1, static_cast<std::size_t>(options.min_bytes) / sizeof(float));
    for (; count <= max_count; count *= 2) {
        for (int i = 0; i < options.warmup; ++i)
            allreduceAll(all, count);
        synchronizeAll(all);
        // Wall time over all ranks, as nccl-tests does with its default -c 0 -w/-n loops:
        // per-GPU events would miss the slowest rank.
        std::vector<double> seconds;
        for (int rep = 0; rep < std::max(1, options.repetitions); ++rep) {
            const auto start = std::chrono::steady_clock::now();
            allreduceAll(all, count);
            synchronizeAll(all);
            seconds.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        const int64_t bytes = static_cast<int64_t>(count * sizeof(float));
        run.points.push_back(allreducePoint(bytes, medianOf(seconds), n));
        run.peak_busbw_gbps = std::max(run.peak_busbw_gbps, run.points.back().busbw_gbps);
    }
    if (!run.points.empty())
        run.latency_us = run.points.front().time_us;
    progress("NCCL all-reduce: latency " + std::to_string(run.latency_us) + " us, peak busbw " +
             std::to_string(run.peak_busbw_gbps) + " GB/s");
    return run;
}

} // namespace iterscope::cuda
