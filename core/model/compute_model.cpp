#include "model/compute_model.h"

#include "model/compute_layers_tensor.h"

#include <algorithm>
#include <cmath>

namespace iterscope {

namespace {

// Peaks are TFLOP/s and GB/s on the spec sheets; the model works in per-millisecond rates.
constexpr double kFlopPerMsPerTflops = 1e9;
constexpr double kBytesPerMsPerGbps = 1e6;
constexpr double kMsPerUs = 1e-3;

// cuDNN and cuBLAS halve a tile edge that is more than twice the problem's (no kernel keeps
// a 128-wide tile for 16 output channels); they go no smaller than this.
constexpr int64_t kMinTile = 16;
constexpr int64_t kMinTensorTile = 32;
// When a layer has fewer tiles than SMs, the libraries pick narrower tiles down to this
// edge, then split the reduction (split-K) in chunks of at least kMinSplitK elements.
constexpr int64_t kMinFillTile = 32;
constexpr int64_t kMinSplitK = 256;
constexpr double kSplitKWaves = 4;
// Multiplications saved by Winograd F(2x2, 3x3): 9 x 4 / 16.
constexpr double kWinograd3x3Reduction = 2.25;
// An SM issues at most one warp instruction per scheduler per clock, and every SM since
// Kepler has four schedulers: 4 x 32 = 128 FMA lanes can be kept busy without dual issue.
// Kepler's 192-lane SMX therefore sustains 2/3 of its paper peak (a spec-sheet derivation,
// applied through fp32_lanes_per_sm, not a per-GPU factor).
constexpr int kIssueLanesPerSm = 128;

double ceilDiv(double a, double b) {
    return std::ceil(a / b);
}

KernelTime roofline(double compute_ms, double memory_ms) {
    if (compute_ms >= memory_ms)
        return {compute_ms, Bound::Compute};
    return {memory_ms, Bound::Memory};
}

// A pass of one layer: its kernels back to back, each followed by the launch gap; when the
// host needs longer to dispatch the layer than the GPU to run it, the host sets the pace.
PassTime pass(std::initializer_list<KernelTime> kernels, const ComputeRates& r) {
    double gpu_ms = 0;
    double longest = -1;
    Bound bound = Bound::Overhead;
    for (const KernelTime& k : kernels) {
        gpu_ms += k.ms + r.kernel_gap_ms;
        if (k.ms > longest) {
            longest = k.ms;
            bound = k.bound;
        }
    }
    if (r.host_overhead_ms >= gpu_ms)
        return {r.host_overhead_ms, Bound::Overhead};
    return {gpu_ms, bound};
}

// A pass with no kernel (the gradient of an addition is its input's): only the host's
// bookkeeping.
PassTime hostOnly(const ComputeRates& r) {
    return {r.host_overhead_ms, Bound::Overhead};
}

double memoryMs(double bytes, const ComputeRates& r) {
    return bytes / r.bytes_per_ms;
}

double vectorMs(double flops, const ComputeRates& r) {
    return flops / r.vector_flop_per_ms;
}

// A bandwidth-bound kernel reading and writing `elems_moved` activation elements.
KernelTime streaming(double flops, double elems_moved, const ComputeRates& r) {
    return roofline(vectorMs(flops, r),
                    memoryMs(elems_moved * static_cast<double>(r.elem_bytes), r));
}

int64_t shrinkTile(int64_t tile, int64_t extent, int64_t min_tile) {
    while (tile > min_tile && tile / 2 >= extent)
        tile /= 2;
    return tile;
}

struct ConvShape {
    double m, n, k;
    int64_t groups;
};

KernelTime gemmKernel(double flops, const ConvShape& s, double efficiency, double extra_speedup,
                      double bytes, const ComputeRates& r) {
    const double eff = gemmEfficiency(static_cast<int64_t>(s.m), static_cast<int64_t>(s.n),
                                      static_cast<int64_t>(s.k), s.groups, efficiency, r);
    const double compute_ms = flops / (r.gemm_flop_per_ms * eff * extra_speedup);
    return roofline(compute_ms, memoryMs(bytes, r));
}

int64_t dim(const Dims& d, std::size_t i) {
    return i < d.size() ? std::max<int64_t>(d[i], 1) : 1;
}

int64_t product(const Dims& d) {
    int64_t p = 1;
    for (int64_t v : d)
        p *= std::max<int64_t>(v, 1);
    return p;
}

// Convolution as implicit GEMM. `small` is the side with the input channels of the
// forward convolution, `big` the side with its output (swapped for a transposed one).
LayerPasses convolution(const Layer& layer, const LayerCost& cost, const Dims& in_dims,
                        int64_t batch, const ComputeRates& r) {
    const bool transposed = layer.kind == LayerKind::Deconvolution;
    const Dims& src = transposed ? cost.output : in_dims; // the side the filter reads
    const Dims& dst = transposed ? in_dims : cost.output; // the side the filter writes
    const int64_t groups = std::max<int64_t>(layer.conv.groups, 1);
    const int64_t c_src = dim(src, 0), c_dst = dim(dst, 0);
    const double src_spatial = static_cast<double>(product(src) / c_src);
    const double dst_spatial = static_cast<double>(product(dst) / c_dst);
    const double taps = static_cast<double>(layer.conv.kernel_h * layer.conv.kernel_w);
    const double b = static_cast<double>(batch);
    const double cin_g = static_cast<double>(std::max<int64_t>(c_src / groups, 1));
    const double cout_g = static_cast<double>(std::max<int64_t>(c_dst / groups, 1));

    const double act_bytes = b * static_cast<double>(cost.input_elems + cost.output_elems) *
                             static_cast<double>(r.elem_bytes);
    const double weight_read = static_cast<double>(cost.params * r.weight_bytes);
    const double weight_grad = static_cast<double>(cost.params) * 4.0; // FP32 gradients
    const double fwd_flops = b * static_cast<double>(cost.fwd_flops);
    const double data_flops = b * static_cast<double>(cost.bwd_data_flops);
    const double weight_flops = b * static_cast<double>(cost.bwd_weight_flops);

    const bool depthwise = groups > 1 && cin_g == 1;
    const int64_t kh = layer.conv.kernel_h, kw = layer.conv.kernel_w;
    const bool winograd_shape = kh == kw && (kh == 3 || kh == 5) && layer.conv.stride_h == 1 &&
                                layer.conv.stride_w == 1 && layer.conv.dilation_h == 1 &&
                                layer.conv.dilation_w == 1 && groups == 1;
    const bool winograd = r.winograd && !r.tensor_cores && winograd_shape;
    // winograd_speedup is what 3x3 filters achieve; F(2x2, k x k) saves k^2 x 4 / (k+1)^2
    // multiplications, so a 5x5 filter gains (25 x 4 / 36) / (9 x 4 / 16) = 1.23 times more.
    const double ideal_ratio =
        winograd_shape
            ? (static_cast<double>(kh * kh) * 4.0 / static_cast<double>((kh + 1) * (kh + 1))) /
                  kWinograd3x3Reduction
            : 1.0;
    const double speedup = winograd ? r.winograd_speedup * ideal_ratio : 1.0;
    // Tensor cores are allowed, not forced: cuDNN's algorithm search may keep a kernel on
    // the FP32 lanes (Winograd among them) where it is the faster, as on GPUs whose tensor
    // rate is only a few times their FP32 rate (GeForce cards at half rate, TF32).
    ComputeRates fp32_rates = r;
    const bool fp32_choice = r.fp32_fallback_efficiency > 0;
    if (fp32_choice) {
        fp32_rates.gemm_flop_per_ms = r.vector_flop_per_ms;
        fp32_rates.conv_efficiency = r.fp32_fallback_efficiency;
        fp32_rates.tensor_cores = false;
    }
    const double fp32_speedup =
        r.winograd && winograd_shape ? r.winograd_speedup * ideal_ratio : 1.0;
    // A depthwise convolution cannot use tensor cores (one input channel per filter): it
    // runs on the vector lanes, far from their peak (a k x k window of one channel gives
    // each loaded value at most k^2 uses; the weight gradient reduces over the whole batch),
    // at the share depthwise_efficiency fitted per cuDNN generation; under 16-bit
    // precisions on the lanes' FP16 rate, and its traffic halves.
    auto depthwiseKernel = [&](double flops, double bytes) {
        return roofline(flops / r.depthwise_flop_per_ms, memoryMs(bytes, r));
    };
    // The kernel cuDNN's search picks, and whether it runs on the tensor cores.
    struct Choice {
        KernelTime kernel;
        bool tensor = false;
    };
    auto transposeMs = [&](double elems_read) {
        return 2.0 * elems_read * static_cast<double>(r.elem_bytes) / r.copy_bytes_per_ms;
    };
    // cuDNN's search times each algorithm with the transforms it needs, so a tensor-core
    // kernel whose operands must be transposed is kept only where it wins with them.
    auto best = [&](double flops, const ConvShape& shape, double bytes, double elems_read) {
        const KernelTime tensor = gemmKernel(flops, shape, r.conv_efficiency, speedup, bytes, r);
        if (!fp32_choice)
            return Choice{tensor, r.tensor_cores};
        const KernelTime lanes =
            gemmKernel(flops, shape, fp32_rates.conv_efficiency, fp32_speedup, bytes, fp32_rates);
        const double with_transposes =
            tensor.ms + (r.transposes && r.tensor_cores ? transposeMs(elems_read) : 0.0);
        return lanes.ms < with_transposes ? Choice{lanes, false} : Choice{tensor, true};
    };
    // The filter's "forward" direction writes dst from src; a transposed convolution's
    // forward pass is that direction's data gradient, and the reverse.
    auto srcToDst = [&](double flops, double elems_read) {
        if (depthwise)
            return Choice{depthwiseKernel(flops, act_bytes + weight_read)};
        return best(flops, {b * dst_spatial, cout_g, cin_g * taps, groups}, act_bytes + weight_read,
                    elems_read);
    };
    auto dstToSrc = [&](double flops, double elems_read) {
        if (depthwise)
            return Choice{depthwiseKernel(flops, act_bytes + weight_read)};
        return best(flops, {b * src_spatial, cin_g, cout_g * taps, groups}, act_bytes + weight_read,
                    elems_read);
    };
    auto weightGrad = [&](double flops, double elems_read) {
        if (depthwise)
            return Choice{depthwiseKernel(flops, act_bytes + weight_grad)};
        return best(flops, {cout_g, cin_g * taps, b * dst_spatial, groups}, act_bytes + weight_grad,
                    elems_read);
    };

    // NCHW activations on 16-bit tensor cores. cuDNN's tensor-core convolutions take NHWC
    // operands: the library transposes each NCHW activation a kernel reads
    // (nchwToNhwcKernel, a read and a write of it) and the kernel writes its result in the
    // caller's layout itself (its epilogue: the "..._nhwckrsc_nchw" implicit-GEMM kernels of
    // cuDNN 8). The forward and data-gradient kernels read one activation each, the weight
    // gradient both. A transpose is a tiled copy through shared memory, at a copy's rate. A
    // kernel left on the FP32 lanes reads NCHW as it is.
    const double e_src = b * static_cast<double>(transposed ? cost.output_elems : cost.input_elems);
    const double e_dst = b * static_cast<double>(transposed ? cost.input_elems : cost.output_elems);
    // At most four kernels a pass (two with their transposes), kept on the stack: this
    // runs for every layer of every prediction.
    struct Kernels {
        KernelTime k[4];
        int n = 0;
        void add(const KernelTime& t) { k[n++] = t; }
    };
    auto addWithTransposes = [&](Kernels& ks, const Choice& c, double elems_read) {
        if (r.transposes && c.tensor)
            ks.add({transposeMs(elems_read), Bound::Memory});
        ks.add(c.kernel);
    };
    auto passOf = [&](const Kernels& ks) {
        switch (ks.n) {
        case 1:
            return pass({ks.k[0]}, r);
        case 2:
            return pass({ks.k[0], ks.k[1]}, r);
        case 3:
            return pass({ks.k[0], ks.k[1], ks.k[2]}, r);
        default:
            return pass({ks.k[0], ks.k[1], ks.k[2], ks.k[3]}, r);
        }
    };

    LayerPasses out;
    // Forward reads src (dst for a transposed convolution's forward, which is the filter's
    // data gradient); the data gradient reads the other side; the weight gradient both.
    Kernels fwd;
    const double fwd_read = transposed ? e_dst : e_src;
    addWithTransposes(
        fwd, transposed ? dstToSrc(fwd_flops, fwd_read) : srcToDst(fwd_flops, fwd_read), fwd_read);
    out.forward = passOf(fwd);
    const bool data_grad = cost.needs_data_grad && data_flops > 0;
    Kernels bwd;
    if (data_grad)
        addWithTransposes(bwd,
                          transposed ? srcToDst(data_flops, e_src) : dstToSrc(data_flops, e_dst),
                          transposed ? e_src : e_dst);
    if (data_grad || weight_flops > 0) {
        addWithTransposes(bwd, weightGrad(weight_flops, e_src + e_dst), e_src + e_dst);
        out.backward = passOf(bwd);
    }
    return out;
}

LayerPasses fullyConnected(const LayerCost& cost, int64_t batch, const ComputeRates& r) {
    const double b = static_cast<double>(batch);
    const double in = static_cast<double>(cost.input_elems);
    const double out_f = static_cast<double>(cost.output_elems);
    const double act_bytes = b * (in + out_f) * static_cast<double>(r.elem_bytes);
    const double weight_read = static_cast<double>(cost.params * r.weight_bytes);
    const double weight_grad = static_cast<double>(cost.params) * 4.0;

    LayerPasses out;
    out.forward = pass({gemmKernel(b * static_cast<double>(cost.fwd_flops), {b, out_f, in, 1},
                                   r.fc_efficiency, 1.0, act_bytes + weight_read, r)},
                       r);
    const KernelTime wgrad =
        gemmKernel(b * static_cast<double>(cost.bwd_weight_flops), {out_f, in, b, 1},
                   r.fc_efficiency, 1.0, act_bytes + weight_read + weight_grad, r);
    if (cost.needs_data_grad && cost.bwd_data_flops > 0)
        out.backward =
            pass({gemmKernel(b * static_cast<double>(cost.bwd_data_flops), {b, in, out_f, 1},
                             r.fc_efficiency, 1.0, act_bytes + weight_read, r),
                  wgrad},
                 r);
    else
        out.backward = pass({wgrad}, r);
    return out;
}

// Element traffic of the bandwidth-bound layers, in multiples of the input (E_in) and
// output (E_out) element counts, from how their kernels work:
//   BN forward (training): statistics pass over x, then normalize: read x twice, write y.
//   BN backward: reduce over (x, dy), then read x, dy again and write dx.
//   activation: read x, write y; backward read y (or x) and dy, write dx.
//   pooling: read x, write y; max backward reads x, y, dy and writes dx.
struct Traffic {
    double fwd_in = 1, fwd_out = 1, bwd_in = 1, bwd_out = 1;
};

Traffic trafficOf(const Layer& layer, const ComputeRates& r) {
    switch (layer.kind) {
    case LayerKind::BatchNorm:
        // NHWC: cuDNN's persistent batch norm (CUDNN_BATCHNORM_SPATIAL_PERSISTENT) keeps
        // its slice on chip between the statistics and the normalization, and likewise
        // backward, so each tensor is read once. A compiler that fuses element-wise chains
        // (XLA) lowers batch norm to its own reduction and element-wise passes instead.
        return r.persistent_bn ? Traffic{1, 1, 2, 1} : Traffic{2, 1, 3, 2};
    case LayerKind::Scale:
    case LayerKind::Activation:
    case LayerKind::Softmax:
        return {1, 1, 2, 1};
    case LayerKind::Pooling:
    case LayerKind::GlobalPooling:
        return layer.pool.kind == PoolKind::Max ? Traffic{1, 1, 2, 2} : Traffic{1, 1, 1, 1};
    case LayerKind::LRN: // also writes its scale, which backward reads
        return {1, 2, 3, 2};
    case LayerKind::Dropout: // the mask is written forward and read backward
        return {2, 1, 2, 1};
    case LayerKind::Eltwise:
        // A product's backward multiplies the output gradient by each input (and reduces
        // over the broadcast axes of a scale): every input and the gradient read, every
        // input gradient written.
        if (layer.eltwise.kind == EltwiseKind::Mul || layer.eltwise.kind == EltwiseKind::Div)
            return {1, 1, 2, 2};
        return {1, 1, 1, 1};
    default: // concat, pad, transpose, element-wise: read the inputs, write the output
        return {1, 1, 1, 1};
    }
}

LayerPasses streamingLayer(const Layer& layer, const LayerCost& cost, int64_t batch,
                           const ComputeRates& r, const LayerFusion& fusion) {
    const double b = static_cast<double>(batch);
    const double e_in = b * static_cast<double>(cost.input_elems);
    const double e_out = b * static_cast<double>(cost.output_elems);
    const Traffic t = trafficOf(layer, r);
    LayerPasses out;
    out.forward =
        pass({streaming(b * static_cast<double>(cost.fwd_flops),
                        t.fwd_in * e_in + t.fwd_out * e_out + b * fusion.extra_fwd_elems, r)},
             r);
    const double bwd_flops = b * static_cast<double>(cost.bwd_data_flops + cost.bwd_weight_flops);
    const bool additive =
        layer.kind == LayerKind::Eltwise &&
        (layer.eltwise.kind == EltwiseKind::Add || layer.eltwise.kind == EltwiseKind::Sub);
    if (additive) // the gradient of a sum is handed to each input as it is
        out.backward = cost.needs_data_grad ? hostOnly(r) : PassTime{};
    else if (cost.needs_data_grad || cost.params > 0)
        out.backward =
            pass({streaming(bwd_flops,
                            t.bwd_in * e_in + t.bwd_out * e_out + b * fusion.extra_bwd_elems, r)},
                 r);
    return out;
}

} // namespace

double tensorCoreShare(const GpuProfile& gpu, const SoftwareProfile& sw, Precision precision) {
    // cuDNN 7 brought the first tensor-core kernels (Volta, compute capability 7.0) and
    // cuDNN 8 TF32 and BF16 (Ampere, 8.0): a release that knows no such GPU has none, and
    // no GPU before Ampere has BF16 or TF32 tensor cores.
    constexpr double kFirstTensorCores = 7.0, kFirstTf32 = 8.0;
    if (precision == Precision::FP32)
        return 0;
    const bool ampere_precision = precision == Precision::TF32 || precision == Precision::BF16;
    const double needed = ampere_precision ? kFirstTf32 : kFirstTensorCores;
    if (sw.newest_compute_capability < needed)
        return 0;
    if (precision == Precision::BF16 && gpu.compute_capability < kFirstTf32)
        return 0;
    // Kernels are binary compatible within a major compute capability; a newer major runs
    // the library's previous generation of kernels (PTX), without its new instructions.
    if (std::floor(gpu.compute_capability) > std::floor(sw.newest_compute_capability))
        return gpu.legacy_tensor_fraction;
    return 1;
}

ComputeRates computeRates(const GpuProfile& gpu, const SoftwareProfile& sw, Precision precision,
                          bool nhwc) {
    ComputeRates r;
    const bool cal = gpu.calibrated;
    const double issue_share = gpu.fp32_lanes_per_sm > kIssueLanesPerSm
                                   ? static_cast<double>(kIssueLanesPerSm) / gpu.fp32_lanes_per_sm
                                   : 1.0;
    // Spec-sheet peaks are at the boost clock; a GPU held lower by its power limit computes
    // in proportion (memory runs on its own clock). Measured peaks already ran at the clock.
    const double clock = gpu.sustained_clock_mhz > 0 && gpu.boost_clock_mhz > 0
                             ? std::min(1.0, gpu.sustained_clock_mhz / gpu.boost_clock_mhz)
                             : 1.0;
    const bool measured_fp32 = cal && gpu.measured_fp32_tflops > 0;
    const double fp32 =
        measured_fp32 ? gpu.measured_fp32_tflops : gpu.fp32_tflops * issue_share * clock;
    const double fp16_lanes = gpu.fp16_tflops * clock;
    // A measured tensor rate is what the calibrator's GEMM reached; a spec-sheet one is
    // scaled down to what the vendor library's best GEMM reaches on the architecture.
    auto tensorRate = [&](double measured, double spec, double gemm_efficiency) {
        return cal && measured > 0 ? measured : spec * gemm_efficiency * clock;
    };
    const double share = tensorCoreShare(gpu, sw, precision);
    double gemm = fp32;
    bool tensor = false;
    double tensor_eff = sw.tensor_core_efficiency;
    if (precision == Precision::TF32 && share > 0 && gpu.tf32_tflops > 0) {
        gemm =
            share * tensorRate(gpu.measured_tf32_tflops, gpu.tf32_tflops, gpu.tf32_gemm_efficiency);
        tensor_eff *= sw.tf32_efficiency;
        tensor = true;
        r.fp32_fallback_efficiency = sw.conv_efficiency;
    } else if (halfPrecision(precision) && share > 0 && gpu.fp16_tensor_tflops > 0) {
        // BF16 runs at the FP16 tensor rate on every GPU that has it (Ampere whitepaper:
        // "BF16 ... at the same rate as FP16").
        gemm = share * tensorRate(gpu.measured_fp16_tensor_tflops, gpu.fp16_tensor_tflops,
                                  gpu.tensor_gemm_efficiency);
        tensor = true;
        r.fp32_fallback_efficiency = sw.conv_efficiency;
    } else if (precision == Precision::AMP && fp16_lanes > fp32) {
        gemm = fp16_lanes; // P100: paired FP16 on the FP32 lanes
    }
    r.vector_flop_per_ms = fp32 * kFlopPerMsPerTflops;
    // Depthwise kernels compute on the vector lanes whatever the precision, two FP16 values a
    // lane under 16-bit precisions (half2) where the GPU pairs them.
    const double half_lanes = halfPrecision(precision) && fp16_lanes > fp32 ? fp16_lanes : fp32;
    r.depthwise_flop_per_ms = half_lanes * sw.depthwise_efficiency * kFlopPerMsPerTflops;
    r.gemm_flop_per_ms = gemm * kFlopPerMsPerTflops;
    r.tensor_cores = tensor;
    r.conv_efficiency = tensor ? tensor_eff : sw.conv_efficiency;
    r.fc_efficiency = tensor ? tensor_eff : sw.fc_efficiency;
    // A measured bandwidth is what a copy kernel reaches, as is the architecture's DRAM
    // fraction of the spec sheet's; the software's efficiency is its kernels' share of it.
    const bool measured_bw = cal && gpu.measured_memory_bandwidth_gbps > 0;
    const double bw = measured_bw ? gpu.measured_memory_bandwidth_gbps
                                  : gpu.memory_bandwidth_gbps * gpu.dram_efficiency;
    r.bytes_per_ms = bw * kBytesPerMsPerGbps * sw.memory_efficiency;
    r.copy_bytes_per_ms = bw * kBytesPerMsPerGbps;
    r.sms = std::max(gpu.sm_count, 1);
    const double gap_us = cal && gpu.measured_launch_overhead_us > 0
                              ? gpu.measured_launch_overhead_us
                              : sw.kernel_gap_us;
    r.kernel_gap_ms = gap_us * kMsPerUs;
    r.host_overhead_ms = sw.per_layer_overhead_us * kMsPerUs;
    r.elem_bytes = activationBytes(precision);
    r.weight_bytes = halfPrecision(precision) ? 2 : 4;
    r.winograd = sw.winograd;
    r.winograd_speedup = sw.winograd_speedup;
    r.gemm_k_half = sw.gemm_k_half;
    r.tile_m = std::max(sw.gemm_tile_m, 1);
    r.tile_n = std::max(sw.gemm_tile_n, 1);
    // FP16 tensor-core kernels want NHWC, so cuDNN transposes NCHW operands around them
    // (the cuDNN developer guide: "the library may use padding, folding and NCHW-to-NHWC
    // transformations"). TF32 kernels read FP32 tensors in their own layout: the published
    // NCHW TF32 runs (PyTorch and MXNet on A100) are as fast as NHWC ones of the same
    // generation, which leaves no room for a transposition pass.
    r.transposes = tensor && !nhwc && halfPrecision(precision);
    r.persistent_bn = nhwc && !sw.elementwise_fusion;
    // A fitted profile's own finding about this GPU at this precision (SoftwareProfile::
    // gpu_corrections): its kernels, arithmetic and memory-bound alike, run at this factor
    // of the shared parameters' rates. Copies over links, launches and host costs keep
    // theirs. Every other GPU gets 1.
    const double own = gpuCorrection(sw, gpu.id, precisionName(precision));
    if (own != 1) {
        r.gemm_flop_per_ms *= own;
        r.vector_flop_per_ms *= own;
        r.depthwise_flop_per_ms *= own;
        r.bytes_per_ms *= own;
    }
    r.bytes_per_ms *= gpuMemoryCorrection(sw, gpu.id, precisionName(precision));
    return r;
}

std::vector<LayerFusion> planFusions(const Network& net, const NetworkAnalysis& analysis,
                                     const SoftwareProfile& sw, bool nhwc) {
    const std::size_t n = net.layers.size();
    std::vector<LayerFusion> plan(n);
    // cuDNN's fused batch-norm kernels exist for NHWC only; a compiler fuses in any layout.
    const bool cudnn_bn_act = nhwc && (sw.fused_bn_activation || sw.fused_bn_add_activation);
    const bool cudnn_bn_add_act = nhwc && sw.fused_bn_add_activation;
    const bool bn_act = cudnn_bn_act || sw.elementwise_fusion;
    const bool bn_add_act = cudnn_bn_add_act || sw.elementwise_fusion;
    std::vector<int> consumers(n, 0);
    for (const Layer& layer : net.layers)
        for (std::size_t in : layer.inputs)
            ++consumers[in];
    if (!sw.elementwise_fusion)
        for (std::size_t i = 0; i < n; ++i)
            if (consumers[i] > 1 && analysis.layers[i].needs_data_grad)
                // Each further gradient is added to the sum: two reads and a write.
                plan[i].gradient_sum_elems =
                    3.0 * (consumers[i] - 1) * static_cast<double>(analysis.layers[i].output_elems);
    auto isBn = [&](std::size_t i) {
        return net.layers[i].kind == LayerKind::BatchNorm && consumers[i] == 1 && !plan[i].absorbed;
    };
    auto isRelu = [&](const Layer& l) {
        return l.kind == LayerKind::Activation && l.activation.kind == ActivationKind::ReLU &&
               l.inputs.size() == 1;
    };
    for (std::size_t i = 0; bn_act && i < n; ++i) {
        const Layer& layer = net.layers[i];
        if (!isRelu(layer))
            continue;
        const std::size_t src = layer.inputs[0];
        const double e = static_cast<double>(analysis.layers[i].output_elems);
        if (isBn(src)) {
            // The BN kernel applies the ReLU; backward it reads the output once more to mask
            // the gradient.
            plan[i].absorbed = true;
            plan[src].extra_bwd_elems += e;
            continue;
        }
        const Layer& add = net.layers[src];
        if (!bn_add_act || add.kind != LayerKind::Eltwise || add.eltwise.kind != EltwiseKind::Add ||
            add.inputs.size() != 2 || consumers[src] != 1)
            continue;
        // BN + residual addition + ReLU in one kernel: it reads the residual forward and
        // writes the residual's gradient backward, besides the mask.
        for (std::size_t k = 0; k < 2; ++k) {
            const std::size_t bn = add.inputs[k];
            if (!isBn(bn))
                continue;
            plan[i].absorbed = true;
            plan[src].absorbed = true;
            plan[bn].extra_fwd_elems += e;
            plan[bn].extra_bwd_elems += 2 * e;
            break;
        }
    }
    return plan;
}

double waveUtilization(int64_t ctas, int sms) {
    if (ctas <= 0 || sms <= 0)
        return 1.0;
    const int64_t waves = (ctas + sms - 1) / sms;
    return static_cast<double>(ctas) / static_cast<double>(waves * sms);
}

double gemmEfficiency(int64_t m, int64_t n, int64_t k, int64_t groups, double base,
                      const ComputeRates& r) {
    m = std::max<int64_t>(m, 1);
    n = std::max<int64_t>(n, 1);
    k = std::max<int64_t>(k, 1);
    groups = std::max<int64_t>(groups, 1);
    const double dm = static_cast<double>(m), dn = static_cast<double>(n);
    const int64_t min_tile = r.tensor_cores ? kMinTensorTile : kMinTile;
    int64_t tm = shrinkTile(r.tile_m, m, min_tile);
    int64_t tn = shrinkTile(r.tile_n, n, min_tile);
    // Tile counts along each edge; doubles, since their product with the groups can pass
    // 2^63 for absurd inputs.
    double tiles_m = ceilDiv(dm, static_cast<double>(tm));
    double tiles_n = ceilDiv(dn, static_cast<double>(tn));
    const double g = static_cast<double>(groups);
    while (tiles_m * tiles_n * g < r.sms && (tm > kMinFillTile || tn > kMinFillTile)) {
        if (tm >= tn) {
            tm /= 2;
            tiles_m = ceilDiv(dm, static_cast<double>(tm));
        } else {
            tn /= 2;
            tiles_n = ceilDiv(dn, static_cast<double>(tn));
        }
    }
    double ctas = tiles_m * tiles_n * g;
    if (ctas < kSplitKWaves * r.sms) {
        // Long reductions (the weight gradient's K = batch x output positions) are split
        // into partial sums until the SMs see several waves.
        const double splits =
            std::max(1.0, std::min(std::floor(static_cast<double>(k) / kMinSplitK),
                                   std::ceil(kSplitKWaves * r.sms / ctas)));
        ctas *= splits;
    }
    const double padding =
        (dm * dn) / (tiles_m * static_cast<double>(tm) * tiles_n * static_cast<double>(tn));
    const double reuse = static_cast<double>(k) / (static_cast<double>(k) + r.gemm_k_half);
    const double waves = ctas >= 9e18 ? 1.0 : waveUtilization(static_cast<int64_t>(ctas), r.sms);
    return base * padding * reuse * waves;
}

PassTime kernelPass(std::initializer_list<KernelTime> kernels, const ComputeRates& r) {
    return pass(kernels, r);
}

KernelTime streamingKernel(double flops, double elems_moved, const ComputeRates& r) {
    return streaming(flops, elems_moved, r);
}

KernelTime gemmKernelTime(double flops, double m, double n, double k, int64_t groups,
                          double base_efficiency, double bytes, const ComputeRates& r) {
    return gemmKernel(flops, {m, n, k, groups}, base_efficiency, 1.0, bytes, r);
}

namespace {
LayerPasses kernelPasses(const Layer& layer, const LayerCost& cost, const Dims& input,
                         int64_t batch, const ComputeRates& r, const LayerFusion& fusion);
} // namespace

LayerPasses layerPasses(const Layer& layer, const LayerCost& cost, const Dims& input, int64_t batch,
                        const ComputeRates& r, const LayerFusion& fusion) {
    LayerPasses out = kernelPasses(layer, cost, input, batch, r, fusion);
    if (fusion.gradient_sum_elems > 0 && cost.needs_data_grad) {
        const KernelTime sum =
            streaming(0, static_cast<double>(batch) * fusion.gradient_sum_elems, r);
        out.backward.ms += sum.ms + r.kernel_gap_ms;
        if (out.backward.bound == Bound::Overhead && sum.ms > r.host_overhead_ms)
            out.backward.bound = sum.bound;
    }
    return out;
}

namespace {

LayerPasses kernelPasses(const Layer& layer, const LayerCost& cost, const Dims& input,
                         int64_t batch, const ComputeRates& r, const LayerFusion& fusion) {
    if (isTensorLayer(layer))
        return tensorLayerPasses(layer, cost, input, batch, r);
    switch (layer.kind) {
    case LayerKind::Input:
    case LayerKind::Flatten:
    case LayerKind::Reshape:
    case LayerKind::Identity:
        return {}; // views: no kernel, no framework op worth counting
    case LayerKind::Convolution:
    case LayerKind::Deconvolution:
        return convolution(layer, cost, input, batch, r);
    case LayerKind::FullyConnected:
        return fullyConnected(cost, batch, r);
    default:
        if (fusion.absorbed)
            return {};
        return streamingLayer(layer, cost, batch, r, fusion);
    }
}

} // namespace

} // namespace iterscope
