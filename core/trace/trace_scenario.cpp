#include "trace/trace_scenario.h"

#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "hardware/compatibility.h"
#include "util/error.h"
#include "util/precision.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace iterscope {

namespace {

constexpr double kMemoryTolerance = 0.15;

bool mentionsPcie(const std::string& name) {
    for (std::size_t i = 0; i + 4 <= name.size(); ++i) {
        std::string w = name.substr(i, 4);
        for (char& c : w)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (w == "pcie")
            return true;
    }
    return false;
}

std::string describe(const TraceDevice& d) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%d SMs, compute capability %d.%d, %.1f GiB", d.sm_count,
                  d.compute_major, d.compute_minor,
                  static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

} // namespace

std::string gpuProfileForDevice(const TraceDevice& device) {
    if (device.sm_count <= 0)
        return {};
    const double cc = device.compute_major + device.compute_minor / 10.0;
    const bool pcie = mentionsPcie(device.name);
    std::string best;
    double best_score = 1e300;
    for (const std::string& id : gpuIds()) {
        GpuProfile g;
        try {
            g = loadGpuProfile(id);
        } catch (const InputError&) {
            continue; // a broken profile is reported where it is used, not here
        }
        if (g.sm_count != device.sm_count)
            continue;
        if (g.compute_capability > 0 && device.compute_major > 0 &&
            std::abs(g.compute_capability - cc) > 0.05)
            continue;
        const double memory_gap =
            device.memory_bytes > 0 && g.memory_bytes > 0
                ? std::abs(static_cast<double>(g.memory_bytes - device.memory_bytes)) /
                      static_cast<double>(g.memory_bytes)
                : 0.0;
        if (memory_gap > kMemoryTolerance)
            continue;
        const bool form_matches = (g.form_factor == "pcie") == pcie;
        const double score = memory_gap + (form_matches ? 0.0 : 1.0);
        if (score < best_score) {
            best_score = score;
            best = id;
        }
    }
    return best;
}

TraceScenario traceScenario(const TraceAnalysis& trace, ScenarioChoices c,
                            const TraceChoiceMask& given) {
    TraceScenario out;
    const TraceFacts& f = trace.facts;
    if (!given.gpu) {
        if (!f.has_device)
            throw InputError(trace.file + ": the trace has no deviceProperties to name its GPU; "
                                          "pass --gpu");
        c.gpu = gpuProfileForDevice(f.device);
        if (c.gpu.empty())
            throw InputError(trace.file + ": GPU '" + f.device.name + "' (" + describe(f.device) +
                             ") matches no GPU profile; pass --gpu with an id or a profile file");
    }
    const GpuProfile gpu = loadGpuProfile(c.gpu);
    out.gpu_name = f.has_device && !f.device.name.empty() ? f.device.name : gpu.name;

    if (!given.gpus) {
        const int world = std::max(1, f.world_size);
        const int per_node = std::min(world, 8);
        c.gpus_per_node = std::to_string(per_node);
        c.nodes = std::to_string((world + per_node - 1) / per_node);
    }
    if (!given.system) {
        // A bad --gpus-per-node is reported by the scenario builder, naming the flag.
        int per_node = 1;
        std::from_chars(c.gpus_per_node.data(), c.gpus_per_node.data() + c.gpus_per_node.size(),
                        per_node);
        std::string fallback;
        for (const std::string& id : systemIds()) {
            SystemProfile s;
            try {
                s = loadSystemProfile(id);
            } catch (const InputError&) {
                continue;
            }
            if (!gpuFitsSystem(gpu, s) || s.gpus_per_node < per_node)
                continue;
            if (s.default_gpu == gpu.id) {
                fallback = id;
                break;
            }
            if (fallback.empty())
                fallback = id;
        }
        if (!fallback.empty())
            c.system = fallback;
    }

    const auto& dims = f.first_layer_input_dims;
    if (!given.image && dims.size() == 4 && dims[2] == dims[3] && dims[2] > 0)
        c.image = dims[2];
    if (given.batch) {
        out.batch_source = "--batch";
    } else if (dims.size() >= 2 && dims[0] > 0) {
        c.batch = std::to_string(dims[0]);
        out.batch_source = "op shapes";
    } else {
        bool found = false;
        if (f.input_copy_bytes > 0) {
            LoadOptions options;
            options.image = c.image;
            const auto net = loadNetwork(c.network, options);
            std::int64_t elems = 1;
            for (std::int64_t d : net->network.input)
                elems *= std::max<std::int64_t>(d, 1);
            // FP32 images as most loaders make them, else bytes (uint8, normalised on the
            // GPU), else FP16.
            for (std::int64_t bytes : {4, 1, 2}) {
                if (f.input_copy_bytes % (elems * bytes) == 0) {
                    c.batch = std::to_string(f.input_copy_bytes / (elems * bytes));
                    out.batch_source = "input copy";
                    found = true;
                    break;
                }
            }
        }
        if (!found) {
            out.batch_source = "assumed";
            out.warnings.push_back(trace.file +
                                   ": the batch is not in the trace (no op shapes, "
                                   "no input copy); assumed " +
                                   c.batch + ", pass --batch");
        }
    }
    if (!given.precision) {
        c.precision = f.precision;
        out.precision_source = f.precision_source;
        if (!parsePrecision(c.precision)) {
            out.warnings.push_back(trace.file + ": precision " + f.precision +
                                   " is not modelled here; predicted as amp");
            c.precision = "amp";
        }
    } else {
        out.precision_source = "--precision";
    }
    out.choices = c;
    return out;
}

} // namespace iterscope
