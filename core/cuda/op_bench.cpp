// The memory-bound layers: batch norm, scale, activation, pooling, LRN, softmax,
// element-wise, concat, dropout, and plain copies for transpose and pad.
#include "cuda/layer_bench_detail.h"

#include <algorithm>

namespace iterscope::cuda {
namespace {

struct OpDesc {
    cudnnOpTensorDescriptor_t d = nullptr;
    explicit OpDesc(cudnnOpTensorOp_t op) {
        ITERSCOPE_CUDNN(cudnnCreateOpTensorDescriptor(&d));
        ITERSCOPE_CUDNN(cudnnSetOpTensorDescriptor(d, op, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
    }
    ~OpDesc() { cudnnDestroyOpTensorDescriptor(d); }
    OpDesc(const OpDesc&) = delete;
    OpDesc& operator=(const OpDesc&) = delete;
};

struct ActivationDesc {
    cudnnActivationDescriptor_t d = nullptr;
    ActivationDesc(cudnnActivationMode_t mode, double coef) {
        ITERSCOPE_CUDNN(cudnnCreateActivationDescriptor(&d));
        ITERSCOPE_CUDNN(cudnnSetActivationDescriptor(d, mode, CUDNN_PROPAGATE_NAN, coef));
    }
    ~ActivationDesc() { cudnnDestroyActivationDescriptor(d); }
    ActivationDesc(const ActivationDesc&) = delete;
    ActivationDesc& operator=(const ActivationDesc&) = delete;
};

struct PoolDesc {
    cudnnPoolingDescriptor_t d = nullptr;
    PoolDesc() { ITERSCOPE_CUDNN(cudnnCreatePoolingDescriptor(&d)); }
    ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
    PoolDesc(const PoolDesc&) = delete;
    PoolDesc& operator=(const PoolDesc&) = delete;
};

// Activation kinds without a cuDNN mode cost the same memory traffic as ReLU.
cudnnActivationMode_t activationMode(const ActivationParams& a, double& coef, std::string& note) {
    coef = 0;
    switch (a.kind) {
    case ActivationKind::ReLU:
        return CUDNN_ACTIVATION_RELU;
    case ActivationKind::ReLU6:
    case ActivationKind::Clip:
        coef = 6;
        return CUDNN_ACTIVATION_CLIPPED_RELU;
    case ActivationKind::Sigmoid:
        return CUDNN_ACTIVATION_SIGMOID;
    case ActivationKind::Tanh:
        return CUDNN_ACTIVATION_TANH;
    case ActivationKind::ELU:
        coef = 1;
        return CUDNN_ACTIVATION_ELU;
    case ActivationKind::Swish:
        coef = 1;
        return CUDNN_ACTIVATION_SWISH;
    default:
        note = std::string(activationKindName(a.kind)) + " timed as ReLU (same memory traffic)";
        return CUDNN_ACTIVATION_RELU;
    }
}

} // namespace

LayerMeasurement benchOther(BenchContext& ctx, const Network& net, const NetworkAnalysis& analysis,
                            std::size_t index) {
    const Layer& layer = net.layers[index];
    const LayerCost& cost = analysis.layers[index];
    const Dims& input_dims =
        layer.inputs.empty() ? net.input : analysis.layers[layer.inputs[0]].output;
    LayerMeasurement m;
    switch (layer.kind) {
    case LayerKind::Input:
    case LayerKind::Flatten:
    case LayerKind::Reshape:
    case LayerKind::Identity:
        return m; // views: no kernel runs
    case LayerKind::Deconvolution:
        m.note = "not measured: transposed convolution is not timed by this calibrator";
        return m;
    default:
        break;
    }

    const Shape4 in = shapeOf(input_dims, ctx.options.batch);
    const Shape4 out = shapeOf(cost.output, ctx.options.batch);
    TensorDesc xd, yd, cd;
    ctx.setTensor(xd, in);
    ctx.setTensor(yd, out);
    ctx.setTensor(cd, Shape4{1, out.c, 1, 1});
    // Inputs as large as the output too: copies (pad) read as much as they write.
    void* x = ctx.data(ctx.x, std::max(in.elements(), out.elements()), 31);
    void* y = ctx.data(ctx.y, std::max(in.elements(), out.elements()), 32);
    void* dx = ctx.data(ctx.dx, in.elements(), 33);
    void* dy = ctx.data(ctx.dy, std::max(in.elements(), out.elements()), 34);
    const float one = 1, zero = 0;
    m.measured = true;

    auto elementwise = [&](cudnnOpTensorOp_t op, cudnnTensorDescriptor_t b_desc, const void* b) {
        OpDesc desc(op);
        return ctx.time([&] {
            ITERSCOPE_CUDNN(
                cudnnOpTensor(ctx.cudnn, desc.d, &one, yd.d, x, &one, b_desc, b, &zero, yd.d, y));
        });
    };
    auto copy = [&](std::size_t elements) {
        return ctx.time([&] {
            ITERSCOPE_CUDA(cudaMemcpyAsync(y, x, elements * ctx.element_bytes,
                                           cudaMemcpyDeviceToDevice, ctx.stream));
        });
    };

    switch (layer.kind) {
    case LayerKind::BatchNorm: {
        // Per-channel statistics in FP32 even for FP16 data, as cuDNN requires.
        const cudnnBatchNormMode_t mode = input_dims.size() == 1 ? CUDNN_BATCHNORM_PER_ACTIVATION
                                          : halfPrecision(ctx.options.precision)
                                              ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT
                                              : CUDNN_BATCHNORM_SPATIAL;
        TensorDesc bn;
        ITERSCOPE_CUDNN(cudnnDeriveBNTensorDescriptor(bn.d, xd.d, mode));
        const std::size_t per =
            static_cast<std::size_t>(in.c) *
            (mode == CUDNN_BATCHNORM_PER_ACTIVATION ? static_cast<std::size_t>(in.h * in.w) : 1);
        auto* params = static_cast<float*>(ctx.params.grow(7 * per * sizeof(float)));
        launchFill(params, 7 * per, FillType::Float32, 35, ctx.stream);
        float* scale = params;
        float* bias = params + per;
        float* mean = params + 2 * per;
        float* var = params + 3 * per;
        float* saved_mean = params + 4 * per;
        float* saved_inv = params + 5 * per;
        float* dscale = params + 6 * per;
        // Backward writes dbias next to dscale: reuse the running mean's slot for it.
        float* dbias = mean;
        ITERSCOPE_CUDNN(cudnnBatchNormalizationForwardTraining(
            ctx.cudnn, mode, &one, &zero, xd.d, x, xd.d, y, bn.d, scale, bias, 0.1, mean, var, 1e-5,
            saved_mean, saved_inv));
        m.forward_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnBatchNormalizationForwardTraining(
                ctx.cudnn, mode, &one, &zero, xd.d, x, xd.d, y, bn.d, scale, bias, 0.1, mean, var,
                1e-5, saved_mean, saved_inv));
        });
        // One kernel computes the data gradient and the scale/bias gradients together.
        m.backward_data_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnBatchNormalizationBackward(
                ctx.cudnn, mode, &one, &zero, &one, &zero, xd.d, x, xd.d, dy, xd.d, dx, bn.d, scale,
                dscale, dbias, 1e-5, saved_mean, saved_inv));
        });
        break;
    }
    case LayerKind::Scale: {
        void* gamma = ctx.data(ctx.params, static_cast<std::size_t>(out.c), 36);
        m.forward_ms = elementwise(CUDNN_OP_TENSOR_MUL, cd.d, gamma);
        m.backward_data_ms = m.forward_ms;
        m.backward_filter_ms = m.forward_ms;
        m.note = "backward timed as two element-wise passes";
        break;
    }
    case LayerKind::Activation: {
        double coef = 0;
        ActivationDesc act(activationMode(layer.activation, coef, m.note), coef);
        m.forward_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(
                cudnnActivationForward(ctx.cudnn, act.d, &one, xd.d, x, &zero, xd.d, y));
        });
        m.backward_data_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnActivationBackward(ctx.cudnn, act.d, &one, xd.d, y, xd.d, dy, xd.d,
                                                    x, &zero, xd.d, dx));
        });
        break;
    }
    case LayerKind::Pooling:
    case LayerKind::GlobalPooling: {
        const PoolParams& p = layer.pool;
        const bool global = layer.kind == LayerKind::GlobalPooling;
        const bool max = p.kind == PoolKind::Max;
        const cudnnPoolingMode_t mode =
            max ? CUDNN_POOLING_MAX
                : (p.count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                       : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
        PoolDesc pool;
        const int kh = global ? in.h : static_cast<int>(p.kernel_h);
        const int kw = global ? in.w : static_cast<int>(p.kernel_w);
        // Ceil mode and one-sided padding both come down to padding the larger side.
        const int ph = global ? 0 : static_cast<int>(std::max(p.pad_top, p.pad_bottom));
        const int pw = global ? 0 : static_cast<int>(std::max(p.pad_left, p.pad_right));
        const int sh = global ? 1 : static_cast<int>(p.stride_h);
        const int sw = global ? 1 : static_cast<int>(p.stride_w);
        ITERSCOPE_CUDNN(
            cudnnSetPooling2dDescriptor(pool.d, mode, CUDNN_PROPAGATE_NAN, kh, kw, ph, pw, sh, sw));
        Shape4 pooled;
        ITERSCOPE_CUDNN(cudnnGetPooling2dForwardOutputDim(pool.d, xd.d, &pooled.n, &pooled.c,
                                                          &pooled.h, &pooled.w));
        if (pooled.h != out.h || pooled.w != out.w)
            m.note = "cuDNN pooled to " + std::to_string(pooled.h) + "x" +
                     std::to_string(pooled.w) + ", the analysis to " + std::to_string(out.h) + "x" +
                     std::to_string(out.w);
        ctx.setTensor(yd, pooled);
        y = ctx.data(ctx.y, pooled.elements(), 37);
        dy = ctx.data(ctx.dy, pooled.elements(), 38);
        m.forward_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnPoolingForward(ctx.cudnn, pool.d, &one, xd.d, x, &zero, yd.d, y));
        });
        if (cost.needs_data_grad)
            m.backward_data_ms = ctx.time([&] {
                ITERSCOPE_CUDNN(cudnnPoolingBackward(ctx.cudnn, pool.d, &one, yd.d, y, yd.d, dy,
                                                     xd.d, x, &zero, xd.d, dx));
            });
        break;
    }
    case LayerKind::LRN: {
        cudnnLRNDescriptor_t lrn = nullptr;
        ITERSCOPE_CUDNN(cudnnCreateLRNDescriptor(&lrn));
        const unsigned size = static_cast<unsigned>(
            std::clamp<int64_t>(layer.lrn.size, CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N));
        try {
            ITERSCOPE_CUDNN(cudnnSetLRNDescriptor(lrn, size, 1e-4, 0.75, 2.0));
            m.forward_ms = ctx.time([&] {
                ITERSCOPE_CUDNN(cudnnLRNCrossChannelForward(
                    ctx.cudnn, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd.d, x, &zero, xd.d, y));
            });
            m.backward_data_ms = ctx.time([&] {
                ITERSCOPE_CUDNN(
                    cudnnLRNCrossChannelBackward(ctx.cudnn, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one,
                                                 xd.d, y, xd.d, dy, xd.d, x, &zero, xd.d, dx));
            });
        } catch (...) {
            cudnnDestroyLRNDescriptor(lrn);
            throw;
        }
        cudnnDestroyLRNDescriptor(lrn);
        break;
    }
    case LayerKind::Softmax:
        m.forward_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnSoftmaxForward(ctx.cudnn, CUDNN_SOFTMAX_ACCURATE,
                                                CUDNN_SOFTMAX_MODE_CHANNEL, &one, xd.d, x, &zero,
                                                xd.d, y));
        });
        m.backward_data_ms = ctx.time([&] {
            ITERSCOPE_CUDNN(cudnnSoftmaxBackward(ctx.cudnn, CUDNN_SOFTMAX_ACCURATE,
                                                 CUDNN_SOFTMAX_MODE_CHANNEL, &one, xd.d, y, xd.d,
                                                 dy, &zero, xd.d, dx));
        });
        break;
    case LayerKind::Eltwise: {
        // Broadcast operands are timed at the output's size: an upper bound on their traffic.
        const cudnnOpTensorOp_t op = layer.eltwise.kind == EltwiseKind::Mul   ? CUDNN_OP_TENSOR_MUL
                                     : layer.eltwise.kind == EltwiseKind::Max ? CUDNN_OP_TENSOR_MAX
                                                                              : CUDNN_OP_TENSOR_ADD;
        const std::size_t extra_inputs = layer.inputs.size() > 1 ? layer.inputs.size() - 1 : 1;
        m.forward_ms = static_cast<double>(extra_inputs) * elementwise(op, yd.d, dy);
        if (layer.eltwise.kind == EltwiseKind::Add)
            m.note = "backward of a sum passes the gradient through: no kernel";
        else
            m.backward_data_ms = m.forward_ms * static_cast<double>(layer.inputs.size());
        if (layer.eltwise.kind == EltwiseKind::Sub || layer.eltwise.kind == EltwiseKind::Div)
            m.note = layer.eltwise.kind == EltwiseKind::Sub
                         ? "timed as an addition"
                         : "timed as an addition (division costs the same traffic)";
        break;
    }
    case LayerKind::Concat: {
        // One strided copy per input into its slice of the output, as frameworks do.
        const std::size_t out_sample = out.elements() / static_cast<std::size_t>(out.n);
        double total = 0;
        std::size_t offset = 0;
        std::size_t largest = 0;
        for (std::size_t input : layer.inputs)
            largest = std::max(
                largest, shapeOf(analysis.layers[input].output, ctx.options.batch).elements());
        x = ctx.data(ctx.x, largest, 39);
        for (std::size_t input : layer.inputs) {
            const Shape4 part = shapeOf(analysis.layers[input].output, ctx.options.batch);
            const std::size_t part_sample = part.elements() / static_cast<std::size_t>(part.n);
            if (offset + part_sample > out_sample)
                throw Unmeasurable("concat inputs exceed the output");
            const std::size_t eb = ctx.element_bytes;
            total += ctx.time([&] {
                ITERSCOPE_CUDA(cudaMemcpy2DAsync(static_cast<char*>(y) + offset * eb,
                                                 out_sample * eb, x, part_sample * eb,
                                                 part_sample * eb, static_cast<std::size_t>(part.n),
                                                 cudaMemcpyDeviceToDevice, ctx.stream));
            });
            offset += part_sample;
        }
        m.forward_ms = total;
        m.note = "backward takes views of the gradient: no kernel";
        break;
    }
    case LayerKind::Dropout:
        m.forward_ms = elementwise(CUDNN_OP_TENSOR_MUL, yd.d, dy);
        m.backward_data_ms = m.forward_ms;
        m.note = "timed as an element-wise multiply by the mask";
        break;
    case LayerKind::Transpose:
    case LayerKind::Pad:
        m.forward_ms = copy(out.elements());
        if (cost.needs_data_grad)
            m.backward_data_ms = copy(in.elements());
        m.note = "timed as a device-to-device copy of the output";
        break;
    default:
        m.measured = false;
        m.note = "not measured: no kernel for this layer kind";
        break;
    }
    return m;
}

} // namespace iterscope::cuda
