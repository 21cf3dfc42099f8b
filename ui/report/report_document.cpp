#include "report/report_document.h"

#include "charts/curve_values.h"
#include "layers/layer_names.h"
#include "layers/layer_tree.h"
#include "widgets/format.h"

#include "model/breakdown.h"
#include "validation/error_band.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("ReportDocument", text);
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// "1.13×": ratios of throughputs, as a purchase is argued.
QString ratio(double value) {
    return QStringLiteral("%1×").arg(QLocale().toString(value, 'f', value >= 10 ? 1 : 2));
}

// The figure, then its band in brackets where one is known.
QString withBand(const QString& figure, double value, double low, double high) {
    const QString band = formatBand(value, low, high);
    return band.isEmpty() ? figure : QStringLiteral("%1 (%2)").arg(figure, band);
}

class Builder {
  public:
    explicit Builder(ReportDocument& doc)
        : m_doc(doc) {}
    void heading(const QString& text) { add(ReportBlock::Type::Heading, text); }
    void paragraph(const QString& text) { add(ReportBlock::Type::Paragraph, text); }
    void warning(const QString& text) { add(ReportBlock::Type::Warning, text); }
    void note(const QString& text) { add(ReportBlock::Type::Note, text); }
    void figure(ReportFigure figure, const QString& caption) {
        ReportBlock b;
        b.type = ReportBlock::Type::Figure;
        b.figure = figure;
        b.text = caption;
        m_doc.blocks.push_back(std::move(b));
    }
    void table(ReportTable table, const QString& caption = {}) {
        ReportBlock b;
        b.type = ReportBlock::Type::Table;
        b.table = std::move(table);
        b.text = caption;
        m_doc.blocks.push_back(std::move(b));
    }

  private:
    void add(ReportBlock::Type type, const QString& text) {
        ReportBlock b;
        b.type = type;
        b.text = text;
        m_doc.blocks.push_back(std::move(b));
    }
    ReportDocument& m_doc;
};

void addWarnings(Builder& out, const ReportData& data) {
    const PredictionResult& r = *data.current;
    QStringList cautions, notes;
    for (const auto& w : r.caveats)
        cautions << q(w.text);
    for (const auto& w : r.warnings)
        (w.level == ScenarioWarning::Level::Caution ? cautions : notes) << q(w.text);
    if (r.trace && r.trace->other_network)
        cautions << tr("The trace %1 is most likely of another network: %2 of %3 layers "
                       "matched its ops, so its step says nothing of this prediction.")
                        .arg(QFileInfo(r.trace->trace->path).fileName())
                        .arg(r.trace->comparison.layers_matched)
                        .arg(r.prediction.layers.size());
    cautions.removeDuplicates();
    notes.removeDuplicates();
    if (cautions.isEmpty() && notes.isEmpty())
        return;
    out.heading(tr("Warnings"));
    for (const QString& w : cautions)
        out.warning(w);
    for (const QString& n : notes)
        out.note(n);
}

void addSummary(Builder& out, const PredictionResult& r) {
    const Prediction& p = r.prediction;
    out.heading(tr("Summary"));
    ReportTable t;
    t.header = {tr("Figure"), tr("Value")};
    t.numeric_columns = {1};
    t.rows.append(
        QStringList{tr("Iteration time"), withBand(formatMs(p.iteration_ms), p.iteration_ms,
                                                   r.iteration_ms_low, r.iteration_ms_high)});
    t.rows.append(QStringList{tr("Throughput, all GPUs"),
                              withBand(formatRate(p.images_per_second), p.images_per_second,
                                       r.images_per_second_low, r.images_per_second_high)});
    t.rows.append(QStringList{tr("Throughput, one GPU at the same batch"),
                              formatRate(r.single_gpu_images_per_second)});
    t.rows.append(QStringList{tr("Scaling efficiency"), formatPercent(r.scaling_efficiency)});
    t.rows.append(QStringList{tr("Memory per GPU"),
                              p.fits_in_memory
                                  ? tr("%1, fits").arg(formatBytes(p.memory_per_gpu_bytes))
                                  : tr("%1, does NOT fit (largest batch that fits: %2)")
                                        .arg(formatBytes(p.memory_per_gpu_bytes))
                                        .arg(p.max_batch_that_fits)});
    out.table(t);
    if (r.band.rows > 0)
        out.paragraph(
            tr("Error band: the true throughput lies within %1 of the prediction with "
               "80 % coverage, from the held-out errors of %2%3.")
                .arg(formatBand(p.images_per_second, r.images_per_second_low,
                                r.images_per_second_high),
                     q(r.band.basis),
                     r.band.extrapolated ? tr(" (widened: beyond the measured data)") : QString()));
    else
        out.paragraph(tr("No error band is known for this scenario."));
    ReportTable parts;
    parts.header = {tr("Where the iteration goes"), tr("Time"), tr("Share")};
    parts.numeric_columns = {1, 2};
    const double total = r.breakdown.totalMs();
    for (const BreakdownPart& part : breakdownParts(r.breakdown))
        if (part.ms > 0)
            parts.rows.append(QStringList{q(part.label), formatMs(part.ms),
                                          formatPercent(total > 0 ? part.ms / total : 0)});
    parts.rows.append(QStringList{tr("iteration"), formatMs(total), formatPercent(1)});
    out.table(parts, tr("The parts follow the GPU group whose work ends last; they add up to "
                        "the iteration."));
}

void addScalingTables(Builder& out, const ReportData& data) {
    // The table the Values button shows under the charts, so both read the same.
    QList<PinnedCurves> pins;
    for (const ResultPtr& pin : data.pins)
        pins.append({pin->settings, pin->curves, pin->label});
    for (const bool by_gpus : {true, false}) {
        const CurveValues values = curveValues(data.current, pins, by_gpus);
        ReportTable t;
        t.header = values.header;
        t.rows = values.rows;
        for (int c = 0; c < values.header.size(); ++c)
            if (c != 2) // the band's "low – high" reads as text
                t.numeric_columns.append(c);
        out.table(t, by_gpus ? tr("The values plotted over GPU count.")
                             : tr("The values plotted over batch per GPU."));
    }
}

void addCostliestLayers(Builder& out, const PredictionResult& r) {
    const auto& layers = r.prediction.layers;
    std::vector<std::size_t> order(layers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto cost = [&](std::size_t i) { return layers[i].forward_ms + layers[i].backward_ms; };
    const std::size_t n = std::min<std::size_t>(15, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
    double all = 0;
    for (const auto& t : layers)
        all += t.forward_ms + t.backward_ms;
    ReportTable t;
    t.header = {tr("Layer (module path and op)"), tr("Forward"), tr("Backward"), tr("Share")};
    t.numeric_columns = {1, 2, 3};
    for (std::size_t k = 0; k < n; ++k) {
        const LayerTiming& lt = layers[order[k]];
        t.rows.append(QStringList{r.layerNameWithOp(lt.layer), formatMs(lt.forward_ms),
                                  formatMs(lt.backward_ms),
                                  formatPercent(all > 0 ? cost(order[k]) / all : 0)});
    }
    out.table(t, tr("Share: of all layers' compute, forward and backward."));
}

void addModules(Builder& out, const PredictionResult& r) {
    const auto& layers = r.prediction.layers;
    if (!r.network || layers.empty())
        return;
    std::vector<QString> names;
    names.reserve(layers.size());
    for (const LayerTiming& t : layers)
        names.push_back(t.layer < r.network->network.layers.size()
                            ? q(r.network->network.layers[t.layer].name)
                            : r.layerName(t.layer));
    const LayerTree tree = layerTree(names);
    if (!tree.hasModules())
        return;
    double all = 0;
    for (const auto& t : layers)
        all += t.forward_ms + t.backward_ms;
    out.heading(tr("Layers by module"));
    ReportTable table;
    table.header = {tr("Module"), tr("Layers"), tr("Forward"), tr("Backward"), tr("Share")};
    table.numeric_columns = {1, 2, 3, 4};
    for (const int top : tree.top) {
        double fwd = 0, bwd = 0;
        int count = 0;
        std::vector<int> stack{top};
        while (!stack.empty()) {
            const LayerTree::Node& node = tree.nodes[static_cast<std::size_t>(stack.back())];
            stack.pop_back();
            if (node.timing >= 0) {
                const LayerTiming& lt = layers[static_cast<std::size_t>(node.timing)];
                fwd += lt.forward_ms;
                bwd += lt.backward_ms;
                ++count;
            }
            stack.insert(stack.end(), node.children.begin(), node.children.end());
        }
        const LayerTree::Node& node = tree.nodes[static_cast<std::size_t>(top)];
        const QString name =
            node.timing >= 0
                ? r.layerNameWithOp(layers[static_cast<std::size_t>(node.timing)].layer)
                : node.label;
        table.rows.append(QStringList{name, QString::number(count), formatMs(fwd), formatMs(bwd),
                                      formatPercent(all > 0 ? (fwd + bwd) / all : 0)});
    }
    out.table(table, tr("The network's top-level modules, in network order."));
}

void addComparison(Builder& out, const ReportData& data) {
    if (data.pins.isEmpty())
        return;
    out.heading(tr("Comparison with the pinned scenarios"));
    QList<ScenarioLabel> labels{data.current->label};
    for (const ResultPtr& pin : data.pins)
        labels.append(pin->label);
    const LegendTexts texts = legendTexts(labels);
    if (!texts.shared.isEmpty())
        out.paragraph(tr("All share: %1.").arg(texts.shared));
    ReportTable t;
    t.header = {tr("Scenario"), tr("What it has of its own"), tr("Iteration"), tr("images/s"),
                tr("Current against it")};
    t.numeric_columns = {2, 3, 4};
    const auto row = [&](const QString& who, const QString& own, const PredictionResult& r) {
        const double cur = data.current->prediction.images_per_second;
        const double its = r.prediction.images_per_second;
        t.rows.append(QStringList{
            who, own, formatMs(r.prediction.iteration_ms),
            withBand(formatRate(its), its, r.images_per_second_low, r.images_per_second_high) +
                (r.prediction.fits_in_memory ? QString() : tr(", does not fit")),
            its > 0 ? ratio(cur / its) : QStringLiteral("–")});
    };
    row(tr("Current"), texts.own.value(0), *data.current);
    for (qsizetype i = 0; i < data.pins.size(); ++i)
        row(tr("Pin %1").arg(i + 1), texts.own.value(i + 1), *data.pins[i]);
    out.table(t, tr("Current against it: the current scenario's images/s over the pin's."));
}

void addPlan(Builder& out, const ReportData& data) {
    if (!data.plan)
        return;
    const PlanChoices& c = data.plan_choices;
    out.heading(tr("Plan: the fastest and the cheapest way to train"));
    QStringList constraints;
    const QLocale locale;
    constraints << tr("%1 epochs of %2 images")
                       .arg(locale.toString(c.epochs),
                            locale.toString(static_cast<qlonglong>(c.dataset_images)));
    constraints << tr("at most %1 GPUs").arg(locale.toString(c.constraints.max_gpus));
    constraints << (c.constraints.max_global_batch
                        ? tr("global batch at most %1")
                              .arg(locale.toString(
                                  static_cast<qlonglong>(*c.constraints.max_global_batch)))
                        : tr("any global batch"));
    if (c.constraints.deadline_hours)
        constraints << tr("deadline %1 h").arg(locale.toString(*c.constraints.deadline_hours));
    if (c.constraints.budget_usd)
        constraints << tr("budget $%1").arg(locale.toString(*c.constraints.budget_usd, 'f', 0));
    out.paragraph(tr("Every shipped GPU and system, with %1.").arg(constraints.join(tr(", "))));
    const PlanChart chart = planChart(*data.plan, c, QSize(800, 600));
    const PlanSelection& s = chart.selection;
    ReportTable t;
    t.header = {tr("Choice"), tr("Configuration, time, cost and energy")};
    if (s.fastest)
        t.rows.append(QStringList{
            tr("Fastest"),
            shortCandidate(*data.plan, retimed(data.plan->candidates[*s.fastest], chart.scale))});
    if (s.cheapest)
        t.rows.append(QStringList{
            tr("Cheapest"),
            shortCandidate(*data.plan, retimed(data.plan->candidates[*s.cheapest], chart.scale))});
    if (t.rows.isEmpty())
        out.warning(tr("No configuration meets these constraints."));
    else
        out.table(t, tr("%1 of %2 configurations meet the constraints; %3 of them are priced.")
                         .arg(s.meeting_constraints)
                         .arg(data.plan->candidates.size())
                         .arg(s.priced));
}

void addMeasured(Builder& out, const ReportData& data) {
    const PredictionResult& r = *data.current;
    const std::vector<MeasuredPoint> points = measuredPointsFor(data.measurements, r.settings);
    const bool trace = r.trace && r.trace->trace && r.trace->error.isEmpty();
    if (points.empty() && !trace && data.measurements.empty())
        return;
    out.heading(tr("Measured runs"));
    if (!data.measurements.empty()) {
        if (points.empty())
            out.paragraph(tr("%1: none of its %2 rows measured this network on this GPU at this "
                             "precision.")
                              .arg(QFileInfo(data.measurements_file).fileName())
                              .arg(data.measurements.size()));
        else {
            ReportTable t;
            t.header = {tr("Run"), tr("GPUs"), tr("Batch per GPU"), tr("Measured images/s")};
            t.numeric_columns = {1, 2, 3};
            for (const MeasuredPoint& p : points)
                t.rows.append(QStringList{p.label, QString::number(p.gpus),
                                          QString::number(p.batch),
                                          formatRate(p.images_per_second)});
            out.table(t, tr("Rows of %1 that measured this network, GPU and precision.")
                             .arg(QFileInfo(data.measurements_file).fileName()));
        }
    }
    if (trace) {
        const TraceOverlay& o = *r.trace;
        const auto& cmp = o.comparison;
        ReportTable t;
        t.header = {tr("Trace %1").arg(QFileInfo(o.trace->path).fileName()), tr("Value")};
        t.numeric_columns = {1};
        t.rows.append(QStringList{tr("Steps"), QString::number(cmp.steps)});
        t.rows.append(QStringList{tr("Measured step (median)"), formatMs(cmp.measured_step_ms)});
        t.rows.append(QStringList{tr("Predicted step"), formatMs(cmp.predicted_step_ms)});
        if (const auto e = tracePercentError(cmp.predicted_step_ms, cmp.measured_step_ms))
            t.rows.append(
                QStringList{tr("Prediction against the trace"), formatSignedPercent(*e / 100)});
        t.rows.append(
            QStringList{tr("Layers matched one to one"),
                        tr("%1 of %2").arg(cmp.layers_matched).arg(r.prediction.layers.size())});
        if (o.images_per_second > 0)
            t.rows.append(QStringList{tr("Traced images/s"), formatRate(o.images_per_second)});
        out.table(
            t,
            o.differs.isEmpty()
                ? QString()
                : tr("The trace ran another scenario: %1 differ.").arg(o.differs.join(tr(", "))));
    }
}

void addAppendix(Builder& out, const PredictionResult& r) {
    out.heading(tr("Appendix: assumptions"));
    out.paragraph(tr("The model is analytic (Pei et al., IEEE Access 7, 2019, "
                     "doi 10.1109/ACCESS.2019.2916550, extended): nothing here is a measurement "
                     "looked up. These are the profiles it read."));
    const SoftwareProfile& sw = r.scenario.software;
    // Paragraphs, not a table: a source runs to a paragraph of its own, and beside it the
    // names were squeezed to a word a line.
    const auto profile = [&](const QString& kind, const std::string& name, const std::string& id,
                             const std::string& source) {
        out.paragraph(
            tr("%1: %2 (%3). Source: %4")
                .arg(kind, q(name), q(id), source.empty() ? tr("none given") : q(source)));
    };
    profile(tr("GPU"), r.gpu.name, r.gpu.id, r.gpu.source);
    profile(tr("System"), r.system.name, r.system.id, r.system.source);
    profile(tr("Software"), sw.name, sw.id, sw.source);
    ReportTable fitted;
    fitted.header = {tr("Software parameter (fitted to published runs)"), tr("Value")};
    fitted.numeric_columns = {1};
    const auto add = [&](const QString& name, double value, int decimals = 3) {
        fitted.rows.append(QStringList{name, QLocale().toString(value, 'f', decimals)});
    };
    add(tr("convolution efficiency, FP32 lanes"), sw.conv_efficiency);
    add(tr("fully connected efficiency, FP32 lanes"), sw.fc_efficiency);
    add(tr("tensor-core efficiency"), sw.tensor_core_efficiency);
    add(tr("memory-bound kernel efficiency"), sw.memory_efficiency);
    add(tr("per-layer dispatch overhead, µs"), sw.per_layer_overhead_us, 2);
    add(tr("gap between kernels, µs"), sw.kernel_gap_us, 2);
    add(tr("NCCL share of link bandwidth"), sw.nccl_efficiency);
    add(tr("network share of the NICs"), sw.network_efficiency);
    add(tr("run-to-run spread of a GPU's step (CV)"), sw.sync_jitter, 4);
    out.table(fitted, tr("Each profile file says which of its values were fitted and how."));
    // The accuracy of this kind of prediction, as the fit measured it on rows held out.
    if (const ErrorClass* c = errorClassFor(shippedErrorBands(), r.scenario)) {
        const auto pct = [](double log) { return formatPercent(std::exp(log) - 1); };
        out.paragraph(
            tr("Measured accuracy of this kind of prediction (%1 architecture, %2 precision, %3): "
               "on %4 published runs, each predicted with its whole source left out of the fit, "
               "the root-mean-square error was %5 of throughput and 80 % of the runs were within "
               "%6.")
                .arg(c->architecture == "*" ? tr("any") : q(c->architecture),
                     c->precision == "*" ? tr("any") : q(c->precision),
                     c->scale < 0 ? tr("any scale") : q(bandScaleName(BandScale(c->scale))))
                .arg(c->rows)
                .arg(pct(c->rms_log), pct(c->half_width_log)));
    } else if (r.band.rows > 0) {
        out.paragraph(tr("Measured accuracy: the band comes from %1.").arg(q(r.band.basis)));
    }
}

} // namespace

QString ReportDocument::plainText() const {
    QStringList lines{title, subtitle};
    for (const ReportBlock& b : blocks) {
        if (!b.text.isEmpty())
            lines << b.text;
        if (b.type == ReportBlock::Type::Table) {
            lines << b.table.header.join(QLatin1Char('\t'));
            for (const QStringList& row : b.table.rows)
                lines << row.join(QLatin1Char('\t'));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

ReportDocument reportDocument(const ReportData& data) {
    ReportDocument doc;
    const PredictionResult& r = *data.current;
    doc.title = tr("Iterscope report: %1 on %2 × %3")
                    .arg(q(r.scenario.network ? r.scenario.network->network.name : std::string()),
                         QString::number(r.settings.totalGpus()), q(r.gpu.name));
    doc.subtitle = tr("Predicted by Iterscope on %1.")
                       .arg(QLocale().toString(QDate::currentDate(), QLocale::LongFormat));
    Builder out(doc);
    out.heading(tr("Scenario"));
    out.paragraph(labelText(r.label));
    addWarnings(out, data);
    addSummary(out, r);
    out.heading(tr("Timeline of one iteration"));
    out.figure(ReportFigure::Timeline, tr("Every stream of one iteration, as predicted."));
    out.heading(tr("Scaling"));
    out.figure(ReportFigure::Scaling, tr("Throughput (log scale) and scaling efficiency, with "
                                         "every pinned scenario."));
    addScalingTables(out, data);
    out.heading(tr("Costliest layers"));
    out.figure(ReportFigure::Layers, tr("The 15 layers that take longest, forward and backward."));
    addCostliestLayers(out, r);
    addModules(out, r);
    addComparison(out, data);
    addPlan(out, data);
    addMeasured(out, data);
    addAppendix(out, r);
    return doc;
}

} // namespace iterscope::ui
