#include "cuda/layer_bench.h"

#include "cuda/layer_bench_detail.h"

#include "util/checked.h"

#include <limits>

namespace iterscope::cuda {

void checkCudnn(cudnnStatus_t status, const char* call) {
    if (status == CUDNN_STATUS_SUCCESS)
        return;
    const std::string what = std::string(call) + " failed: " + cudnnGetErrorString(status);
    if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
        status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
        throw DeviceOutOfMemory(what);
    // cuDNN 9 groups statuses by thousands: 2xxx bad parameter, 3xxx not supported. Both
    // mean this layer's configuration, not the device, so the run goes on without it.
    const int family = static_cast<int>(status) / 1000;
    if (family == 2 || family == 3)
        throw Unmeasurable(what);
    throw CudaError(what);
}

void checkCublas(cublasStatus_t status, const char* call) {
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    const std::string what = std::string(call) + " failed: " + cublasGetStatusString(status);
    if (status == CUBLAS_STATUS_ALLOC_FAILED)
        throw DeviceOutOfMemory(what);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE)
        throw Unmeasurable(what);
    throw CudaError(what);
}

Shape4 shapeOf(const Dims& d, int64_t batch) {
    int64_t n = batch, c = 1, h = 1, w = 1;
    if (d.size() == 3) {
        c = d[0];
        h = d[1];
        w = d[2];
    } else if (d.size() == 2) {
        c = d[0];
        h = d[1];
    } else {
        for (int64_t v : d)
            c = checkedMul(c, v, "tensor size");
    }
    constexpr int64_t kIntMax = std::numeric_limits<int>::max();
    const int64_t elements = checkedMul(checkedMul(checkedMul(n, c), h), w, "tensor size");
    if (n > kIntMax || c > kIntMax || h > kIntMax || w > kIntMax || elements > kIntMax ||
        elements <= 0)
        throw Unmeasurable("tensor of " + std::to_string(elements) +
                           " elements is beyond what cuDNN descriptors take");
    return Shape4{static_cast<int>(n), static_cast<int>(c), static_cast<int>(h),
                  static_cast<int>(w)};
}

TensorDesc::TensorDesc() {
    ITERSCOPE_CUDNN(cudnnCreateTensorDescriptor(&d));
}

TensorDesc::~TensorDesc() {
    cudnnDestroyTensorDescriptor(d);
}

BenchContext::BenchContext(const LayerBenchOptions& opts)
    : options(opts) {
    // Mixed precision stores activations and weights in FP16, channels-last: the layout
    // tensor-core kernels run on without transposes.
    if (halfPrecision(options.precision)) {
        data_type = options.precision == Precision::BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
        format = CUDNN_TENSOR_NHWC;
        element_bytes = 2;
    }
    ITERSCOPE_CUDA(cudaStreamCreate(&stream));
    try {
        ITERSCOPE_CUDNN(cudnnCreate(&cudnn));
        ITERSCOPE_CUDNN(cudnnSetStream(cudnn, stream));
        ITERSCOPE_CUBLAS(cublasCreate(&cublas));
        ITERSCOPE_CUBLAS(cublasSetStream(cublas, stream));
    } catch (...) {
        if (cudnn)
            cudnnDestroy(cudnn);
        cudaStreamDestroy(stream);
        throw;
    }
}

BenchContext::~BenchContext() {
    cublasDestroy(cublas);
    cudnnDestroy(cudnn);
    cudaStreamDestroy(stream);
}

void* BenchContext::data(DeviceBuffer& buffer, std::size_t elements, uint32_t seed) {
    void* p = buffer.grow(elements * element_bytes);
    launchFill(p, elements, element_bytes == 2 ? FillType::Float16 : FillType::Float32, seed,
               stream);
    ITERSCOPE_CUDA(cudaGetLastError());
    return p;
}

void BenchContext::setTensor(TensorDesc& desc, const Shape4& s) const {
    ITERSCOPE_CUDNN(cudnnSetTensor4dDescriptor(desc.d, format, data_type, s.n, s.c, s.h, s.w));
}

double BenchContext::time(const std::function<void()>& launch) const {
    return timeMedianMs(launch, stream, options.warmup, options.repetitions);
}

NetworkRun measureNetwork(const AnalyzedNetwork& network, const std::string& network_name,
                          const LayerBenchOptions& options, const Progress& progress) {
    const Network& net = network.network;
    const NetworkAnalysis& analysis = network.analysis;
    NetworkRun run;
    run.network = network_name;
    run.batch = options.batch;
    run.image = net.input.size() == 3 ? net.input[2] : 0;
    run.precision = precisionName(options.precision);
    run.workspace_limit_bytes = options.workspace_limit_bytes;
    run.warmup = options.warmup;
    run.repetitions = options.repetitions;

    BenchContext ctx(options);
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        const LayerCost& cost = analysis.layers[i];
        const Dims& input =
            layer.inputs.empty() ? net.input : analysis.layers[layer.inputs[0]].output;
        LayerMeasurement m;
        try {
            switch (layer.kind) {
            case LayerKind::Convolution:
                m = benchConvolution(ctx, layer, input, cost);
                break;
            case LayerKind::FullyConnected:
                m = benchFullyConnected(ctx, layer, input, cost);
                break;
            default:
                m = benchOther(ctx, net, analysis, i);
                break;
            }
        } catch (const DeviceOutOfMemory& e) {
            m = LayerMeasurement{};
            m.note = std::string("skipped: out of GPU memory (") + e.what() + ")";
        } catch (const Unmeasurable& e) {
            m = LayerMeasurement{};
            m.note = std::string("skipped: ") + e.what();
        } catch (const InputError& e) {
            m = LayerMeasurement{};
            m.note = std::string("skipped: ") + e.what();
        }
        m.index = i;
        m.name = layer.name;
        m.kind = layerKindName(layer.kind);
        m.backward_ms = m.backward_data_ms + m.backward_filter_ms;
        run.forward_ms += m.forward_ms;
        run.backward_ms += m.backward_ms;
        if (m.measured)
            progress(layer.name + ": forward " + std::to_string(m.forward_ms) + " ms, backward " +
                     std::to_string(m.backward_ms) + " ms");
        run.layers.push_back(std::move(m));
    }
    return run;
}

} // namespace iterscope::cuda
