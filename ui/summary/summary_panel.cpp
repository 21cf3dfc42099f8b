#include "summary/summary_panel.h"

#include "summary/memory_bar.h"
#include "widgets/elided_label.h"
#include "widgets/format.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("iterscope::ui::SummaryPanel", text);
}

// One line of the summary. `text` turns a result into the value shown; `alarm` (optional)
// says when the value is bad news and is shown in red; `ms` (optional) is the part of the
// iteration time the line stands for, for the lines that add up to it.
struct FigureSpec {
    const char* key;
    const char* title;
    const char* tip;
    QString (*text)(const PredictionResult&);
    bool (*alarm)(const PredictionResult&) = nullptr;
    double (*ms)(const PredictionResult&) = nullptr;
};

// Why a strategy scales past 100 %: one GPU alone does work that the strategy takes off
// each GPU (docs/model.md "Scaling efficiency above 100 %"). Empty for data parallelism
// with the update on the GPUs, which cannot.
QString beyondLinearReason(const Scenario& s) {
    switch (s.parallel) {
    case ParallelStrategy::Hybrid:
        return tr("FC layers split over the GPUs");
    case ParallelStrategy::Pipeline:
        return tr("each GPU updates only its stage");
    case ParallelStrategy::Zero1:
    case ParallelStrategy::Zero2:
    case ParallelStrategy::Zero3:
        return tr("each GPU updates only its shard");
    case ParallelStrategy::Data:
        break;
    }
    switch (s.sync) {
    case SyncStrategy::PsGpu:
        return tr("each GPU updates only its shard");
    case SyncStrategy::PsCpu:
    case SyncStrategy::PsAsync:
    case SyncStrategy::DistributedReplicated:
        return tr("the update runs on the hosts' CPUs");
    default:
        break;
    }
    return {};
}

// The opened trace against the prediction: the measured step, the predicted one and how far
// off, and what the comparison rests on.
QString measuredText(const PredictionResult& r) {
    if (!r.trace || !r.trace->trace)
        return QStringLiteral("–");
    const TraceOverlay& o = *r.trace;
    const QString file = QFileInfo(o.trace->path).fileName();
    if (!o.error.isEmpty())
        return tr("not compared: %1").arg(o.error);
    const TraceComparison& c = o.comparison;
    // How far off first: the rest may be elided in a narrow window (the tooltip has it).
    const double error =
        c.measured_step_ms > 0 ? c.predicted_step_ms / c.measured_step_ms - 1 : std::nan("");
    // A GPU the host kept waiting: the model predicts one kept fed, so the step's error then
    // says more of the run than of the model, and the GPU's own busy time is the one to read.
    const QString busy = c.measured_busy_ms > 0 && c.measured_busy_ms < 0.8 * c.measured_step_ms
                             ? tr(", GPU busy only %1").arg(formatMs(c.measured_busy_ms))
                             : QString();
    QString text = tr("%1: %2 predicted, %3 measured %4%5 (%6, %7 of %8 layers matched)")
                       .arg(formatSignedPercent(error), formatMs(c.predicted_step_ms),
                            formatMs(c.measured_step_ms),
                            c.training ? tr("step") : tr("forward pass"), busy, file)
                       .arg(c.layers_matched)
                       .arg(static_cast<int>(c.layers.size()));
    if (!o.differs.isEmpty())
        text += tr("; traced with another %1").arg(o.differs.join(QStringLiteral(", ")));
    // Early in the line, where a narrow window still shows it.
    if (o.trace->batch_from == QLatin1String("assumed"))
        text.replace(0, text.indexOf(QLatin1Char(':')),
                     tr("%1 (batch %2 assumed: the trace does not say)")
                         .arg(text.left(text.indexOf(QLatin1Char(':'))))
                         .arg(o.trace->settings.batch));
    // Said first, before the percentage it voids: a tooltip or an elided tail is not read.
    if (o.other_network)
        text = tr("not this network (%1 of %2 layers matched), so not a check of it: %3")
                   .arg(c.layers_matched)
                   .arg(static_cast<int>(c.layers.size()))
                   .arg(text);
    return text;
}

bool hasCaveat(const PredictionResult& r, const char* id) {
    return std::any_of(r.caveats.begin(), r.caveats.end(),
                       [id](const ScenarioWarning& w) { return w.id == id; });
}

// Ops the reader did not know cost nothing here: the time is too short and the throughput
// too high by an unknown amount, which the error band does not cover (issue 31 saw
// 3,870,249,514 images/s shown as if it were a prediction).
bool leavesOpsOut(const PredictionResult& r) {
    return hasCaveat(r, "unknown-ops");
}

QString bandOf(double value, double low, double high) {
    const QString band = formatBand(value, low, high);
    return band.isEmpty() ? QString() : QStringLiteral("  ") + band;
}

const FigureSpec kFigures[] = {
    {"iteration", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Iteration time"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Predicted wall time of one synchronous training iteration: the lines "
                       "from Fwd / bwd / update to Input add up to it. The percentages are the "
                       "band in which 80% of comparable published measurements fell when their "
                       "GPU was left out of the fit: how far below and above the prediction "
                       "the real time may lie (docs/validation.md)"),
     [](const PredictionResult& r) {
         const double t = r.prediction.iteration_ms;
         if (leavesOpsOut(r))
             return tr("%1, unknown ops left out").arg(formatMs(t));
         return formatMs(t) + bandOf(t, r.iteration_ms_low, r.iteration_ms_high);
     },
     leavesOpsOut},
    {"throughput", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Throughput"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Images per second over all GPUs, and how far below and above it the "
                       "error band reaches"),
     [](const PredictionResult& r) {
         const double v = r.prediction.images_per_second;
         if (leavesOpsOut(r))
             return tr("%1 images/s, unknown ops left out").arg(formatRate(v));
         return tr("%1 images/s").arg(formatRate(v)) +
                bandOf(v, r.images_per_second_low, r.images_per_second_high);
     },
     leavesOpsOut},
    {"efficiency", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Scaling efficiency"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Throughput divided by GPU count × the throughput of one GPU alone at "
                       "the same batch per GPU, trained data-parallel with its update on the "
                       "GPU. Above 100 % the strategy takes work off each GPU that one GPU "
                       "alone must do, as the reason beside it says (docs/model.md)"),
     [](const PredictionResult& r) {
         if (r.settings.totalGpus() == 1)
             return tr("100 % (one GPU)");
         const QString of = tr("of %1 × %2/s")
                                .arg(r.settings.totalGpus())
                                .arg(formatRate(r.single_gpu_images_per_second));
         // Rounded as shown: 100.0 % needs no reason.
         if (r.scaling_efficiency >= 1.0005) {
             const QString why = beyondLinearReason(r.scenario);
             if (!why.isEmpty())
                 return tr("%1: %2").arg(formatPercent(r.scaling_efficiency), why);
         }
         return formatPercent(r.scaling_efficiency) + QLatin1Char(' ') + of;
     }},
    {"measured", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Measured (trace)"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "The opened profiler trace's step (the median of its steps; forward "
                       "only for an inference trace) against the prediction for the same "
                       "work, and how far the prediction is off. Layers are matched by kind "
                       "and order; the layer table's Measured column and the timeline's "
                       "Measured rows show them one by one (docs/calibrating.md)"),
     measuredText,
     [](const PredictionResult& r) { return r.trace && !r.trace->differs.isEmpty(); }},
    {"memory", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Memory per GPU"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Weights, gradients, optimizer state, activations kept for backward, "
                       "workspace and what the framework reserves, against the GPU's memory"),
     [](const PredictionResult& r) {
         return tr("%1 of %2")
             .arg(formatBytes(r.prediction.memory_per_gpu_bytes), formatBytes(r.gpu.memory_bytes));
     },
     [](const PredictionResult& r) { return !r.prediction.fits_in_memory; }},
    {"fits", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Fits in memory"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Whether the batch per GPU fits in the GPU's memory, and the largest "
                       "batch per GPU that does"),
     [](const PredictionResult& r) {
         const auto most = r.prediction.max_batch_that_fits;
         if (r.prediction.fits_in_memory)
             return tr("yes, up to batch %1").arg(most);
         return most > 0 ? tr("no — at most batch %1").arg(most) : tr("no — not even batch 1");
     },
     [](const PredictionResult& r) { return !r.prediction.fits_in_memory; }},
    {"passes", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Fwd / bwd / update"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Compute time of the forward pass, the backward pass and the optimizer "
                       "update on the GPU the iteration waits for (the slowest pipeline stage)"),
     [](const PredictionResult& r) {
         const auto& b = r.breakdown;
         return formatMsGroup({b.forward_ms, b.backward_ms, b.update_ms});
     },
     nullptr,
     [](const PredictionResult& r) {
         return r.breakdown.forward_ms + r.breakdown.backward_ms + r.breakdown.update_ms;
     }},
    {"exposed", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Exposed communication"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Gradient exchange (and a strategy's other transfers) not hidden behind "
                       "compute, of the exchange's total time, and the all-reduce algorithm "
                       "chosen"),
     [](const PredictionResult& r) {
         const auto& p = r.prediction;
         if (p.communication_ms <= 0 && r.breakdown.exposed_communication_ms <= 0)
             return tr("none");
         QString text =
             tr("%1 of %2")
                 .arg(formatMs(r.breakdown.exposed_communication_ms), formatMs(p.communication_ms));
         if (!p.allreduce_algorithm.empty())
             text += QStringLiteral(" (%1)").arg(QString::fromStdString(p.allreduce_algorithm));
         return text;
     },
     nullptr, [](const PredictionResult& r) { return r.breakdown.exposed_communication_ms; }},
    {"bubble", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Pipeline bubble"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Time the GPU the iteration waits for is idle between micro-batches, "
                       "waiting for the stages before or after it"),
     [](const PredictionResult& r) {
         const double idle = r.breakdown.idle_ms;
         if (r.scenario.parallel == ParallelStrategy::Pipeline && r.scenario.totalGpus() > 1)
             return tr("%1 (%2 stages, %3 micro-batches)")
                 .arg(formatMs(idle))
                 .arg(r.prediction.pipeline_stages)
                 .arg(r.prediction.micro_batches);
         return idle > 0 ? tr("%1 idle").arg(formatMs(idle)) : tr("none (not a pipeline)");
     },
     nullptr, [](const PredictionResult& r) { return r.breakdown.idle_ms; }},
    {"straggler", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Straggler wait"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "A synchronous step on several GPUs waits for the slowest of them; "
                       "asynchronous parameter servers make the workers wait when the servers "
                       "cannot keep up"),
     [](const PredictionResult& r) {
         const auto& b = r.breakdown;
         if (b.server_wait_ms > 0)
             return tr("%1 for the parameter servers")
                 .arg(formatMs(b.server_wait_ms + b.straggler_ms));
         if (b.straggler_ms > 0)
             return tr("%1 (slowest of %2 GPUs)")
                 .arg(formatMs(b.straggler_ms))
                 .arg(r.scenario.totalGpus());
         return r.scenario.totalGpus() == 1 ? tr("none (one GPU)") : tr("none");
     },
     nullptr,
     [](const PredictionResult& r) {
         return r.breakdown.straggler_ms + r.breakdown.server_wait_ms;
     }},
    {"input", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Input"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "What the iteration waits for its images: the host-to-GPU copy where no "
                       "compute hides it, and the host's CPU cores decoding and augmenting real "
                       "images (or DALI on the GPU) when they are slower than the GPU. "
                       "Synthetic data has no such cost (docs/model.md section 3)"),
     [](const PredictionResult& r) {
         const auto& b = r.breakdown;
         const auto& p = r.prediction;
         if (!r.scenario.realData())
             return tr("none (synthetic data)");
         QStringList waits;
         if (b.input_ms > 0)
             waits << tr("%1 copy").arg(formatMs(b.input_ms));
         if (b.input_wait_ms > 0)
             waits << tr("%1 decoding").arg(formatMs(b.input_wait_ms));
         const QString host = p.host_input_ms > 0 ? tr("%1 a batch").arg(formatMs(p.host_input_ms))
                                                  : tr("decoded on the GPU");
         if (waits.isEmpty())
             return tr("hidden (host decodes %1)").arg(host);
         return tr("%1 (%2)").arg(waits.join(QStringLiteral(" + ")), host);
     },
     [](const PredictionResult& r) { return r.prediction.input_bound; },
     [](const PredictionResult& r) { return r.breakdown.input_ms + r.breakdown.input_wait_ms; }},
};

// Which figures stand in which column: the headline, memory, and the lines that add up to
// the iteration, each group together.
const std::vector<std::vector<const char*>>& columnsOf(int columns) {
    static const std::vector<std::vector<const char*>> one = {
        {"iteration", "throughput", "efficiency", "measured", "passes", "exposed", "bubble",
         "straggler", "input", "memory", "fits"}};
    static const std::vector<std::vector<const char*>> two = {
        {"iteration", "throughput", "efficiency", "measured", "memory", "fits"},
        {"passes", "exposed", "bubble", "straggler", "input"}};
    static const std::vector<std::vector<const char*>> three = {
        {"iteration", "throughput", "efficiency", "measured"},
        {"passes", "exposed", "bubble", "straggler", "input"},
        {"memory", "fits"}};
    return columns >= 3 ? three : columns == 2 ? two : one;
}

// The caveats predict warns of that neither the figures nor the window's banner show
// already (a batch that does not fit and unknown ops have red figures and the banner),
// then the scenario's cautions and notes.
std::vector<const ScenarioWarning*> shownWarnings(const PredictionResult& r) {
    std::vector<const ScenarioWarning*> out;
    for (const ScenarioWarning& c : r.caveats) {
        const bool already = c.id == "does-not-fit" || c.id == "unknown-ops" ||
                             std::any_of(r.warnings.begin(), r.warnings.end(),
                                         [&c](const ScenarioWarning& w) { return w.id == c.id; });
        if (!already)
            out.push_back(&c);
    }
    for (const ScenarioWarning& w : r.warnings)
        out.push_back(&w);
    return out;
}

constexpr int kColumnWidthPx = 400; // what the longest value needs beside its name
const QColor kAlarm(0xd6, 0x27, 0x28);

} // namespace

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    m_columns_layout = new QHBoxLayout;
    m_columns_layout->setSpacing(24);
    layout->addLayout(m_columns_layout);
    for (const auto& spec : kFigures) {
        const QString tip = tr(spec.tip);
        auto* name = new QLabel(tr(spec.title) + QLatin1Char(':'), this);
        name->setToolTip(tip);
        auto* value = new ElidedLabel(this);
        value->setObjectName(QStringLiteral("figure_") + QLatin1String(spec.key));
        value->setExplanation(tip);
        value->setText(QStringLiteral("–"));
        // A second line where a figure's words need it (a strategy's reason, the input's
        // parts) rather than an ellipsis where the reader looks; the columns keep a line
        // to spare, so the strip does not grow with it at 1280×720.
        value->setMaxLines(2);
        QFont bold = value->font();
        bold.setBold(true);
        value->setFont(bold);
        m_rows.push_back({QLatin1String(spec.key), name, value});
        if (m_rows.back().key == QLatin1String("measured")) { // until a trace is open
            name->hide();
            value->hide();
        }
    }
    m_memory_bar = new MemoryBar(this);
    auto* bottom = new QHBoxLayout;
    m_messages = new QLabel(this);
    m_messages->setObjectName(QStringLiteral("summaryWarnings"));
    m_messages->setWordWrap(true);
    m_messages->setTextFormat(Qt::RichText);
    // A line kept even when there is nothing to say, so the first caveat or refusal does
    // not push the views down.
    m_messages->setMinimumHeight(fontMetrics().lineSpacing());
    m_messages->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_messages->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_messages, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("compare-base") && m_result)
            emit compareWithBaseRequested(
                QString::fromStdString(m_result->scenario.software.fitted_to.base));
    });
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("summaryState"));
    m_status->setMuted(true);
    m_status->setFixedWidth(fontMetrics().horizontalAdvance(tr("Computing…")) + 8);
    bottom->addWidget(m_messages, 1);
    bottom->addWidget(m_status, 0, Qt::AlignTop);
    layout->addLayout(bottom);
    arrange(2);
    setBusy(true);
}

void SummaryPanel::arrange(int columns) {
    if (columns == m_columns)
        return;
    m_columns = columns;
    for (QGridLayout* grid : m_column_grids) {
        m_columns_layout->removeItem(grid);
        delete grid; // the widgets stay, children of the panel
    }
    m_column_grids.clear();
    for (const auto& keys : columnsOf(columns)) {
        auto* grid = new QGridLayout;
        grid->setHorizontalSpacing(10);
        grid->setVerticalSpacing(3);
        grid->setColumnStretch(1, 1);
        for (const char* key : keys) {
            const auto row = std::find_if(m_rows.begin(), m_rows.end(), [key](const Row& r) {
                return r.key == QLatin1String(key);
            });
            const int at = grid->rowCount();
            grid->addWidget(row->name, at, 0);
            grid->addWidget(row->value, at, 1);
            if (row->key == QLatin1String("memory"))
                grid->addWidget(m_memory_bar, at + 1, 1); // the parts of that figure, under it
        }
        grid->setRowStretch(grid->rowCount(), 1);
        m_columns_layout->addLayout(grid, 1);
        m_column_grids.push_back(grid);
    }
}

void SummaryPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrange(std::clamp(event->size().width() / kColumnWidthPx, 1, 3));
}

QString SummaryPanel::figure(const QString& key) const {
    for (const auto& row : m_rows)
        if (row.key == key)
            return row.value->text();
    return {};
}

std::vector<std::pair<QString, double>> SummaryPanel::breakdownLines() const {
    std::vector<std::pair<QString, double>> lines;
    if (!m_result)
        return lines;
    for (const auto& spec : kFigures)
        if (spec.ms)
            lines.emplace_back(QLatin1String(spec.key), spec.ms(*m_result));
    return lines;
}

void SummaryPanel::setBusy(bool busy) {
    m_busy = busy;
    m_status->setText(busy ? tr("Computing…") : QString());
}

void SummaryPanel::setStale(bool stale) {
    m_stale = stale;
    for (const auto& row : m_rows)
        row.value->setFaded(stale);
    m_memory_bar->setFaded(stale);
}

void SummaryPanel::setError(const QString& error) {
    m_error = error;
    setStale(!error.isEmpty() && m_result);
    showMessages();
    emit updated();
}

void SummaryPanel::setResult(ResultPtr result) {
    m_result = std::move(result);
    m_error.clear();
    setStale(false);
    const std::size_t n = std::size(kFigures);
    for (std::size_t i = 0; i < n; ++i) {
        ElidedLabel* value = m_rows[i].value;
        // The measured line is there only while a trace is open.
        if (m_rows[i].key == QLatin1String("measured")) {
            const bool shown = m_result && m_result->trace;
            m_rows[i].name->setVisible(shown);
            value->setVisible(shown);
        }
        if (!m_result) {
            value->setText(QStringLiteral("–"));
            value->setTextColor({});
            continue;
        }
        value->setText(kFigures[i].text(*m_result));
        const bool alarm = kFigures[i].alarm && kFigures[i].alarm(*m_result);
        value->setTextColor(alarm ? kAlarm : QColor());
    }
    m_memory_bar->setMemory(m_result ? &m_result->prediction : nullptr,
                            m_result ? m_result->gpu.memory_bytes : 0);
    m_warning_texts.clear();
    if (m_result)
        for (const ScenarioWarning* w : shownWarnings(*m_result))
            m_warning_texts.append(QString::fromStdString(w->text));
    showMessages();
    emit updated();
}

void SummaryPanel::changeEvent(QEvent* event) {
    // A rich-text link keeps the colour it was parsed with (the light theme's blue, unreadable
    // on the dark one), so the notes name the palette's link colour and are parsed again when
    // the theme changes.
    if (event->type() == QEvent::PaletteChange) {
        m_shown_messages.clear();
        showMessages();
    }
    QWidget::changeEvent(event);
}

void SummaryPanel::showMessages() {
    QString html;
    if (!m_error.isEmpty())
        html += QStringLiteral("<p style='margin:0 0 3px 0; color:%1'><b>%2</b> %3</p>")
                    .arg(kAlarm.name(), tr("Not computed:"), m_error.toHtmlEscaped());
    if (m_result)
        for (const ScenarioWarning* shown : shownWarnings(*m_result)) {
            const ScenarioWarning& w = *shown;
            const bool caution = w.level == ScenarioWarning::Level::Caution;
            // Words, not symbols: warning glyphs are missing from many fonts.
            QString text = QString::fromStdString(w.text).toHtmlEscaped();
            // A profile fitted to the user's runs offers the one it started from as a
            // comparison curve, in one click.
            const std::string& base = m_result->scenario.software.fitted_to.base;
            if (w.id == "fitted-to-your-runs" && !base.empty())
                text += QStringLiteral(" <a href='compare-base' style='color:%1'>%2</a>")
                            .arg(palette().color(QPalette::Link).name(),
                                 tr("Compare with %1")
                                     .arg(QString::fromStdString(base))
                                     .toHtmlEscaped());
            html +=
                QStringLiteral("<p style='margin:0 0 3px 0'>%1 %2</p>")
                    .arg(caution ? tr("<b style='color:#e08a00'>Caution:</b>") : tr("<b>Note:</b>"),
                         text);
        }
    // The same text again on every slider step would relayout the strip for nothing.
    if (html == m_shown_messages)
        return;
    m_shown_messages = html;
    m_messages->setText(html);
}

} // namespace iterscope::ui
