#include "model/compute_layers_tensor.h"

#include <algorithm>

namespace iterscope {
namespace {

double product(const Dims& d, std::size_t from, std::size_t to) {
    double p = 1;
    for (std::size_t i = from; i < to && i < d.size(); ++i)
        p *= static_cast<double>(std::max<int64_t>(d[i], 1));
    return p;
}

double elemBytes(const ComputeRates& r) {
    return static_cast<double>(r.elem_bytes);
}

// A Linear on every token: rows = batch x leading axes, a weight shared by all rows, so one
// GEMM of rows x N over K, like a fully connected layer with a taller input.
LayerPasses tokenLinear(const Layer& layer, const LayerCost& cost, const Dims& input, int64_t batch,
                        const ComputeRates& r) {
    const double b = static_cast<double>(batch);
    const double k = input.empty() ? 1.0 : static_cast<double>(std::max<int64_t>(input.back(), 1));
    const double n = static_cast<double>(std::max<int64_t>(layer.fc.out_features, 1));
    const double rows = b * product(input, 0, input.empty() ? 0 : input.size() - 1);
    const double act_bytes =
        b * static_cast<double>(cost.input_elems + cost.output_elems) * elemBytes(r);
    const double weight_read = static_cast<double>(cost.params * r.weight_bytes);
    const double weight_grad = static_cast<double>(cost.params) * 4.0; // FP32 gradients
    LayerPasses out;
    out.forward = kernelPass({gemmKernelTime(b * static_cast<double>(cost.fwd_flops), rows, n, k, 1,
                                             r.fc_efficiency, act_bytes + weight_read, r)},
                             r);
    const KernelTime wgrad =
        gemmKernelTime(b * static_cast<double>(cost.bwd_weight_flops), n, k, rows, 1,
                       r.fc_efficiency, act_bytes + weight_read + weight_grad, r);
    if (cost.needs_data_grad && cost.bwd_data_flops > 0)
        out.backward =
            kernelPass({gemmKernelTime(b * static_cast<double>(cost.bwd_data_flops), rows, k, n, 1,
                                       r.fc_efficiency, act_bytes + weight_read, r),
                        wgrad},
                       r);
    else
        out.backward = kernelPass({wgrad}, r);
    return out;
}

// C[..., M, N] = A[..., M, K] x B[..., K, N], one strided-batched GEMM over every sample
// and head. Backward: dA = dC x B^T (M x K over N) and dB = A^T x dC (K x N over M).
LayerPasses matmul(const LayerCost& cost, int64_t batch, const ComputeRates& r) {
    const Dims& o = cost.output;
    const double b = static_cast<double>(batch);
    const double n = o.empty() ? 1.0 : static_cast<double>(std::max<int64_t>(o.back(), 1));
    const double m =
        o.size() < 2 ? 1.0 : static_cast<double>(std::max<int64_t>(o[o.size() - 2], 1));
    const double out_elems = static_cast<double>(std::max<int64_t>(cost.output_elems, 1));
    const double k = static_cast<double>(cost.macs) / out_elems;
    const double problems = b * product(o, 0, o.size() < 2 ? 0 : o.size() - 2);
    const auto groups = static_cast<int64_t>(std::min(problems, 9e18));
    const double bytes =
        b * static_cast<double>(cost.input_elems + cost.output_elems) * elemBytes(r);
    const double flops = b * static_cast<double>(cost.fwd_flops);
    LayerPasses out;
    out.forward =
        kernelPass({gemmKernelTime(flops, m, n, k, groups, r.fc_efficiency, bytes, r)}, r);
    if (cost.needs_data_grad)
        out.backward =
            kernelPass({gemmKernelTime(flops, m, k, n, groups, r.fc_efficiency, bytes, r),
                        gemmKernelTime(flops, k, n, m, groups, r.fc_efficiency, bytes, r)},
                       r);
    return out;
}

// Element traffic, in multiples of the input and output element counts (as trafficOf() in
// compute_model.cpp):
//   LayerNorm forward: one kernel keeps each row on chip (read x, write y, and the row's
//     mean and deviation); backward: dx from (x, dy) in one kernel, then a second kernel
//     reduces (x, dy) over the rows for the scale and shift gradients.
//   Reduce: read x, write the small y; backward broadcasts dy into an x-sized dx (an
//     extremum also reads x to find where it came from).
//   Slice: gathers the output's elements; backward zeroes an input-sized dx and scatters dy.
//   Expand: writes the larger output; backward sums it back.
struct Traffic {
    double fwd_in, fwd_out, bwd_in, bwd_out;
};

Traffic trafficOf(const Layer& layer) {
    switch (layer.kind) {
    case LayerKind::LayerNorm:
        return layer.layernorm.scale || layer.layernorm.bias ? Traffic{1, 1, 4, 1}
                                                             : Traffic{1, 1, 2, 1};
    case LayerKind::Reduce:
        return layer.reduce.kind == ReduceKind::Max || layer.reduce.kind == ReduceKind::Min
                   ? Traffic{1, 1, 2, 1}
                   : Traffic{1, 1, 1, 1};
    case LayerKind::Slice:
        return {0, 2, 1, 2};
    default:
        return {1, 1, 1, 1};
    }
}

LayerPasses bandwidthBound(const Layer& layer, const LayerCost& cost, int64_t batch,
                           const ComputeRates& r) {
    const double b = static_cast<double>(batch);
    const double e_in = b * static_cast<double>(cost.input_elems);
    const double e_out = b * static_cast<double>(cost.output_elems);
    const Traffic t = trafficOf(layer);
    LayerPasses out;
    out.forward = kernelPass({streamingKernel(b * static_cast<double>(cost.fwd_flops),
                                              t.fwd_in * e_in + t.fwd_out * e_out, r)},
                             r);
    if (cost.needs_data_grad || cost.params > 0) {
        const double flops = b * static_cast<double>(cost.bwd_data_flops + cost.bwd_weight_flops);
        out.backward =
            kernelPass({streamingKernel(flops, t.bwd_in * e_in + t.bwd_out * e_out, r)}, r);
    }
    return out;
}

// A constant is a view broadcast to the batch: no forward kernel. A learned one (a class
// token, a position table) sums its gradient over the batch in one reduction.
LayerPasses constant(const LayerCost& cost, int64_t batch, const ComputeRates& r) {
    LayerPasses out;
    if (cost.params > 0) {
        const double b = static_cast<double>(batch);
        const double e = static_cast<double>(cost.output_elems);
        out.backward = kernelPass({streamingKernel(b * e, b * e + e, r)}, r);
    }
    return out;
}

} // namespace

bool isTensorLayer(const Layer& layer) {
    switch (layer.kind) {
    case LayerKind::FullyConnected:
        return !layer.fc.flatten;
    case LayerKind::MatMul:
    case LayerKind::LayerNorm:
    case LayerKind::Reduce:
    case LayerKind::Slice:
    case LayerKind::Constant:
    case LayerKind::Expand:
        return true;
    default:
        return false;
    }
}

LayerPasses tensorLayerPasses(const Layer& layer, const LayerCost& cost, const Dims& input,
                              int64_t batch, const ComputeRates& r) {
    switch (layer.kind) {
    case LayerKind::FullyConnected:
        return tokenLinear(layer, cost, input, batch, r);
    case LayerKind::MatMul:
        return matmul(cost, batch, r);
    case LayerKind::Constant:
        return constant(cost, batch, r);
    default:
        return bandwidthBound(layer, cost, batch, r);
    }
}

} // namespace iterscope
