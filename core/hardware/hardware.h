// Hardware and software profiles: plain values loaded from profiles/*.json
// (profile_loader.h). Spec-sheet figures only in GpuProfile; fitted constants live in
// SoftwareProfile, each documented in its JSON file with how it was fitted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

struct GpuProfile {
    std::string id;           // "v100-sxm2-16gb"
    std::string name;         // "Tesla V100 SXM2 16GB"
    std::string architecture; // "Volta"
    // A known architecture whose facts stand in for `architecture` when
    // profiles/architectures.json does not know it (the file's "like"); empty otherwise.
    // Every prediction with such a GPU warns.
    std::string like_architecture;
    std::string source; // where the figures come from
    std::string notes;  // unconfirmed values and derivations, from the JSON "notes"
    int sm_count = 0;
    int fp32_lanes_per_sm = 0;
    double boost_clock_mhz = 0;
    // The SM clock the GPU holds through a training run under its power or thermal limit
    // (laptop Max-Q parts, servers capped below their TGP), where a source gives it; its
    // compute peaks scale by sustained / boost. 0: the boost clock holds.
    double sustained_clock_mhz = 0;
    double fp32_tflops = 0;
    double tf32_tflops = 0;        // 0: no TF32 tensor cores
    double fp16_tensor_tflops = 0; // 0: no FP16 tensor cores (dense, FP32 accumulate)
    double fp16_tflops = 0;        // FP16 on the vector lanes (not tensor cores); 0: no fast FP16
    int64_t memory_bytes = 0;
    double memory_bandwidth_gbps = 0; // GB/s = 1e9 B/s
    int64_t l2_bytes = 0;
    int pcie_gen = 3;
    int pcie_lanes = 16;
    int nvlink_links = 0;
    double nvlink_gbps_per_link = 0; // per direction
    // Whether NVIDIA's driver lets two of these GPUs address each other over PCIe (peer to
    // peer). The GeForce RTX 4090 and 5090 may not: NCCL then stages every transfer between
    // them through host memory, so the switches' uplinks to the CPU carry all of it.
    bool pcie_p2p = true;
    double tdp_watts = 0;
    // The GPU's link to its host CPU: "pcie", or "nvlink-c2c" where CPU and GPU share a
    // superchip (GH200, GB200) and input copies and CPU-side updates cross NVLink-C2C at
    // cpu_link_gbps per direction instead of the system's PCIe tree.
    std::string cpu_link = "pcie";
    double cpu_link_gbps = 0;
    // CUDA compute capability (7.0 for V100, 8.6 for GA102, 9.0 for H100): which kernels a
    // cuDNN/cuBLAS release has for this GPU (SoftwareProfile::newest_compute_capability).
    double compute_capability = 0;
    // Architecture physics from profiles/architectures.json (docs/model.md section 1), the
    // same for every GPU of the architecture:
    // fraction of the dense tensor-core peak that the vendor library's best large GEMM
    // reaches (FP16/BF16 inputs, and TF32), and of the DRAM bandwidth a streaming kernel
    // reaches; and the fraction of the tensor rate left to kernels built for the previous
    // generation's instructions (Hopper's wgmma versus Ampere's mma.sync).
    double tensor_gemm_efficiency = 0.85;
    double tf32_gemm_efficiency = 0.85;
    double dram_efficiency = 0.9;
    double legacy_tensor_fraction = 1.0;
    // How the board mounts: "pcie" (a card in a slot) or "sxm" (a module on a vendor's
    // baseboard). Decides which generic systems can hold it (core/hardware/compatibility.h).
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
    std::string notes;       // unconfirmed values and derivations, from the JSON "notes"
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
    // Third-generation NVSwitch (DGX H100) reduces in the switch (NVLink SHARP): NCCL's NVLS
    // all-reduce sends each byte to the switch once instead of around a ring.
    bool nvlink_sharp = false;
    // Nodes whose GPUs share one NVLink switch fabric: 1 for a DGX, 18 compute trays for a
    // GB200 NVL72 rack. Nodes inside one domain talk over NVLink, not the network.
    int nvlink_domain_nodes = 1;
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
    // InfiniBand switches that reduce in the network (SHARP, NCCL's CollNet): each node
    // sends its data into the fabric once and receives the sum.
    bool network_sharp = false;
    // Host CPU of one node: physical cores and hardware threads, which decode and augment
    // the images of runs on real data (docs/model.md section 3). 0: not known.
    int cpu_cores_per_node = 0;
    int cpu_threads_per_node = 0;
    // Power of one node without its GPUs (CPUs, memory, NICs, switches, fans), for the
    // planner's energy; 0: not known.
    double host_watts_per_node = 0;
    // Which GPU profiles the system takes (core/hardware/compatibility.h): the ids listed here;
    // else default_gpu when set; else any GPU of form factor gpu_form_factor.
    std::vector<std::string> compatible_gpus;
    std::string gpu_form_factor = "pcie";
};

// A framework + cuDNN generation. A handful of fitted parameters, never per network or
// per GPU; docs/model.md gives the formula that reads each field, and each JSON file says
// which of its values were fitted (iterscope-fit) and which are documented.
struct SoftwareProfile {
    std::string id; // "pytorch"
    std::string name;
    std::string description;
    std::string source;
    // Which framework it is and when it was released ("2021-03"): a newer release of the
    // same family is never slower on the same GPU and network (a property test).
    std::string family;
    std::string release;
    // Newest GPU generation its cuDNN/cuBLAS ship tuned kernels for; a newer GPU runs the
    // previous generation's kernels (GpuProfile::legacy_tensor_fraction).
    double newest_compute_capability = 9.0;

    // Host and launch costs.
    double per_layer_overhead_us = 5; // framework dispatch of one layer's pass on the host
    double kernel_gap_us = 0;         // idle GPU time between two kernels of a stream
    // Optimizer step: kernels launched per parameter tensor (0: one fused kernel for all).
    double optimizer_ops_per_tensor = 0;
    // The host waits for the GPU once an iteration (e.g. the AMP loss scaler's inf check)
    // before it launches the optimizer step, so the step's launches cannot hide behind
    // backward.
    bool amp_host_sync = false;

    // Kernel efficiencies (fractions of the rates the GPU profile derives).
    double conv_efficiency = 0.7;        // FP32 lanes, large convolutions
    double fc_efficiency = 0.8;          // FP32 lanes, fully connected layers
    double tensor_core_efficiency = 0.5; // tensor cores, relative to the GPU's GEMM ceiling
    double tf32_efficiency = 1.0;        // TF32 convolutions relative to FP16 ones
    double gemm_k_half = 0;              // reduction length at which data reuse halves
    int gemm_tile_m = 128;               // largest GEMM tile the libraries use
    int gemm_tile_n = 128;
    bool winograd = false;          // Winograd for 3x3/5x5 stride-1 convolutions on FP32 lanes
    double winograd_speedup = 1.0;  // what 3x3 filters achieve with it
    double memory_efficiency = 0.8; // bandwidth-bound kernels, of the GPU's achievable DRAM rate
    // Depthwise convolutions run on the FP32 lanes, whatever the precision, at this share of
    // their peak (each output reads a k x k window of one channel: little reuse).
    double depthwise_efficiency = 0.3;

    // Layout and fusion.
    // Activations channels-last (NHWC) in AMP and in TF32 runs (FP32 runs are NCHW). With
    // NCHW, cuDNN transposes every tensor-core convolution's operands to NHWC and back.
    bool nhwc_amp = true;
    bool nhwc_tf32 = false;
    // cuDNN's fused batch-norm kernels (NHWC only): BN + ReLU, and BN + residual addition +
    // ReLU.
    bool fused_bn_activation = false;
    bool fused_bn_add_activation = false;
    // A compiler (XLA) fuses chains of element-wise ops: the normalization, activation and
    // residual addition after a batch norm's statistics cost one pass.
    bool elementwise_fusion = false;

    // Input.
    bool overlap_input = true;         // input copy and pipeline hidden behind compute
    double input_gpu_us_per_image = 0; // GPU time of an on-GPU pipeline (DALI), per image
    bool default_real_data = true;     // its benchmarks read real images unless told not to
    double host_images_per_core_s = 0; // images one host core decodes and augments; 0: no cap
    // The extra host time of an image augmented by a learned policy (AutoAugment,
    // RandAugment: a few more image operations at the output size), as a multiple of a
    // standard 224 x 224 image's whole decode and augmentation.
    double policy_augment_cost = 1.0;
    double loader_workers_per_gpu = 0; // decode processes per GPU; 0: every core

    // Communication.
    double nccl_efficiency = 0.8;          // achieved fraction of link bandwidth in collectives
    bool nccl_topology_aware = true;       // NCCL 2 ring search over NVLink (NCCL 1: device order)
    double collective_base_latency_us = 0; // per collective call
    double collective_hop_latency_us = 0;  // per ring hop
    double network_efficiency = 0.8;       // achieved fraction of the NICs
    double memcpy_efficiency = 0.8;        // achieved fraction of links in device copies
    // Parameter servers over RPC (TensorFlow's gRPC): what one process moves through its RPC
    // stack per second (serialization and copies on its CPU), GB/s; 0: no RPC in the path.
    double rpc_gbps_per_process = 0;
    bool overlap_communication = true;
    int gradient_bytes_amp = 2; // bytes of a gradient element exchanged under amp
    // Run-to-run spread (coefficient of variation) of one GPU's iteration time: a
    // synchronous step waits for the slowest of N GPUs.
    double sync_jitter = 0;
    std::string default_sync = "allreduce-nccl";

    // Memory.
    double optimizer_state_bytes_per_param = 0; // momentum: 4
    double framework_reserved_mb = 0;           // CUDA context, allocator slack
    double workspace_limit_mb = 0;              // largest convolution workspace allowed
    // Free-form extra parameters the model reads by name; documented in the JSON file.
    std::vector<std::pair<std::string, double>> extra;

    // A band of its own (docs/profiles.md "error_band"): the errors of the measurements a
    // profile was fitted to by iterscope-cli fit, |ln(measured / predicted throughput)| of
    // each row when left out of the fit, as the conformal half-width the shipped bands use
    // (core/validation/error_band.h). It speaks for the architectures those rows ran on;
    // rows 0: none, and predictions carry the shipped bands.
    struct ErrorBand {
        int rows = 0;
        double half_width_log = 0;
        std::vector<std::string> architectures;
        std::string basis;
    };
    ErrorBand error_band;

    // What a fit to a person's runs was made of (iterscope-cli fit writes it): the profile
    // it started from, how many runs on which GPUs, and the share of its change to the
    // shared parameters that other GPUs carry. rows 0: not fitted to anyone's runs.
    struct FittedTo {
        std::string base; // the base profile's id ("pytorch")
        int rows = 0;
        std::vector<std::string> gpus;
        double harness_share = 1;
        // The factor on the shipped band's width for a GPU the fit did not measure: how much
        // narrower (or wider) a pin leaves the other GPUs' errors, measured on the public
        // files' leave-one-GPU-in table (docs/calibrating.md). 1: the shipped band as is.
        double other_gpus_band_scale = 1;
    };
    FittedTo fitted_to;

    // What a fit to one person's measurements found true of one GPU rather than of the
    // software (iterscope-cli fit --measurements, docs/calibrating.md "A pin that knows
    // what it pins"): by GPU profile id, then by precision name ("fp32", "tf32", "amp",
    // "bf16"), a factor on that GPU's kernel rates (arithmetic and memory-bound kernels;
    // host costs and communication keep theirs). 1.1: its kernels run 10% faster than the
    // shared parameters say. A scenario on any other GPU, or another precision, is
    // untouched. JSON "gpu_corrections".
    std::map<std::string, std::map<std::string, double>> gpu_corrections;
    // A further factor, keyed the same way, on that GPU's memory-bound kernels alone (the
    // bytes per ms every kernel's memory side runs at: element-wise, normalisation, pooling,
    // and convolutions where they are bound by memory). A trace times each layer kind on its
    // own (iterscope-cli fit --trace), so it can tell a GPU's memory-bound kernels from its
    // arithmetic ones; measured throughputs cannot, and leave it out. JSON
    // "gpu_memory_corrections".
    std::map<std::string, std::map<std::string, double>> gpu_memory_corrections;
};

// The kernel-rate factor `sw` holds for this GPU id and precision name; 1 when none.
double gpuCorrection(const SoftwareProfile& sw, const std::string& gpu_id, const char* precision);
// The same for its memory-bound kernels (gpu_memory_corrections), on top of gpuCorrection.
double gpuMemoryCorrection(const SoftwareProfile& sw, const std::string& gpu_id,
                           const char* precision);

} // namespace iterscope
