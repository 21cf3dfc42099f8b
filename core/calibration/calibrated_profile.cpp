#include "calibration/calibrated_profile.h"

#include "hardware/profile_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>

namespace iterscope {
namespace {

const char* architectureName(int major, int minor) {
    switch (major) {
    case 3:
        return "Kepler";
    case 5:
        return "Maxwell";
    case 6:
        return "Pascal";
    case 7:
        return minor >= 5 ? "Turing" : "Volta";
    case 8:
        return minor == 9 ? "Ada" : "Ampere";
    case 9:
        return "Hopper";
    case 10:
    case 11:
    case 12:
        return "Blackwell";
    default:
        return "unknown";
    }
}

// Rounded for a readable file; the loader's range checks need nothing finer.
double round3(double v) {
    return std::round(v * 1000.0) / 1000.0;
}

} // namespace

int fp32LanesPerSm(int major, int minor) {
    switch (major) {
    case 3:
        return 192;
    case 5:
        return 128;
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
        return 64;
    case 8:
        return minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12:
        return 128;
    default:
        return 64;
    }
}

std::string profileIdFromName(const std::string& name) {
    std::string id;
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u))
            id += static_cast<char>(std::tolower(u));
        else if (!id.empty() && id.back() != '-')
            id += '-';
    }
    while (!id.empty() && id.back() == '-')
        id.pop_back();
    if (id.size() > 64)
        id.resize(64);
    return id.empty() ? "gpu" : id;
}

GpuProfile gpuProfileFromDevice(const DeviceFacts& d) {
    GpuProfile g;
    g.id = profileIdFromName(d.name);
    g.name = d.name.empty() ? "unknown GPU" : d.name;
    g.architecture = architectureName(d.compute_major, d.compute_minor);
    g.compute_capability = d.compute_major + d.compute_minor / 10.0;
    g.source = "CUDA runtime device properties, read by iterscope-calibrate";
    g.notes = "Spec figures derived from the runtime's SM count, clock and memory bus; tensor "
              "rates only as measured. PCIe generation and NVLink are not reported by the "
              "runtime and left at defaults.";
    g.sm_count = std::max(d.sm_count, 1);
    g.fp32_lanes_per_sm = fp32LanesPerSm(d.compute_major, d.compute_minor);
    g.boost_clock_mhz = d.sm_clock_mhz > 0 ? d.sm_clock_mhz : 1000;
    g.fp32_tflops = 2.0 * g.fp32_lanes_per_sm * g.sm_count * g.boost_clock_mhz * 1e-6;
    g.memory_bytes = std::max<int64_t>(d.memory_bytes, int64_t{1} << 20);
    // Double data rate: two transfers per memory clock over the whole bus.
    g.memory_bandwidth_gbps = 2.0 * d.memory_clock_mhz * 1e6 * d.memory_bus_bits / 8.0 / 1e9;
    if (!(g.memory_bandwidth_gbps > 0))
        g.memory_bandwidth_gbps = 1;
    g.l2_bytes = d.l2_bytes;
    return g;
}

GpuProfile withMeasuredPeaks(GpuProfile base, const MeasuredPeaks& p) {
    base.calibrated = true;
    base.measured_memory_bandwidth_gbps = p.memory_bandwidth_gbps;
    base.measured_fp32_tflops = p.fp32_tflops;
    base.measured_tf32_tflops = p.tf32_tflops;
    // Mixed-precision training uses FP16 or BF16; both run on the same tensor cores, so
    // the better of the two is the rate AMP gets.
    base.measured_fp16_tensor_tflops = std::max(p.fp16_tensor_tflops, p.bf16_tensor_tflops);
    base.measured_launch_overhead_us = p.launch_overhead_us;
    return base;
}

std::string gpuProfileToJson(const GpuProfile& g, const Measurement* m) {
    nlohmann::ordered_json j = gpuProfileJson(g);
    // Figures derived from the clocks the runtime reports, and measured ones: three decimals
    // say all they know, and keep the file readable. A price is copied as it was read.
    const auto rounded = [](nlohmann::ordered_json& object,
                            std::initializer_list<const char*> keys) {
        for (const char* key : keys)
            if (object.contains(key) && object[key].is_number_float())
                object[key] = round3(object[key].get<double>());
    };
    rounded(j,
            {"compute_capability", "boost_clock_mhz", "fp32_tflops", "tf32_tflops",
             "fp16_tensor_tflops", "fp16_tflops", "memory_gib", "memory_bandwidth_gbps", "l2_mib"});
    if (j.contains("measured")) {
        nlohmann::ordered_json& measured = j["measured"];
        rounded(measured, {"memory_bandwidth_gbps", "fp32_tflops", "tf32_tflops",
                           "fp16_tensor_tflops", "launch_overhead_us"});
        if (m) {
            measured["device"] = m->device.name.substr(0, 200);
            measured["date"] = m->created.substr(0, 64);
            measured["tool"] = m->tool.substr(0, 200);
        }
    }
    return profileText(j);
}

std::string softwareProfileToJson(const SoftwareProfile& s, const std::string& fit_notes) {
    nlohmann::ordered_json j;
    j["format"] = "iterscope-software";
    j["version"] = 1;
    j["id"] = s.id;
    j["name"] = s.name;
    j["description"] = s.description;
    j["source"] = s.source.empty() ? std::string("iterscope-calibrate") : s.source;
    j["per_layer_overhead_us"] = s.per_layer_overhead_us;
    j["kernel_gap_us"] = s.kernel_gap_us;
    j["conv_efficiency"] = s.conv_efficiency;
    j["fc_efficiency"] = s.fc_efficiency;
    j["tensor_core_efficiency"] = s.tensor_core_efficiency;
    j["gemm_k_half"] = s.gemm_k_half;
    j["gemm_tile_m"] = s.gemm_tile_m;
    j["gemm_tile_n"] = s.gemm_tile_n;
    j["winograd"] = s.winograd;
    j["winograd_speedup"] = s.winograd_speedup;
    j["memory_efficiency"] = s.memory_efficiency;
    j["fused_bn_activation"] = s.fused_bn_activation;
    j["overlap_input"] = s.overlap_input;
    j["input_gpu_us_per_image"] = s.input_gpu_us_per_image;
    j["nccl_efficiency"] = s.nccl_efficiency;
    j["nccl_topology_aware"] = s.nccl_topology_aware;
    j["collective_base_latency_us"] = s.collective_base_latency_us;
    j["collective_hop_latency_us"] = s.collective_hop_latency_us;
    j["network_efficiency"] = s.network_efficiency;
    j["memcpy_efficiency"] = s.memcpy_efficiency;
    j["overlap_communication"] = s.overlap_communication;
    j["gradient_bytes_amp"] = s.gradient_bytes_amp;
    j["default_sync"] = s.default_sync;
    j["optimizer_state_bytes_per_param"] = s.optimizer_state_bytes_per_param;
    j["framework_reserved_mb"] = s.framework_reserved_mb;
    j["workspace_limit_mb"] = s.workspace_limit_mb;
    if (!s.extra.empty()) {
        nlohmann::ordered_json extra = nlohmann::ordered_json::object();
        for (const auto& [key, value] : s.extra)
            extra[key] = value;
        j["extra"] = extra;
    }
    if (!fit_notes.empty())
        j["parameters"] = {{"calibration", fit_notes}};
    return j.dump(2) + "\n";
}

} // namespace iterscope
