// Per-layer kernel time on one GPU (DESIGN.md "The model" 2-3): a roofline of compute and
// memory traffic with the GPU's parallelism (wave quantization over the SMs, GEMM tiles
// padded to the layer's shape, too little reuse when the reduction is short), plus the
// per-kernel gap and the host's per-layer dispatch cost. docs/model.md has the formulas.
#pragma once

#include "hardware/hardware.h"
#include "model/prediction.h"
#include "network/analysis.h"
#include "network/network.h"
#include "util/precision.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace iterscope {

// Everything the per-layer formulas need, resolved once per scenario. Rates are per ms.
struct ComputeRates {
    double vector_flop_per_ms = 0; // FP32 lanes (or FP16 lanes under amp without tensor cores)
    // Depthwise convolutions run on the vector lanes at this rate: FP16 pairs under 16-bit
    // precisions where the lanes have them, at the software's depthwise efficiency.
    double depthwise_flop_per_ms = 0;
    double gemm_flop_per_ms = 0; // peak for conv/fc at the precision
    bool tensor_cores = false;   // conv/fc run on tensor cores
    double conv_efficiency = 0;
    double fc_efficiency = 0;
    double bytes_per_ms = 0; // achieved memory bandwidth
    // What a plain copy reaches (the DRAM share alone): layout transposes, which cuDNN
    // runs as tiled copies through shared memory.
    double copy_bytes_per_ms = 0;
    int sms = 1;
    double kernel_gap_ms = 0;
    double host_overhead_ms = 0;
    int64_t elem_bytes = 4;   // activations and their gradients
    int64_t weight_bytes = 4; // weights as the kernels read them
    bool winograd = false;
    double winograd_speedup = 1;
    double gemm_k_half = 0;
    int64_t tile_m = 128, tile_n = 128;
    // Tensor-core convolutions on NCHW activations: cuDNN transposes what each kernel
    // reads and writes to NHWC and back.
    bool transposes = false;
    bool persistent_bn = false; // cuDNN's persistent batch norm (NHWC, no compiler fusion)
    // Tensor cores are allowed, not forced: a convolution takes the faster of its
    // tensor-core kernel and the FP32 lanes' (Winograd included) at this efficiency; 0: no
    // choice.
    double fp32_fallback_efficiency = 0;

    bool operator==(const ComputeRates&) const = default;
};

// `nhwc`: activations are channels-last (Scenario::nhwc()).
ComputeRates computeRates(const GpuProfile& gpu, const SoftwareProfile& software,
                          Precision precision, bool nhwc = true);

// Does the software use the GPU's tensor cores at this precision, and how much of their
// rate is left to it: 0 when it cannot (cuDNN before 7 knows no tensor cores, TF32 needs
// cuDNN 8 and Ampere), the GPU's legacy fraction when its kernels predate the GPU's
// generation, else 1.
double tensorCoreShare(const GpuProfile& gpu, const SoftwareProfile& software, Precision precision);

// How a layer's kernels merge with its neighbours' under the software's fusions.
struct LayerFusion {
    bool absorbed = false; // runs inside another layer's kernel: no pass of its own
    // Extra elements per sample that this layer's kernels move for the layers they absorb
    // (a residual read forward, its gradient written backward, an activation mask).
    double extra_fwd_elems = 0;
    double extra_bwd_elems = 0;
    // Backward, the gradients of an output that feeds several layers arrive separately and
    // are summed: elements per sample moved by those additions (reads and writes).
    double gradient_sum_elems = 0;
};

// One entry per layer: batch norm + ReLU (fused_bn_activation), batch norm + addition +
// ReLU (fused_bn_add_activation), both for NHWC activations (`nhwc`) only, and both in any
// layout under a compiler's element-wise fusion; and the gradient sums of outputs with
// several consumers (a kernel each in eager frameworks, fused by a compiler).
std::vector<LayerFusion> planFusions(const Network& network, const NetworkAnalysis& analysis,
                                     const SoftwareProfile& software, bool nhwc);

struct PassTime {
    double ms = 0;
    Bound bound = Bound::Overhead;
};

struct LayerPasses {
    PassTime forward, backward;
};

// One kernel's time: the slower of its arithmetic and its memory traffic.
struct KernelTime {
    double ms = 0;
    Bound bound = Bound::Memory;
};

// The pieces layerPasses builds every layer from, for the cost files of other layer kinds
// (compute_layers_tensor.cpp): kernels run back to back, each followed by the launch gap,
// paced by the host when it dispatches slower; a bandwidth-bound kernel moving
// `elems_moved` activation elements; a GEMM of m x n outputs over `groups` problems with
// reduction k, at the efficiency gemmEfficiency() gives it.
PassTime kernelPass(std::initializer_list<KernelTime> kernels, const ComputeRates& rates);
KernelTime streamingKernel(double flops, double elems_moved, const ComputeRates& rates);
KernelTime gemmKernelTime(double flops, double m, double n, double k, int64_t groups,
                          double base_efficiency, double bytes, const ComputeRates& rates);

// A GEMM-shaped pass: M x N output in tiles over `groups` independent problems, reduction
// length K. Returns the fraction of peak it reaches given the base efficiency.
double gemmEfficiency(int64_t m, int64_t n, int64_t k, int64_t groups, double base_efficiency,
                      const ComputeRates& rates);

// Fraction of the SMs busy over all waves when `ctas` equal blocks run one per SM.
double waveUtilization(int64_t ctas, int sms);

// Forward and backward time of one layer at a batch. `input` is the per-sample shape of
// its first input; `fusion` what planFusions() says of the layer.
LayerPasses layerPasses(const Layer& layer, const LayerCost& cost, const Dims& input, int64_t batch,
                        const ComputeRates& rates, const LayerFusion& fusion = {});

} // namespace iterscope
