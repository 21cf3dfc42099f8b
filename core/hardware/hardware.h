// Hardware and software profiles: plain values loaded from profiles/*.json
// (profile_loader.h). Spec-sheet figures only in GpuProfile; fitted constants live in
// SoftwareProfile, each documented in its JSON file with how it was fitted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

struct GpuProfile {
    std::string id;           // "v100-sxm2-16gb"
    std::string name;         // "Tesla V100 SXM2 16GB"
    std::string architecture; // "Volta"
    std::string source;       // where the figures come from
    std::string notes;        // unconfirmed values and derivations, from the JSON "notes"
    int sm_count = 0;
    int fp32_lanes_per_sm = 0;
    double boost_clock_mhz = 0;
    double fp32_tflops = 0;
    double tf32_tflops = 0;        // 0: no TF32 tensor cores
    double fp16_tensor_tflops = 0; // 0: no FP16 tensor cores (dense, FP32 accumulate)
    double fp16_tflops = 0;        // FP16 vector rate where no tensor cores (P100), else 0
    int64_t memory_bytes = 0;
    double memory_bandwidth_gbps = 0; // GB/s = 1e9 B/s
    int64_t l2_bytes = 0;
    int pcie_gen = 3;
    int pcie_lanes = 16;
    int nvlink_links = 0;
    double nvlink_gbps_per_link = 0; // per direction
    double tdp_watts = 0;
    // How the board mounts: "pcie" (a card in a slot) or "sxm" (a module on a vendor's
    // baseboard). Decides which generic systems can hold it (core/plan/compatibility.h).
    std::string form_factor = "pcie";
    // A public on-demand cloud price per GPU-hour, where one was found; prices move, so the
    // source and the day it was read travel with it. Empty: no shipped price.
    std::optional<double> usd_per_gpu_hour;
    std::string price_source;
    std::string price_date; // YYYY-MM-DD
    // Set by the calibrator: measured peaks replace spec-sheet ones when non-zero.
    bool calibrated = false;
    double measured_memory_bandwidth_gbps = 0;
    double measured_fp32_tflops = 0;
    double measured_tf32_tflops = 0;
    double measured_fp16_tensor_tflops = 0;
    double measured_launch_overhead_us = 0;
};

enum class LinkKind { PCIe, NVLink, NVSwitch, Network };

// How the GPUs of one node and the nodes of a cluster are joined.
struct SystemProfile {
    std::string id;   // "dgx1-v100"
    std::string name; // "NVIDIA DGX-1 (V100)"
    std::string source;
    std::string notes; // unconfirmed values and derivations, from the JSON "notes"
    std::string default_gpu; // GPU id this system ships with, "" for any
    int gpus_per_node = 8;   // the most GPUs one node holds
    int max_nodes = 1;       // 1024 for generic clusters
    // Intra-node GPU-to-GPU fabric.
    std::string intra_node = "pcie"; // "pcie" | "nvlink-cube-mesh" | "nvswitch"
    // NVLink pairs with their link counts (hybrid cube-mesh); empty for NVSwitch/PCIe.
    struct NvlinkPair {
        int a = 0, b = 0, links = 1;
    };
    std::vector<NvlinkPair> nvlink_pairs;
    double nvswitch_gbps_per_gpu = 0; // per direction
    // PCIe tree: GPUs sharing one switch uplink, and the host's PCIe bandwidth.
    int pcie_gen = 3;
    int gpus_per_pcie_switch = 2;
    double pcie_gbps = 0;      // effective per-direction GPU<->host bandwidth of one link
    double host_pcie_gbps = 0; // aggregate the host (CPUs, root complexes) sustains
    double cpu_memory_bandwidth_gbps = 0; // host update of ps-cpu; 0: not known
    double inter_socket_gbps = 0;         // QPI/UPI/xGMI per direction; 0: not known
    int cpu_sockets = 2;
    // Network between nodes.
    int nics_per_node = 0;
    double nic_gbps = 0;           // per NIC per direction, GB/s
    double network_latency_us = 0; // one-way
    std::string network = "none";  // "10gbe", "edr-ib", ...
    // Power of one node without its GPUs (CPUs, memory, NICs, switches, fans), for the
    // planner's energy; 0: not known.
    double host_watts_per_node = 0;
    // Which GPU profiles the system takes (core/plan/compatibility.h): the ids listed here;
    // else default_gpu when set; else any GPU of form factor gpu_form_factor.
    std::vector<std::string> compatible_gpus;
    std::string gpu_form_factor = "pcie";
};

// A framework + cuDNN generation. A handful of fitted parameters, never per network.
// (Members restored from debug info after an accidental revert by the profiles work;
// the model engineer's defaults and comments for the fields marked "restored" were lost:
// the values below are neutral placeholders, the JSON files set the real ones.)
struct SoftwareProfile {
    std::string id; // "pytorch"
    std::string name;
    std::string description;
    std::string source;
    double per_layer_overhead_us = 5; // framework dispatch per layer per pass
    double kernel_gap_us = 0;         // restored
    double conv_efficiency = 0.7;     // achieved fraction of peak for large convolutions
    double fc_efficiency = 0.8;
    double tensor_core_efficiency = 0.5; // restored
    double gemm_k_half = 0;              // restored
    int gemm_tile_m = 128;               // restored
    int gemm_tile_n = 128;               // restored
    bool winograd = false;               // restored
    double winograd_speedup = 1.0;       // for 3x3 stride-1 convolutions when available
    double memory_efficiency = 0.8;      // achieved fraction of memory bandwidth
    bool fused_bn_activation = false;    // restored
    bool overlap_input = true;           // input pipeline hidden behind compute
    double input_gpu_us_per_image = 0;   // restored
    double nccl_efficiency = 0.8; // achieved fraction of link bandwidth in collectives
    bool nccl_topology_aware = true;        // restored
    double collective_base_latency_us = 0;  // restored
    double collective_hop_latency_us = 0;   // restored
    double network_efficiency = 0.8;        // restored
    double memcpy_efficiency = 0.8;         // restored
    bool overlap_communication = true;
    int gradient_bytes_amp = 2; // restored
    std::string default_sync = "allreduce-nccl";
    double optimizer_state_bytes_per_param = 0; // restored
    double framework_reserved_mb = 0;           // restored
    double workspace_limit_mb = 0;              // restored
    // Free-form extra parameters the model reads by name; documented in the JSON file.
    std::vector<std::pair<std::string, double>> extra;
};

} // namespace iterscope
