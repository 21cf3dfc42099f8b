#include "summary_panel.h"

#include "elided_label.h"
#include "format.h"
#include "memory_bar.h"

#include <QCoreApplication>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("iterscope::ui::SummaryPanel", text);
}

// One line of the summary. `text` turns a result into the value shown; `alarm` (optional)
// says when the value is bad news and is shown in red.
struct FigureSpec {
    const char* key;
    const char* title;
    const char* tip;
    QString (*text)(const PredictionResult&);
    bool (*alarm)(const PredictionResult&) = nullptr;
};

// " ± 7 %" beside a figure; nothing where no band is known.
QString plusMinus(const ErrorBand& band) {
    if (band.rows <= 0)
        return {};
    return QStringLiteral(" ± %1 %").arg(band.plusMinusPercent(), 0, 'f', 0);
}

const FigureSpec kFigures[] = {
    {"iteration", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Iteration time"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Predicted wall time of one synchronous training iteration (forward, "
                       "backward, exposed gradient exchange and update). ± is half the width "
                       "of the band in which 80% of comparable published measurements fell "
                       "when their GPU was left out of the fit (docs/validation.md)"),
     [](const PredictionResult& r) {
         return formatMs(r.prediction.iteration_ms) + plusMinus(r.band);
     }},
    {"throughput", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Throughput"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Images per second over all GPUs, ± the error band's half width"),
     [](const PredictionResult& r) {
         return tr("%1 images/s").arg(formatRate(r.prediction.images_per_second)) +
                plusMinus(r.band);
     }},
    {"efficiency", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Scaling efficiency"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Throughput divided by GPU count × the throughput of one GPU at the same "
                       "batch per GPU"),
     [](const PredictionResult& r) {
         if (r.settings.totalGpus() == 1)
             return tr("100 % (one GPU)");
         // Short enough for one line at 1024 GPUs; the tooltip says what it means.
         return tr("%1 of %2 × %3/s")
             .arg(formatPercent(r.scaling_efficiency))
             .arg(r.settings.totalGpus())
             .arg(formatRate(r.single_gpu_images_per_second));
     }},
    {"passes", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Fwd / bwd / update"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Compute time of the forward pass, the backward pass and the optimizer "
                       "update on one GPU"),
     [](const PredictionResult& r) {
         const auto& p = r.prediction;
         return formatMsGroup({p.forward_ms, p.backward_ms, p.update_ms});
     }},
    {"exposed", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Exposed communication"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Gradient exchange time not hidden behind backward, of its total time, "
                       "and the all-reduce algorithm chosen"),
     [](const PredictionResult& r) {
         const auto& p = r.prediction;
         if (p.communication_ms <= 0)
             return tr("none");
         QString text =
             tr("%1 of %2").arg(formatMs(p.exposed_communication_ms), formatMs(p.communication_ms));
         if (!p.allreduce_algorithm.empty())
             text += QStringLiteral(" (%1)").arg(QString::fromStdString(p.allreduce_algorithm));
         return text;
     }},
    {"input", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Input pipeline"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Real images are decoded and augmented by the host's CPU cores (or DALI on "
                       "the GPU): the time the node's cores take for one batch per GPU, and how "
                       "much longer the iteration is for waiting on them. Synthetic data has no "
                       "such cost (docs/model.md section 3)"),
     [](const PredictionResult& r) {
         const auto& p = r.prediction;
         if (!r.scenario.realData())
             return tr("synthetic data");
         if (p.host_input_ms <= 0)
             return tr("real data, decoded on the GPU or not capped");
         if (!p.input_bound)
             return tr("host decodes a batch in %1 (hidden)").arg(formatMs(p.host_input_ms));
         return tr("host-bound: %1 a batch, +%2 wait")
             .arg(formatMs(p.host_input_ms), formatMs(p.input_wait_ms));
     },
     [](const PredictionResult& r) { return r.prediction.input_bound; }},
    {"memory", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Memory per GPU"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Weights, gradients, optimizer state, activations kept for backward and "
                       "workspace, against the GPU's memory"),
     [](const PredictionResult& r) {
         return tr("%1 of %2")
             .arg(formatBytes(r.prediction.memory_per_gpu_bytes), formatBytes(r.gpu.memory_bytes));
     },
     [](const PredictionResult& r) { return !r.prediction.fits_in_memory; }},
    {"fits", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Fits in memory"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "Whether the batch per GPU fits in the GPU's memory"),
     [](const PredictionResult& r) {
         return r.prediction.fits_in_memory ? tr("yes") : tr("no — the batch does not fit");
     },
     [](const PredictionResult& r) { return !r.prediction.fits_in_memory; }},
    {"max_batch", QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel", "Largest batch that fits"),
     QT_TRANSLATE_NOOP("iterscope::ui::SummaryPanel",
                       "The largest batch per GPU whose memory fits on the GPU"),
     [](const PredictionResult& r) {
         return r.prediction.max_batch_that_fits > 0
                    ? QString::number(r.prediction.max_batch_that_fits)
                    : tr("none (not even batch 1)");
     }},
};

const QColor kAlarm(0xd6, 0x27, 0x28);

} // namespace

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_grid = new QGridLayout;
    m_grid->setHorizontalSpacing(12);
    m_grid->setVerticalSpacing(3);
    m_grid->setColumnStretch(1, 1);
    layout->addLayout(m_grid);
    for (const auto& spec : kFigures) {
        const QString tip = tr(spec.tip);
        auto* name = new QLabel(tr(spec.title) + QLatin1Char(':'), this);
        name->setToolTip(tip);
        auto* value = new ElidedLabel(this);
        value->setObjectName(QStringLiteral("figure_") + QLatin1String(spec.key));
        value->setExplanation(tip);
        value->setText(QStringLiteral("–"));
        QFont bold = value->font();
        bold.setBold(true);
        value->setFont(bold);
        const int row = m_grid->rowCount();
        m_grid->addWidget(name, row, 0);
        m_grid->addWidget(value, row, 1);
        m_rows.push_back({QLatin1String(spec.key), value});
        if (QLatin1String(spec.key) == QLatin1String("memory")) {
            // The parts of that figure, right under it.
            m_memory_bar = new MemoryBar(this);
            m_grid->addWidget(m_memory_bar, row + 1, 1);
        }
    }
    // One line, always there: appearing and vanishing would move the controls below.
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("summaryState"));
    layout->addWidget(m_status);
    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("summaryWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::RichText);
    m_warnings->hide();
    layout->addWidget(m_warnings);
    setBusy(true);
}

QString SummaryPanel::figure(const QString& key) const {
    for (const auto& row : m_rows)
        if (row.key == key)
            return row.value->text();
    return {};
}

void SummaryPanel::setBusy(bool busy) {
    m_busy = busy;
    if (m_has_error)
        return; // the refusal stays readable until a result replaces it
    m_status->setTextColor({});
    m_status->setMuted(true);
    m_status->setText(busy ? tr("Computing…") : QString());
}

void SummaryPanel::setError(const QString& error) {
    m_has_error = !error.isEmpty();
    m_status->setMuted(false);
    m_status->setTextColor(m_has_error ? kAlarm : QColor());
    m_status->setText(error);
    m_status->setExplanation(error);
    if (!m_has_error)
        setBusy(m_busy);
    emit updated();
}

void SummaryPanel::setResult(ResultPtr result) {
    if (m_has_error)
        setError({});
    const std::size_t n = std::size(kFigures);
    for (std::size_t i = 0; i < n; ++i) {
        ElidedLabel* value = m_rows[i].value;
        if (!result) {
            value->setText(QStringLiteral("–"));
            value->setTextColor({});
            continue;
        }
        value->setText(kFigures[i].text(*result));
        const bool alarm = kFigures[i].alarm && kFigures[i].alarm(*result);
        value->setTextColor(alarm ? kAlarm : QColor());
    }
    m_memory_bar->setMemory(result ? &result->prediction : nullptr,
                            result ? result->gpu.memory_bytes : 0);
    showWarnings(result ? result->warnings : std::vector<ScenarioWarning>{});
    emit updated();
}

void SummaryPanel::showWarnings(const std::vector<ScenarioWarning>& warnings) {
    QStringList texts;
    QString html;
    for (const auto& w : warnings) {
        const QString text = QString::fromStdString(w.text);
        texts.append(text);
        const bool caution = w.level == ScenarioWarning::Level::Caution;
        // Words, not symbols: warning glyphs are missing from many fonts.
        html += QStringLiteral("<p style='margin:0 0 3px 0'>%1 %2</p>")
                    .arg(caution ? tr("<b style='color:#e08a00'>Caution:</b>") : tr("<b>Note:</b>"),
                         text.toHtmlEscaped());
    }
    // Warnings follow the GPU, system, software and precision only: setting the same text
    // again on every slider step would relayout the panel for nothing.
    if (texts == m_warning_texts)
        return;
    m_warning_texts = texts;
    m_warnings->setText(html);
    m_warnings->setVisible(!texts.isEmpty());
}

} // namespace iterscope::ui
