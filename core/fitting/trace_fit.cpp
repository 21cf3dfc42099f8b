#include "fitting/trace_fit.h"

#include "model/model.h"
#include "util/error.h"

#include <cmath>

namespace iterscope {

std::vector<TraceFitItem> traceFitItems(const TraceComparison& c) {
    std::vector<TraceFitItem> items;
    for (TracePass pass : {TracePass::Forward, TracePass::Backward}) {
        const bool fwd = pass == TracePass::Forward;
        for (const TraceLayerComparison& l : c.layers) {
            const auto& measured = fwd ? l.measured_forward_ms : l.measured_backward_ms;
            if ((fwd ? l.forward_match : l.backward_match) == MatchKind::OneToOne && measured)
                items.push_back({l.name + " " + tracePassName(pass), pass, {l.layer}, *measured});
        }
        for (const TraceKindComparison& k : c.kinds) {
            if (k.pass != pass || k.match != MatchKind::ByKind || !(k.measured_ms > 0))
                continue;
            TraceFitItem item{std::string(opKindName(k.kind)) + " " + tracePassName(pass) +
                                  " (by kind)",
                              pass,
                              {},
                              k.measured_ms};
            for (const TraceLayerComparison& l : c.layers)
                if (l.kind == k.kind &&
                    (fwd ? l.forward_match : l.backward_match) == MatchKind::ByKind)
                    item.layers.push_back(l.layer);
            items.push_back(item);
        }
    }
    return items;
}

SoftwareFitReport fitToTrace(const TraceAnalysis& trace, const TraceComparison& comparison,
                             const Scenario& scenario, const SoftwareFitOptions& options) {
    if (!trace.facts.has_backward)
        throw InputError(trace.file + ": a forward-only (inference) trace: fitting a training "
                                      "profile needs a step with its backward pass");
    const std::vector<TraceFitItem> items = traceFitItems(comparison);
    if (items.empty())
        throw InputError(trace.file + ": no layer of " + scenario.network->source +
                         " was matched to the trace's ops; nothing to fit");
    SoftwareFitHooks hooks;
    for (const TraceFitItem& item : items) {
        hooks.ids.push_back(item.label);
        hooks.measured.push_back(item.measured_ms);
    }
    hooks.error_measure = "time-weighted APE";
    hooks.predict = [&](const SoftwareProfile& profile, const std::vector<std::size_t>& subset) {
        Scenario s = scenario;
        s.software = profile;
        const LayerPassTable table = layerPassTable(kernelTimeScenario(s));
        std::vector<double> out;
        for (std::size_t i : subset) {
            double ms = 0;
            for (std::size_t layer : items[i].layers)
                ms += items[i].pass == TracePass::Forward ? table.passes[layer].forward.ms
                                                          : table.passes[layer].backward.ms;
            out.push_back(ms);
        }
        return out;
    };
    hooks.error = [&](const std::vector<double>& predicted,
                      const std::vector<std::size_t>& subset) {
        double off = 0, total = 0;
        for (std::size_t k = 0; k < subset.size(); ++k) {
            off += std::abs(predicted[k] - items[subset[k]].measured_ms);
            total += items[subset[k]].measured_ms;
        }
        return total > 0 ? off / total * 100.0 : 0.0;
    };
    const SoftwareProfile& base = scenario.software;
    hooks.descend = [&](const FitSpec& spec, const std::vector<std::size_t>& train) {
        std::vector<std::size_t> free(spec.parameters.size());
        for (std::size_t i = 0; i < free.size(); ++i)
            free[i] = i;
        return descendFromPriors(spec, free, [&](const std::vector<double>& values) {
            FitScore score;
            score.mape =
                hooks.error(hooks.predict(withFitValues(base, spec, values), train), train);
            score.objective = score.mape + priorPenalty(spec, values);
            return score;
        });
    };
    // The pin's split, as for measured rows: other GPUs carry the shared change shrunk by the
    // harness share; this GPU at this precision keeps the rest as two kernel-rate factors
    // that make the training items' time-weighted error smallest: one on every kernel and one
    // on its memory-bound kernels alone. A trace times each layer kind, so it can tell the
    // two apart where a throughput cannot; without the second, the shrunk shared part would
    // leave the measured GPU's own convolutions and element-wise kernels off in opposite
    // directions that one factor only averages.
    // A trace is one run: however many kernels it times, it is one scenario of the harness,
    // and what is peculiar to that scenario (its batch, GPU count, network) is not averaged
    // away, so the estimate is the one for a single row.
    const HarnessShareChoice share = chooseHarnessShare(options.harness_share, 1, 1);
    hooks.harness_share = share.share;
    hooks.harness_share_basis = share.basis;
    hooks.gpus = {scenario.gpu.id};
    if (options.gpu_part)
        hooks.gpu_part = [&](SoftwareProfile profile, const std::vector<std::size_t>& train,
                             std::vector<GpuCorrectionFit>* found) {
            if (train.empty())
                return profile;
            const std::string gpu = scenario.gpu.id, precision = precisionName(scenario.precision);
            const auto errorWith = [&](double all, double memory) {
                SoftwareProfile trial = profile;
                trial.gpu_corrections[gpu][precision] = all;
                trial.gpu_memory_corrections[gpu][precision] = memory;
                return hooks.error(hooks.predict(trial, train), train);
            };
            // The two trade off where a kernel is bound by memory: a few rounds of one factor
            // at a time, each by the trace's own error measure, so that the GPU part never
            // undoes what the shared fit reached.
            double all = 1, memory = 1;
            for (int round = 0; round < 3; ++round) {
                all = minimizeGpuRateFactor([&](double f) { return errorWith(f, memory); });
                memory = minimizeGpuRateFactor([&](double f) { return errorWith(all, f); });
            }
            profile.gpu_corrections[gpu][precision] = all;
            if (memory != 1)
                profile.gpu_memory_corrections[gpu][precision] = memory;
            if (found) {
                const int trained = static_cast<int>(train.size());
                found->push_back({gpu, precision, trained, all, false});
                if (memory != 1)
                    found->push_back({gpu, precision, trained, memory, true});
            }
            return profile;
        };
    const FitSpec spec = softwareFitSpec(
        base, base.id, options.fields.empty() ? defaultTraceFitFields() : options.fields,
        options.prior_weight < 0 ? kDefaultPriorWeight : options.prior_weight);
    return runSoftwareFit(base, spec, hooks, trace.file);
}

} // namespace iterscope
