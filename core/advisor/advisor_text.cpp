#include "advisor/advisor_text.h"
#include "util/number_text.h"

#include "advisor/comparison.h"
#include "model/breakdown.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace iterscope {

namespace {

std::string fixed(double v, int digits) {
    return fixedDecimals(v, digits);
}

std::string percent(double share) {
    return fixed(share * 100.0, 0) + "%";
}

std::string ms(double v) {
    return fixed(v, v < 10 ? 2 : 1) + " ms";
}

// Share of the kernel time (forward and backward) whose kernels are compute-bound.
double computeBoundShare(const Prediction& p) {
    double bound = 0, all = 0;
    for (const LayerTiming& l : p.layers) {
        all += l.forward_ms + l.backward_ms;
        bound += (l.forward_bound == Bound::Compute ? l.forward_ms : 0) +
                 (l.backward_bound == Bound::Compute ? l.backward_ms : 0);
    }
    return all > 0 ? bound / all : 0;
}

bool hasTensorCores(const GpuProfile& g) {
    return g.fp16_tensor_tflops > 0 || g.tf32_tflops > 0;
}

std::string fabricWords(const Scenario& s) {
    if (s.nodes > 1)
        return "over " + s.system.network + " (" + std::to_string(s.system.nics_per_node) + " x " +
               networkRateWords(s.system.nic_gbps) + ")";
    return "over " + s.system.intra_node;
}

std::string dollars(double v) {
    return "$" + fixed(v, v < 10 ? 2 : 0);
}

} // namespace

std::string groupedInteger(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string plainNumber(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string ratioText(double ratio) {
    return fixed(ratio, 2) + "x";
}

std::string memoryText(const Prediction& p, const Scenario& s) {
    return fixed(static_cast<double>(p.memory_per_gpu_bytes) / 1e9, 1) + " GB of " +
           fixed(static_cast<double>(s.gpu.memory_bytes) / 1e9, 1) + " GB per GPU";
}

std::string precisionWords(Precision p) {
    switch (p) {
    case Precision::FP32:
        return "FP32 on the vector lanes";
    case Precision::TF32:
        return "TF32 on tensor cores";
    case Precision::AMP:
        return "AMP: FP16 on tensor cores with loss scaling";
    case Precision::BF16:
        return "BF16 mixed precision on tensor cores";
    }
    return "";
}

std::string syncWords(SyncStrategy s) {
    switch (s) {
    case SyncStrategy::None:
        return "no exchange";
    case SyncStrategy::AllreduceNccl:
        return "NCCL all-reduce";
    case SyncStrategy::AllreduceCopy:
        return "all-reduce by device copies";
    case SyncStrategy::PsCpu:
        return "a parameter server on the host CPU";
    case SyncStrategy::PsGpu:
        return "parameters sharded over the GPUs (ps-gpu)";
    case SyncStrategy::DistributedReplicated:
        return "local aggregation, then parameter servers across nodes";
    case SyncStrategy::PsAsync:
        return "asynchronous parameter servers (no barrier)";
    }
    return "";
}

std::string parallelWords(ParallelStrategy p) {
    switch (p) {
    case ParallelStrategy::Data:
        return "plain data parallelism";
    case ParallelStrategy::Hybrid:
        return "hybrid: FC layers split over the node's GPUs";
    case ParallelStrategy::Pipeline:
        return "a pipeline";
    case ParallelStrategy::Zero1:
        return "ZeRO-1: optimizer state sharded";
    case ParallelStrategy::Zero2:
        return "ZeRO-2: optimizer state and gradients sharded";
    case ParallelStrategy::Zero3:
        return "ZeRO-3 (FSDP): parameters sharded too";
    }
    return "";
}

std::string networkRateWords(double nic_gbps) {
    return plainNumber(nic_gbps * 8) + " Gb/s";
}

std::optional<std::string> costOf(const Scenario& base, const Prediction& base_prediction,
                                  const Scenario& changed, const Prediction& changed_prediction) {
    std::vector<std::string> notes;
    const int64_t before = base.batch_per_gpu * base.totalGpus();
    const int64_t after = changed.batch_per_gpu * changed.totalGpus();
    if (after != before)
        notes.push_back("global batch " + groupedInteger(before) + " -> " + groupedInteger(after) +
                        ": the optimisation changes (retune the " +
                        "learning rate and its warm-up)");
    if (changed.sync == SyncStrategy::PsAsync && base.sync != SyncStrategy::PsAsync)
        notes.push_back("asynchronous updates: gradients about " +
                        fixed(changed_prediction.staleness, 1) +
                        " steps stale, which can cost accuracy");
    const bool other_gpu = changed.gpu.id != base.gpu.id;
    const bool more_gpus = changed.totalGpus() != base.totalGpus();
    if (other_gpu || more_gpus) {
        const auto was = usdPerMillionImages(base, base_prediction.images_per_second);
        const auto now = usdPerMillionImages(changed, changed_prediction.images_per_second);
        std::string hw = more_gpus ? std::to_string(base.totalGpus()) + " -> " +
                                         std::to_string(changed.totalGpus()) + " GPUs"
                                   : base.gpu.id + " -> " + changed.gpu.id;
        if (was && now)
            hw += "; " + dollars(*was) + " -> " + dollars(*now) + " per million images at " +
                  (other_gpu ? dollars(*changed.gpu.usd_per_gpu_hour) + " instead of " +
                                   dollars(*base.gpu.usd_per_gpu_hour)
                             : dollars(*changed.gpu.usd_per_gpu_hour)) +
                  " per GPU-hour (" + changed.gpu.price_source + ", " + changed.gpu.price_date +
                  ")";
        else
            hw += "; no shipped price for " + (now ? base.gpu.id : changed.gpu.id);
        // Linear scaling is a yardstick for more of the same GPUs doing the same work.
        if (more_gpus && !other_gpu && changed.precision == base.precision &&
            changed.batch_per_gpu == base.batch_per_gpu) {
            const double efficiency = changed_prediction.images_per_second /
                                      base_prediction.images_per_second * base.totalGpus() /
                                      changed.totalGpus();
            hw += "; keeps " + percent(efficiency) + " of linear scaling";
        }
        notes.push_back(hw);
    }
    if (changed.system.nic_gbps != base.system.nic_gbps ||
        changed.system.nics_per_node != base.system.nics_per_node)
        notes.push_back("new NICs and switch ports for " + std::to_string(changed.nodes) +
                        " nodes; no shipped price for networks");
    if (notes.empty())
        return std::nullopt;
    std::string out;
    for (const std::string& n : notes)
        out += (out.empty() ? "" : "; ") + n;
    return out;
}

std::string whyItHelps(const Scenario& base, const Prediction& bp, const Scenario& changed,
                       const Prediction& cp, const std::vector<Change>& parts) {
    if (parts.size() > 1) {
        return "predicted together: the parts share one iteration, so their speed-ups do not "
               "multiply";
    }
    const std::string& kind = parts.empty() ? std::string() : parts.front().kind;
    const auto compute = [](const Prediction& p) { return p.forward_ms + p.backward_ms; };
    if (kind == "precision" && base.precision != Precision::FP32)
        return std::string(precisionName(changed.precision)) + " instead of " +
               precisionName(base.precision) + ": forward + backward " + ms(compute(bp)) + " -> " +
               ms(compute(cp)) + ", update " + ms(bp.update_ms) + " -> " + ms(cp.update_ms) +
               ", iteration " + ms(bp.iteration_ms) + " -> " + ms(cp.iteration_ms);
    if (kind == "precision") {
        const double share = computeBoundShare(bp);
        return percent(share) + " of the kernel time is compute-bound in " +
               precisionName(base.precision) + "; " + precisionName(changed.precision) +
               " runs it on tensor cores (forward + backward " + ms(compute(bp)) + " -> " +
               ms(compute(cp)) + ")";
    }
    if (kind == "layout")
        return "with NCHW cuDNN transposes every tensor-core convolution's operands; "
               "channels-last skips it (forward + backward " +
               ms(compute(bp)) + " -> " + ms(compute(cp)) + ")";
    if (kind == "batch" && !bp.fits_in_memory)
        return "the scenario does not fit in memory (" + memoryText(bp, base) +
               "); this batch does (" +
               fixed(static_cast<double>(cp.memory_per_gpu_bytes) / 1e9, 1) + " GB)";
    if (kind == "batch")
        return "larger kernels fill the GPU and the per-layer and exchange costs spread over " +
               groupedInteger(changed.batch_per_gpu) + " images instead of " +
               groupedInteger(base.batch_per_gpu);
    if (kind == "overlap" || kind == "bucket" || kind == "allreduce" || kind == "sync" ||
        kind == "network")
        return "exposed communication " + ms(bp.exposed_communication_ms) + " -> " +
               ms(cp.exposed_communication_ms) + " of the iteration (" + ms(bp.communication_ms) +
               " -> " + ms(cp.communication_ms) + " in all)";
    if (kind == "parallel")
        return "memory " + memoryText(bp, base) + " -> " +
               fixed(static_cast<double>(cp.memory_per_gpu_bytes) / 1e9, 1) +
               " GB; exposed communication " + ms(bp.exposed_communication_ms) + " -> " +
               ms(cp.exposed_communication_ms) + "; bubble " + ms(cp.pipeline_bubble_ms);
    if (kind == "loader-workers")
        return "the host's decoding of a batch " + ms(bp.host_input_ms) + " -> " +
               ms(cp.host_input_ms) + "; the GPU waited " + ms(bp.input_wait_ms);
    if (kind == "gpu-count")
        return "more GPUs share the images; the exchange grows from " + ms(bp.communication_ms) +
               " to " + ms(cp.communication_ms);
    if (kind == "gpu")
        return "forward + backward " + ms(compute(bp)) + " -> " + ms(compute(cp)) + " on the " +
               changed.gpu.name + (hasTensorCores(changed.gpu) ? "" : " (no tensor cores)");
    return "";
}

std::string diagnose(const Scenario& s, const Prediction& p) {
    if (!(p.iteration_ms > 0))
        return "nothing to diagnose: the iteration takes no time";
    const IterationBreakdown b = iterationBreakdown(p);
    const double it = p.iteration_ms;
    const double input = (b.input_wait_ms + b.input_ms) / it;
    const double comm = b.exposed_communication_ms / it;
    const double idle = (b.idle_ms + b.server_wait_ms) / it;
    const double straggler = b.straggler_ms / it;
    std::string memory;
    if (!p.fits_in_memory)
        memory = "; and it does not fit in memory (" + memoryText(p, s) + ")";
    // The largest wait that is not the GPU's own work names the bound, when it is a
    // tenth of the iteration or more; else the kernels bound it.
    const double worst = std::max({input, comm, idle, straggler});
    if (worst >= 0.1) {
        if (worst == input)
            return "input-bound: " + percent(input) +
                   " of the iteration waits for the input (the host decodes a batch in " +
                   ms(p.host_input_ms) + ", the GPU needs " + ms(it - b.input_wait_ms) + ")" +
                   memory;
        if (worst == comm)
            return "communication: " + percent(comm) + " of the iteration is gradient exchange " +
                   fabricWords(s) + " that backward does not hide (" +
                   ms(b.exposed_communication_ms) + " of " + ms(it) + ")" + memory;
        if (worst == idle)
            return "idle: " + percent(idle) + " of the iteration the GPUs wait (" +
                   (s.parallel == ParallelStrategy::Pipeline ? "the pipeline's bubble"
                                                             : "for the parameter servers") +
                   ")" + memory;
        return "stragglers: " + percent(straggler) + " of the iteration waits for the slowest of " +
               std::to_string(s.totalGpus()) + " GPUs" + memory;
    }
    const double kernels = (b.forward_ms + b.backward_ms + b.update_ms) / it;
    std::string line = "compute-bound: the GPU's kernels fill " + percent(kernels) +
                       " of the iteration; " + percent(computeBoundShare(p)) +
                       " of their time is arithmetic-bound";
    if (s.precision == Precision::FP32 && hasTensorCores(s.gpu))
        line += ", in FP32 on a GPU with tensor cores";
    return line + memory;
}

} // namespace iterscope
