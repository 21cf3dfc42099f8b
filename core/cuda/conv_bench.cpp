// Convolutions with cuDNN and fully connected layers with cuBLAS.
#include "cuda/layer_bench_detail.h"

#include <algorithm>
#include <array>

namespace iterscope::cuda {
namespace {

const char* fwdName(cudnnConvolutionFwdAlgo_t a) {
    static constexpr std::array<const char*, 8> names{
        "implicit_gemm", "implicit_precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
        "winograd",      "winograd_nonfused"};
    const auto i = static_cast<std::size_t>(a);
    return i < names.size() ? names[i] : "unknown";
}

const char* bwdDataName(cudnnConvolutionBwdDataAlgo_t a) {
    static constexpr std::array<const char*, 6> names{
        "algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused"};
    const auto i = static_cast<std::size_t>(a);
    return i < names.size() ? names[i] : "unknown";
}

const char* bwdFilterName(cudnnConvolutionBwdFilterAlgo_t a) {
    static constexpr std::array<const char*, 7> names{
        "algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nonfused", "fft_tiling"};
    const auto i = static_cast<std::size_t>(a);
    return i < names.size() ? names[i] : "unknown";
}

// The first (fastest, or heuristically best) candidate that succeeded within the limit.
template <class Perf> const Perf* pick(const Perf* perf, int count, std::size_t limit) {
    for (int i = 0; i < count; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= limit)
            return &perf[i];
    return nullptr;
}

// cuDNN pads symmetrically; where a file pads one side more (TF "same"), take the padding
// that reproduces the analysed output size as closely as cuDNN allows.
int symmetricPad(int64_t before, int64_t after, int64_t in, int64_t out, int64_t kernel,
                 int64_t stride, int64_t dilation) {
    if (before == after)
        return static_cast<int>(before);
    const int64_t needed = (out - 1) * stride + (kernel - 1) * dilation + 1 - in;
    return static_cast<int>(std::max<int64_t>(0, (needed + 1) / 2));
}

struct ConvDescs {
    TensorDesc x, y, bias;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    ConvDescs() {
        ITERSCOPE_CUDNN(cudnnCreateFilterDescriptor(&w));
        ITERSCOPE_CUDNN(cudnnCreateConvolutionDescriptor(&conv));
    }
    ~ConvDescs() {
        cudnnDestroyConvolutionDescriptor(conv);
        cudnnDestroyFilterDescriptor(w);
    }
    ConvDescs(const ConvDescs&) = delete;
    ConvDescs& operator=(const ConvDescs&) = delete;
};

cudnnMathType_t mathType(Precision p) {
    // FMA math keeps FP32 runs off the TF32 tensor cores that cuDNN's default allows on
    // Ampere and later; TF32 runs ask for exactly that default.
    switch (p) {
    case Precision::FP32:
        return CUDNN_FMA_MATH;
    case Precision::TF32:
        return CUDNN_DEFAULT_MATH;
    case Precision::AMP:
    case Precision::BF16:
        return CUDNN_TENSOR_OP_MATH;
    }
    return CUDNN_DEFAULT_MATH;
}

} // namespace

LayerMeasurement benchConvolution(BenchContext& ctx, const Layer& layer, const Dims& input,
                                  const LayerCost& cost) {
    const ConvParams& p = layer.conv;
    const Shape4 in = shapeOf(input, ctx.options.batch);
    const Shape4 expected = shapeOf(cost.output, ctx.options.batch);
    if (p.groups < 1 || in.c % p.groups != 0)
        throw Unmeasurable("channels do not divide into groups");
    const int pad_h = symmetricPad(p.pad_top, p.pad_bottom, in.h, expected.h, p.kernel_h,
                                   p.stride_h, p.dilation_h);
    const int pad_w = symmetricPad(p.pad_left, p.pad_right, in.w, expected.w, p.kernel_w,
                                   p.stride_w, p.dilation_w);

    const std::string key = "conv " + std::to_string(in.n) + "x" + std::to_string(in.c) + "x" +
                            std::to_string(in.h) + "x" + std::to_string(in.w) + " k" +
                            std::to_string(p.out_channels) + " " + std::to_string(p.kernel_h) +
                            "x" + std::to_string(p.kernel_w) + " s" + std::to_string(p.stride_h) +
                            "," + std::to_string(p.stride_w) + " p" + std::to_string(pad_h) + "," +
                            std::to_string(pad_w) + " d" + std::to_string(p.dilation_h) + "," +
                            std::to_string(p.dilation_w) + " g" + std::to_string(p.groups) +
                            (p.bias ? " b" : "") + (cost.needs_data_grad ? " dg" : "");
    if (auto hit = ctx.cache.find(key); hit != ctx.cache.end())
        return hit->second;

    ConvDescs d;
    ctx.setTensor(d.x, in);
    const Shape4 filter = shapeOf(Dims{in.c / p.groups, p.kernel_h, p.kernel_w}, p.out_channels);
    ITERSCOPE_CUDNN(cudnnSetFilter4dDescriptor(d.w, ctx.data_type, ctx.format, filter.n, filter.c,
                                               filter.h, filter.w));
    ITERSCOPE_CUDNN(cudnnSetConvolution2dDescriptor(
        d.conv, pad_h, pad_w, static_cast<int>(p.stride_h), static_cast<int>(p.stride_w),
        static_cast<int>(p.dilation_h), static_cast<int>(p.dilation_w), CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT));
    ITERSCOPE_CUDNN(cudnnSetConvolutionGroupCount(d.conv, static_cast<int>(p.groups)));
    ITERSCOPE_CUDNN(cudnnSetConvolutionMathType(d.conv, mathType(ctx.options.precision)));
    Shape4 out;
    ITERSCOPE_CUDNN(
        cudnnGetConvolution2dForwardOutputDim(d.conv, d.x.d, d.w, &out.n, &out.c, &out.h, &out.w));
    ctx.setTensor(d.y, out);
    ctx.setTensor(d.bias, Shape4{1, out.c, 1, 1});

    LayerMeasurement m;
    m.measured = true;
    if (out.h != expected.h || out.w != expected.w)
        m.note = "cuDNN output " + std::to_string(out.h) + "x" + std::to_string(out.w) +
                 " differs from the analysed " + std::to_string(expected.h) + "x" +
                 std::to_string(expected.w) + " (asymmetric padding)";

    void* x = ctx.data(ctx.x, in.elements(), 11);
    void* y = ctx.data(ctx.y, out.elements(), 12);
    void* dx = ctx.data(ctx.dx, in.elements(), 13);
    void* dy = ctx.data(ctx.dy, out.elements(), 14);
    void* w = ctx.data(ctx.w, filter.elements(), 15);
    void* dw = ctx.data(ctx.dw, filter.elements(), 16);
    // Bias and its gradient share one buffer, sized before either pointer is taken.
    void* bias = ctx.data(ctx.params, 2 * static_cast<std::size_t>(out.c), 17);
    void* dbias = static_cast<char*>(bias) + static_cast<std::size_t>(out.c) * ctx.element_bytes;

    // Find needs a workspace as large as the limit to try the algorithms that use it;
    // leave room for the tensors when the GPU has less free memory than the limit.
    std::size_t free_bytes = 0, total_bytes = 0;
    ITERSCOPE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t limit =
        std::min<std::size_t>(static_cast<std::size_t>(ctx.options.workspace_limit_bytes),
                              free_bytes / 2 + ctx.ws.size());
    const bool find = ctx.options.search == AlgorithmSearch::Find;
    void* ws = find ? ctx.ws.grow(limit) : nullptr;

    std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> fwd{};
    std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> bwd_data{};
    std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT>
        bwd_filter{};
    int n_fwd = 0, n_data = 0, n_filter = 0;
    if (find) {
        ITERSCOPE_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(
            ctx.cudnn, d.x.d, x, d.w, w, d.conv, d.y.d, y, static_cast<int>(fwd.size()), &n_fwd,
            fwd.data(), ws, limit));
        if (cost.needs_data_grad)
            ITERSCOPE_CUDNN(cudnnFindConvolutionBackwardDataAlgorithmEx(
                ctx.cudnn, d.w, w, d.y.d, dy, d.conv, d.x.d, dx, static_cast<int>(bwd_data.size()),
                &n_data, bwd_data.data(), ws, limit));
        ITERSCOPE_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            ctx.cudnn, d.x.d, x, d.y.d, dy, d.conv, d.w, dw, static_cast<int>(bwd_filter.size()),
            &n_filter, bwd_filter.data(), ws, limit));
    } else {
        ITERSCOPE_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(ctx.cudnn, d.x.d, d.w, d.conv, d.y.d,
                                                               static_cast<int>(fwd.size()), &n_fwd,
                                                               fwd.data()));
        if (cost.needs_data_grad)
            ITERSCOPE_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                ctx.cudnn, d.w, d.y.d, d.conv, d.x.d, static_cast<int>(bwd_data.size()), &n_data,
                bwd_data.data()));
        ITERSCOPE_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            ctx.cudnn, d.x.d, d.y.d, d.conv, d.w, static_cast<int>(bwd_filter.size()), &n_filter,
            bwd_filter.data()));
    }
    const auto* f = pick(fwd.data(), n_fwd, limit);
    const auto* bd = cost.needs_data_grad ? pick(bwd_data.data(), n_data, limit) : nullptr;
    const auto* bf = pick(bwd_filter.data(), n_filter, limit);
    if (!f || !bf || (cost.needs_data_grad && !bd))
        throw Unmeasurable("cuDNN offers no algorithm within the workspace limit");
    m.workspace_bytes =
        static_cast<int64_t>(std::max({f->memory, bd ? bd->memory : 0, bf->memory}));
    ws = ctx.ws.grow(static_cast<std::size_t>(m.workspace_bytes));
    const std::size_t ws_bytes = ctx.ws.size();

    const float one = 1, zero = 0;
    m.forward_algorithm = fwdName(f->algo);
    m.forward_ms = ctx.time([&] {
        ITERSCOPE_CUDNN(cudnnConvolutionForward(ctx.cudnn, &one, d.x.d, x, d.w, w, d.conv, f->algo,
                                                ws, ws_bytes, &zero, d.y.d, y));
        if (p.bias)
            ITERSCOPE_CUDNN(cudnnAddTensor(ctx.cudnn, &one, d.bias.d, bias, &one, d.y.d, y));
    });
    if (bd) {
        m.backward_data_algorithm = bwdDataName(bd->algo);
        m.backward_data_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnConvolutionBackwardData(ctx.cudnn, &one, d.w, w, d.y.d, dy, d.conv,
                                                         bd->algo, ws, ws_bytes, &zero, d.x.d, dx));
        });
    }
    m.backward_filter_algorithm = bwdFilterName(bf->algo);
    m.backward_filter_ms = ctx.time([&] {
        ITERSCOPE_CUDNN(cudnnConvolutionBackwardFilter(ctx.cudnn, &one, d.x.d, x, d.y.d, dy, d.conv,
                                                       bf->algo, ws, ws_bytes, &zero, d.w, dw));
        if (p.bias)
            ITERSCOPE_CUDNN(
                cudnnConvolutionBackwardBias(ctx.cudnn, &one, d.y.d, dy, &zero, d.bias.d, dbias));
    });
    ctx.cache.emplace(key, m);
    return m;
}

LayerMeasurement benchFullyConnected(BenchContext& ctx, const Layer& layer, const Dims& input,
                                     const LayerCost& cost) {
    const Shape4 in = shapeOf(input, ctx.options.batch);
    const int batch = in.n;
    const int features = in.c * in.h * in.w;
    const Shape4 weights = shapeOf(Dims{features}, layer.fc.out_features);
    const int outputs = weights.n;
    const std::string key = "fc " + std::to_string(batch) + "x" + std::to_string(features) +
                            " -> " + std::to_string(outputs) + (layer.fc.bias ? " b" : "") +
                            (cost.needs_data_grad ? " dg" : "");
    if (auto hit = ctx.cache.find(key); hit != ctx.cache.end())
        return hit->second;

    const cudaDataType_t type = ctx.options.precision == Precision::AMP    ? CUDA_R_16F
                                : ctx.options.precision == Precision::BF16 ? CUDA_R_16BF
                                                                           : CUDA_R_32F;
    const cublasComputeType_t compute = ctx.options.precision == Precision::TF32
                                            ? CUBLAS_COMPUTE_32F_FAST_TF32
                                            : CUBLAS_COMPUTE_32F;
    void* x = ctx.data(ctx.x, in.elements(), 21);
    void* y = ctx.data(ctx.y, static_cast<std::size_t>(batch) * outputs, 22);
    void* dx = ctx.data(ctx.dx, in.elements(), 23);
    void* dy = ctx.data(ctx.dy, static_cast<std::size_t>(batch) * outputs, 24);
    void* w = ctx.data(ctx.w, weights.elements(), 25);
    void* dw = ctx.data(ctx.dw, weights.elements(), 26);
    // Bias gradient: dY times a vector of ones; the buffer holds ones' stand-in and db.
    void* ones = ctx.data(ctx.params, static_cast<std::size_t>(batch) + outputs, 27);
    void* db = static_cast<char*>(ones) + static_cast<std::size_t>(batch) * ctx.element_bytes;

    const float one = 1, zero = 0;
    // Row-major activations (batch x features) are column-major features x batch, so
    // Y = W^T X with W stored features x outputs column-major.
    auto gemm = [&](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* a,
                    int lda, const void* b, int ldb, void* c, int ldc) {
        ITERSCOPE_CUBLAS(cublasGemmEx(ctx.cublas, ta, tb, m, n, k, &one, a, type, lda, b, type, ldb,
                                      &zero, c, type, ldc, compute, CUBLAS_GEMM_DEFAULT));
    };
    LayerMeasurement m;
    m.measured = true;
    m.forward_ms = ctx.time([&] {
        gemm(CUBLAS_OP_T, CUBLAS_OP_N, outputs, batch, features, w, features, x, features, y,
             outputs);
    });
    if (cost.needs_data_grad)
        m.backward_data_ms = ctx.time([&] {
            gemm(CUBLAS_OP_N, CUBLAS_OP_N, features, batch, outputs, w, features, dy, outputs, dx,
                 features);
        });
    m.backward_filter_ms = ctx.time([&] {
        gemm(CUBLAS_OP_N, CUBLAS_OP_T, features, outputs, batch, x, features, dy, outputs, dw,
             features);
        if (layer.fc.bias)
            gemm(CUBLAS_OP_N, CUBLAS_OP_N, outputs, 1, batch, dy, outputs, ones, batch, db,
                 outputs);
    });
    m.note = "forward bias add not timed (fused into the GEMM epilogue by frameworks)";
    ctx.cache.emplace(key, m);
    return m;
}

} // namespace iterscope::cuda
