#include "cli/trace_output.h"

#include "cli/prediction_output.h"
#include "cli/table.h"
#include "util/precision.h"

#include <sstream>

namespace iterscope::cli {

namespace {

using Json = nlohmann::ordered_json;

Json optionalMs(const std::optional<double>& v) {
    return v ? Json(*v) : Json(nullptr);
}

std::string cell(const std::optional<double>& v) {
    return v ? fixed(*v, 3) : "-";
}

std::string pct(const std::optional<double>& e) {
    if (!e)
        return "-";
    return (*e >= 0 ? "+" : "") + fixed(*e, 1);
}

// What a layer's measured time is for the passes the trace ran: known only when each was
// matched one to one.
std::optional<double> measuredTotal(const TraceLayerComparison& l, bool training) {
    if (!l.measured_forward_ms || (training && !l.measured_backward_ms))
        return std::nullopt;
    return *l.measured_forward_ms + (training ? *l.measured_backward_ms : 0.0);
}

// One to one when every pass the trace ran was; compared by kind when any part was.
MatchKind overallMatch(const TraceLayerComparison& l, bool training) {
    const MatchKind b = training ? l.backward_match : l.forward_match;
    if (l.forward_match == MatchKind::OneToOne && b == MatchKind::OneToOne)
        return MatchKind::OneToOne;
    if (l.forward_match != MatchKind::None || b != MatchKind::None)
        return MatchKind::ByKind;
    return MatchKind::None;
}

double predictedTotal(const TraceLayerComparison& l, bool training) {
    return l.predicted_forward_ms + (training ? l.predicted_backward_ms : 0.0);
}

} // namespace

Json traceComparisonJson(const TraceRun& run, const TraceComparison& c) {
    const TraceFacts& f = run.analysis.facts;
    Json out;
    out["trace"] = run.analysis.file;
    out["gpu"] = run.setting.gpu_name;
    out["gpu_profile"] = run.scenario.gpu.id;
    out["steps"] = c.steps;
    out["step_source"] = f.step_source;
    out["training"] = c.training;
    out["measured_step_ms"] = c.measured_step_ms;
    out["predicted_step_ms"] = c.predicted_step_ms;
    out["error_percent"] = optionalMs(tracePercentError(c.predicted_step_ms, c.measured_step_ms));
    out["measured_gpu_busy_ms"] = c.measured_busy_ms;
    out["step_ms"] = c.step_ms;
    out["layers_matched"] = c.layers_matched;
    out["layers_matched_by_kind"] = c.layers_by_kind;
    Json scenario = scenarioJson(run.scenario);
    scenario["batch_source"] = run.setting.batch_source;
    scenario["precision_source"] = run.setting.precision_source;
    out["scenario"] = scenario;
    out["layers"] = Json::array();
    for (const TraceLayerComparison& l : c.layers)
        out["layers"].push_back({{"name", l.name},
                                 {"kind", opKindName(l.kind)},
                                 {"match", matchKindName(overallMatch(l, c.training))},
                                 {"measured_ms", optionalMs(measuredTotal(l, c.training))},
                                 {"predicted_ms", predictedTotal(l, c.training)},
                                 {"measured_forward_ms", optionalMs(l.measured_forward_ms)},
                                 {"predicted_forward_ms", l.predicted_forward_ms},
                                 {"measured_backward_ms", optionalMs(l.measured_backward_ms)},
                                 {"predicted_backward_ms", l.predicted_backward_ms},
                                 {"forward_match", matchKindName(l.forward_match)},
                                 {"backward_match", matchKindName(l.backward_match)},
                                 {"op", l.op}});
    out["kinds"] = Json::array();
    for (const TraceKindComparison& k : c.kinds)
        out["kinds"].push_back({{"kind", opKindName(k.kind)},
                                {"pass", tracePassName(k.pass)},
                                {"match", matchKindName(k.match)},
                                {"layers", k.layers},
                                {"ops", k.ops},
                                {"measured_ms", k.measured_ms},
                                {"predicted_ms", k.predicted_ms}});
    out["passes"] = Json::array();
    for (const TracePassComparison& p : c.passes) {
        Json j{{"pass", tracePassName(p.pass)},
               {"measured_busy_ms", p.measured_busy_ms},
               {"measured_span_ms", p.measured_span_ms},
               {"predicted_ms", p.predicted_ms}};
        if (p.pass == TracePass::Communication) {
            j["measured_exposed_ms"] = p.measured_exposed_ms;
            j["predicted_exposed_ms"] = p.predicted_exposed_ms;
        }
        out["passes"].push_back(j);
    }
    out["unmatched_ops"] = Json::array();
    for (const TraceUnmatchedOp& u : c.unmatched)
        out["unmatched_ops"].push_back({{"name", u.name},
                                        {"kind", opKindName(u.kind)},
                                        {"pass", tracePassName(u.pass)},
                                        {"count", u.count},
                                        {"measured_ms", u.measured_ms}});
    return out;
}

std::string traceComparisonTable(const TraceRun& run, const TraceComparison& c) {
    const TraceFacts& f = run.analysis.facts;
    const Scenario& s = run.scenario;
    std::ostringstream out;
    out << run.analysis.file << ": " << run.setting.gpu_name << " (profile " << s.gpu.id << "), "
        << c.steps << (c.steps == 1 ? " step" : " steps") << " from " << f.step_source << ", "
        << (c.training ? "training" : "forward only") << "\n";
    out << "scenario: " << s.network->source << ", batch " << s.batch_per_gpu << " ("
        << run.setting.batch_source << "), " << precisionName(s.precision) << " ("
        << run.setting.precision_source << "), " << s.totalGpus() << " GPU"
        << (s.totalGpus() == 1 ? "" : "s") << ", " << s.software.id << "\n\n";

    TextTable layers;
    for (const char* h : {"layer", "kind", "match"})
        layers.addColumn(h, TextTable::Align::Left);
    for (const char* h : {"fwd ms", "model", "bwd ms", "model", "error %"})
        layers.addColumn(h, TextTable::Align::Right);
    for (const TraceLayerComparison& l : c.layers) {
        const auto total = measuredTotal(l, c.training);
        layers.addRow(
            {l.name, opKindName(l.kind), matchKindName(overallMatch(l, c.training)),
             cell(l.measured_forward_ms), fixed(l.predicted_forward_ms, 3),
             c.training ? cell(l.measured_backward_ms) : "",
             c.training ? fixed(l.predicted_backward_ms, 3) : "",
             total ? pct(tracePercentError(predictedTotal(l, c.training), *total)) : "-"});
    }
    out << "Per layer (kernel time; '-': compared within its kind only)\n"
        << layers.render() << "\n";

    TextTable kinds;
    for (const char* h : {"kind", "pass", "match"})
        kinds.addColumn(h, TextTable::Align::Left);
    for (const char* h : {"layers", "ops", "measured ms", "model ms", "error %"})
        kinds.addColumn(h, TextTable::Align::Right);
    for (const TraceKindComparison& k : c.kinds)
        kinds.addRow({opKindName(k.kind), tracePassName(k.pass), matchKindName(k.match),
                      std::to_string(k.layers), fixed(k.ops, 1), fixed(k.measured_ms, 3),
                      fixed(k.predicted_ms, 3),
                      pct(tracePercentError(k.predicted_ms, k.measured_ms))});
    out << "Per kind of layer\n" << kinds.render() << "\n";

    TextTable passes;
    passes.addColumn("pass", TextTable::Align::Left);
    for (const char* h : {"GPU busy ms", "span ms", "model ms", "error %"})
        passes.addColumn(h, TextTable::Align::Right);
    for (const TracePassComparison& p : c.passes)
        passes.addRow({tracePassName(p.pass), fixed(p.measured_busy_ms, 3),
                       fixed(p.measured_span_ms, 3), fixed(p.predicted_ms, 3),
                       pct(tracePercentError(p.predicted_ms, p.measured_span_ms))});
    out << "Per pass (error of the model against the span)\n" << passes.render() << "\n";

    out << "Iteration: measured " << fixed(c.measured_step_ms, 3) << " ms (median of " << c.steps
        << "), GPU busy " << fixed(c.measured_busy_ms, 3) << " ms; predicted "
        << fixed(c.predicted_step_ms, 3) << " ms (" << (c.training ? "iteration" : "forward pass")
        << "), error " << pct(tracePercentError(c.predicted_step_ms, c.measured_step_ms)) << " %\n";
    out << "Layers matched one to one: " << c.layers_matched
        << ", by kind only: " << c.layers_by_kind << "\n";
    if (!c.unmatched.empty()) {
        TextTable u;
        for (const char* h : {"unmatched op", "kind", "pass"})
            u.addColumn(h, TextTable::Align::Left);
        u.addColumn("per step", TextTable::Align::Right);
        u.addColumn("ms", TextTable::Align::Right);
        for (const TraceUnmatchedOp& op : c.unmatched)
            u.addRow({op.name.substr(0, 60), opKindName(op.kind), tracePassName(op.pass),
                      fixed(op.count, 1), fixed(op.measured_ms, 3)});
        out << "\nOps no layer stands for\n" << u.render() << "\n";
    }
    return out.str();
}

} // namespace iterscope::cli
