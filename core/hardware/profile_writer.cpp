#include "hardware/profile_writer.h"

namespace iterscope {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kBytesPerMib = 1024.0 * 1024.0;

void header(nlohmann::ordered_json& j, const char* format, const std::string& id,
            const std::string& name) {
    j["format"] = format;
    j["version"] = 1;
    j["id"] = id;
    j["name"] = name;
}

} // namespace

nlohmann::ordered_json gpuProfileJson(const GpuProfile& g) {
    nlohmann::ordered_json j;
    header(j, "iterscope-gpu", g.id, g.name);
    j["architecture"] = g.architecture;
    if (!g.like_architecture.empty())
        j["like"] = g.like_architecture;
    if (g.compute_capability > 0)
        j["compute_capability"] = g.compute_capability;
    j["source"] = g.source;
    if (!g.notes.empty())
        j["notes"] = g.notes;
    j["sm_count"] = g.sm_count;
    j["fp32_lanes_per_sm"] = g.fp32_lanes_per_sm;
    j["boost_clock_mhz"] = g.boost_clock_mhz;
    if (g.sustained_clock_mhz > 0)
        j["sustained_clock_mhz"] = g.sustained_clock_mhz;
    j["fp32_tflops"] = g.fp32_tflops;
    j["tf32_tflops"] = g.tf32_tflops;
    j["fp16_tensor_tflops"] = g.fp16_tensor_tflops;
    j["fp16_tflops"] = g.fp16_tflops;
    // Sizes are whole bytes in the profile and binary units in the file: dividing by a power
    // of two is exact, so the loader's rounding gives the same bytes back.
    j["memory_gib"] = static_cast<double>(g.memory_bytes) / kBytesPerGib;
    j["memory_bandwidth_gbps"] = g.memory_bandwidth_gbps;
    j["l2_mib"] = static_cast<double>(g.l2_bytes) / kBytesPerMib;
    j["pcie_gen"] = g.pcie_gen;
    j["pcie_lanes"] = g.pcie_lanes;
    j["nvlink_links"] = g.nvlink_links;
    j["nvlink_gbps_per_link"] = g.nvlink_gbps_per_link;
    if (!g.pcie_p2p)
        j["pcie_p2p"] = false;
    j["tdp_watts"] = g.tdp_watts;
    if (g.cpu_link != "pcie") {
        j["cpu_link"] = g.cpu_link;
        j["cpu_link_gbps"] = g.cpu_link_gbps;
    }
    j["form_factor"] = g.form_factor;
    if (g.usd_per_gpu_hour) {
        j["usd_per_gpu_hour"] = *g.usd_per_gpu_hour;
        j["price_source"] = g.price_source;
        j["price_date"] = g.price_date;
    }
    if (g.calibrated) {
        nlohmann::ordered_json measured;
        measured["memory_bandwidth_gbps"] = g.measured_memory_bandwidth_gbps;
        measured["fp32_tflops"] = g.measured_fp32_tflops;
        measured["tf32_tflops"] = g.measured_tf32_tflops;
        measured["fp16_tensor_tflops"] = g.measured_fp16_tensor_tflops;
        measured["launch_overhead_us"] = g.measured_launch_overhead_us;
        j["measured"] = measured;
    }
    return j;
}

nlohmann::ordered_json systemProfileJson(const SystemProfile& s) {
    nlohmann::ordered_json j;
    header(j, "iterscope-system", s.id, s.name);
    j["source"] = s.source;
    if (!s.notes.empty())
        j["notes"] = s.notes;
    if (!s.default_gpu.empty())
        j["default_gpu"] = s.default_gpu;
    j["gpus_per_node"] = s.gpus_per_node;
    j["max_nodes"] = s.max_nodes;
    j["intra_node"] = s.intra_node;
    if (!s.nvlink_pairs.empty()) {
        nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
        for (const SystemProfile::NvlinkPair& p : s.nvlink_pairs)
            pairs.push_back({p.a, p.b, p.links});
        j["nvlink_pairs"] = pairs;
    }
    j["nvswitch_gbps_per_gpu"] = s.nvswitch_gbps_per_gpu;
    if (s.nvlink_sharp)
        j["nvlink_sharp"] = true;
    if (s.nvlink_domain_nodes > 1)
        j["nvlink_domain_nodes"] = s.nvlink_domain_nodes;
    j["pcie_gen"] = s.pcie_gen;
    j["gpus_per_pcie_switch"] = s.gpus_per_pcie_switch;
    j["pcie_gbps"] = s.pcie_gbps;
    j["host_pcie_gbps"] = s.host_pcie_gbps;
    j["inter_socket_gbps"] = s.inter_socket_gbps;
    j["cpu_memory_bandwidth_gbps"] = s.cpu_memory_bandwidth_gbps;
    j["cpu_sockets"] = s.cpu_sockets;
    j["cpu_cores_per_node"] = s.cpu_cores_per_node;
    j["cpu_threads_per_node"] = s.cpu_threads_per_node;
    j["nics_per_node"] = s.nics_per_node;
    j["nic_gbps"] = s.nic_gbps;
    j["network_latency_us"] = s.network_latency_us;
    j["network"] = s.network;
    if (s.network_sharp)
        j["network_sharp"] = true;
    j["host_watts_per_node"] = s.host_watts_per_node;
    if (!s.compatible_gpus.empty())
        j["compatible_gpus"] = s.compatible_gpus;
    // The loader's default is "pcie"; written only when it says something.
    if (s.gpu_form_factor != "pcie")
        j["gpu_form_factor"] = s.gpu_form_factor;
    return j;
}

std::string profileText(const nlohmann::ordered_json& profile) {
    return profile.dump(2) + "\n";
}

} // namespace iterscope
