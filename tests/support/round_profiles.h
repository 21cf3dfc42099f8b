// Hardware and software profiles with round numbers, for tests that compute a formula's
// value by hand: an Ampere-like GPU and a cuDNN 8-like software profile.
#pragma once

#include "hardware/hardware.h"

#include <cstdint>

namespace iterscope::test {

inline GpuProfile ampereLike() {
    GpuProfile g;
    g.id = "test-ampere";
    g.architecture = "Ampere";
    g.compute_capability = 8.0;
    g.sm_count = 100;
    g.fp32_lanes_per_sm = 64;
    g.fp32_tflops = 20;
    g.tf32_tflops = 160;
    g.fp16_tensor_tflops = 320;
    g.memory_bandwidth_gbps = 2000;
    g.memory_bytes = int64_t{40} << 30;
    g.tensor_gemm_efficiency = 0.8;
    g.tf32_gemm_efficiency = 0.75;
    g.dram_efficiency = 0.9;
    g.legacy_tensor_fraction = 0.6;
    return g;
}

inline SoftwareProfile cudnn8() {
    SoftwareProfile s;
    s.id = "test-sw";
    s.newest_compute_capability = 8.6;
    s.tensor_core_efficiency = 0.5;
    s.tf32_efficiency = 0.5;
    s.memory_efficiency = 0.5;
    s.conv_efficiency = 0.7;
    s.depthwise_efficiency = 0.1;
    s.kernel_gap_us = 0;
    s.per_layer_overhead_us = 0;
    return s;
}

} // namespace iterscope::test
