#include "model/scenario_warnings.h"

#include "hardware/compatibility.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace iterscope {
namespace {

bool containsNoCase(std::string text, std::string_view word) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text.find(word) != std::string::npos;
}

std::string nameOf(const GpuProfile& gpu) {
    return gpu.name.empty() ? gpu.id : gpu.name;
}

std::string nameOf(const SystemProfile& system) {
    return system.name.empty() ? system.id : system.name;
}

// SXM modules (and their NVLink) need an HGX/DGX baseboard; profiles say "SXM" in the id
// or the name, as NVIDIA's product names do.
bool isSxmModule(const GpuProfile& gpu) {
    return containsNoCase(gpu.id, "sxm") || containsNoCase(gpu.name, "sxm");
}

// "±4%": the half-width of a band symmetric in log space, as its larger side.
std::string percentText(double half_width_log) {
    const long percent = std::lround((std::exp(half_width_log) - 1) * 100);
    return "\u00b1" + std::to_string(percent) + "%";
}

} // namespace

std::vector<ScenarioWarning> scenarioWarnings(const Scenario& s) {
    using Level = ScenarioWarning::Level;
    std::vector<ScenarioWarning> out;
    const GpuProfile& gpu = s.gpu;

    if (s.precision == Precision::TF32 && gpu.tf32_tflops <= 0 && gpu.measured_tf32_tflops <= 0)
        out.push_back({Level::Caution, "tf32-without-tensor-cores",
                       "The " + nameOf(gpu) +
                           " has no TF32 tensor cores: TF32 runs at its FP32 rate, so this is "
                           "the FP32 prediction."});
    if (s.precision == Precision::AMP && gpu.fp16_tensor_tflops <= 0 &&
        gpu.measured_fp16_tensor_tflops <= 0 && gpu.fp16_tflops <= gpu.fp32_tflops)
        out.push_back({Level::Caution, "amp-without-fast-fp16",
                       "The " + nameOf(gpu) +
                           " has neither FP16 tensor cores nor fast FP16: mixed precision "
                           "computes at its FP32 rate; only memory traffic shrinks."});
    if (s.precision == Precision::BF16 &&
        (gpu.compute_capability < 8.0 ||
         (gpu.fp16_tensor_tflops <= 0 && gpu.measured_fp16_tensor_tflops <= 0)))
        out.push_back({Level::Caution, "bf16-without-tensor-cores",
                       "The " + nameOf(gpu) +
                           " has no BF16 tensor cores (they came with Ampere): bf16 computes at "
                           "its FP32 rate; only memory traffic shrinks."});

    // The frameworks that know Ampere run an FP32 model's convolutions on TF32 tensor cores
    // unless told not to (PyTorch since 1.7: torch.backends.cudnn.allow_tf32 defaults to
    // True, matmul's allow_tf32 to False since 1.12; TensorFlow since 2.4 and NVIDIA's
    // containers for convolutions and matrix multiplies alike), so "FP32" as a person means
    // it (no AMP) is not what the model's fp32 computes (the FP32 lanes).
    const bool tf32_capable = gpu.tf32_tflops > 0 || gpu.measured_tf32_tflops > 0;
    const std::string& family = s.software.family;
    const std::string framework = family == "pytorch"      ? "PyTorch"
                                  : family == "tensorflow" ? "TensorFlow"
                                  : family == "mxnet"      ? "MXNet"
                                                           : "";
    if (s.precision == Precision::FP32 && tf32_capable && !framework.empty() &&
        s.software.newest_compute_capability >= 8.0)
        out.push_back(
            {Level::Caution, "fp32-runs-tf32-by-default",
             framework + " runs FP32 convolutions on the " + nameOf(gpu) +
                 "'s TF32 tensor cores unless the script turns them off" +
                 (family == "pytorch" ? " (torch.backends.cudnn.allow_tf32, on by default)"
                                      : " (NVIDIA_TF32_OVERRIDE=0)") +
                 ": FP32 predicts a run with them off, TF32 what a default script does."});

    if (!gpu.like_architecture.empty())
        out.push_back({Level::Caution, "architecture-by-likeness",
                       "The " + nameOf(gpu) + "'s architecture, " + gpu.architecture +
                           ", has no facts of its own here: " + gpu.like_architecture +
                           "'s GEMM ceilings and DRAM share stand in for them, and its error band "
                           "is that of an architecture never measured."});

    const bool pcie_host = s.system.intra_node == "pcie";
    if (pcie_host && isSxmModule(gpu))
        out.push_back({Level::Caution, "sxm-in-pcie-system",
                       "The " + nameOf(gpu) +
                           " is an SXM module, which mounts on an NVLink "
                           "baseboard, not in a PCIe slot: the " +
                           nameOf(s.system) + " cannot hold it, and its NVLink goes unused here."});
    // A product (a DGX) holds the SXM module it ships with: another one needs another
    // baseboard (an A100 SXM4 in a DGX-1).
    if (!pcie_host && isSxmModule(gpu) && !gpuFitsSystem(gpu, s.system))
        out.push_back({Level::Caution, "gpu-not-in-system",
                       "The " + nameOf(gpu) + " does not fit the " + nameOf(s.system) + ", which " +
                           systemGpuRule(s.system) +
                           ": its baseboard holds no other module, and the prediction puts this "
                           "one on links it was not built for."});
    if (!pcie_host && !isSxmModule(gpu) && (gpu.nvlink_links == 0 || gpu.form_factor == "pcie"))
        out.push_back({Level::Caution, "pcie-card-in-nvlink-system",
                       "The " + nameOf(gpu) +
                           (gpu.nvlink_links > 0
                                ? " is a PCIe card, whose NVLink takes a bridge to one other card,"
                                : " is a PCIe card without NVLink,") +
                           " but the " + nameOf(s.system) +
                           " joins its GPUs by NVLink: its GPUs are predicted to talk over the "
                           "system's PCIe links instead."});
    if (!gpu.pcie_p2p && s.system.gpus_per_node > 1)
        out.push_back({Level::Note, "no-pcie-p2p",
                       "The " + nameOf(gpu) +
                           " has no PCIe peer-to-peer under NVIDIA's driver: NCCL stages every "
                           "copy between its GPUs through host memory, which costs bandwidth "
                           "where PCIe switches share one link to the CPU among their GPUs."});
    if (pcie_host && !s.system.nvlink_pairs.empty() && gpu.nvlink_links <= 0)
        out.push_back({Level::Note, "bridge-without-nvlink",
                       "The " + nameOf(s.system) + " bridges pairs of GPUs by NVLink, but the " +
                           nameOf(gpu) +
                           " has no NVLink connector: its GPUs are predicted to talk over PCIe."});

    const SoftwareProfile::FittedTo& fitted = s.software.fitted_to;
    if (fitted.rows > 0) {
        std::string on;
        for (const std::string& id : fitted.gpus)
            on += (on.empty() ? "" : ", ") + id;
        const bool measured =
            std::find(fitted.gpus.begin(), fitted.gpus.end(), gpu.id) != fitted.gpus.end();
        const int carried = static_cast<int>(std::lround(fitted.harness_share * 100));
        std::string text = "Fitted to " + std::to_string(fitted.rows) + " of your runs" +
                           (on.empty() ? "" : " on " + on);
        if (measured) {
            // The runs' own held-out error; the band shown beside the figures is this one
            // only where there are enough runs to narrow the shipped band (error_band.h).
            const SoftwareProfile::ErrorBand& band = s.software.error_band;
            if (band.rows > 0)
                text += " (each left out in turn, within " + percentText(band.half_width_log) + ")";
            text +=
                ": other GPUs carry " + std::to_string(carried) + "% of the harness correction.";
        } else {
            // Its band is the shipped one, scaled where the fit says what a pin does to the
            // other GPUs' errors (error_band.h).
            const double scale = fitted.other_gpus_band_scale;
            text += ": ";
            text += "this GPU carries " + std::to_string(carried) + "% of the harness correction";
            if (std::abs(scale - 1) < 5e-3)
                text += " and keeps the shipped error band.";
            else
                text += " and the shipped error band at " +
                        std::to_string(static_cast<int>(std::lround(scale * 100))) +
                        "% of its width.";
        }
        out.push_back({Level::Note, "fitted-to-your-runs", text});
    }

    if (s.software.overlap_input)
        out.push_back({Level::Note, "input-copy-is-prefetch",
                       "The input copy drawn under the forward pass is the next minibatch's "
                       "prefetch, hidden behind this iteration's compute."});
    return out;
}

} // namespace iterscope
