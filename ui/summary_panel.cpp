#include "summary_panel.h"

#include "format.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace iterscope::ui {

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_grid = new QGridLayout;
    m_grid->setHorizontalSpacing(12);
    m_grid->setVerticalSpacing(3);
    m_grid->setColumnStretch(1, 1);
    layout->addLayout(m_grid);
    addFigure(QStringLiteral("iteration"), tr("Iteration time"),
              tr("Predicted wall time of one synchronous training iteration (forward, "
                 "backward, exposed gradient exchange and update)"));
    addFigure(QStringLiteral("throughput"), tr("Throughput"),
              tr("Images per second over all GPUs"));
    addFigure(QStringLiteral("efficiency"), tr("Scaling efficiency"),
              tr("Throughput divided by GPU count × the throughput of one GPU at the same "
                 "batch per GPU"));
    addFigure(QStringLiteral("passes"), tr("Forward / backward / update"),
              tr("Compute time of the passes on one GPU"));
    addFigure(QStringLiteral("exposed"), tr("Exposed communication"),
              tr("Gradient exchange time not hidden behind backward, of its total time"));
    addFigure(QStringLiteral("memory"), tr("Memory per GPU"),
              tr("Weights, gradients, optimizer state, activations kept for backward and "
                 "workspace, against the GPU's memory"));
    addFigure(QStringLiteral("fits"), tr("Fits in memory"),
              tr("Whether the batch per GPU fits in the GPU's memory"));
    addFigure(QStringLiteral("max_batch"), tr("Largest batch that fits"),
              tr("The largest batch per GPU whose memory fits on the GPU"));
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("summaryError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d62728"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();
    layout->addWidget(m_error);
    m_state = new QLabel(tr("Computing…"), this);
    m_state->setObjectName(QStringLiteral("summaryState"));
    m_state->setEnabled(false);
    layout->addWidget(m_state);
}

QLabel* SummaryPanel::addFigure(const QString& key, const QString& title, const QString& tip) {
    auto* name = new QLabel(title + QLatin1Char(':'), this);
    auto* value = new QLabel(QStringLiteral("–"), this);
    value->setObjectName(QStringLiteral("figure_") + key);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    QFont bold = value->font();
    bold.setBold(true);
    value->setFont(bold);
    name->setToolTip(tip);
    value->setToolTip(tip);
    m_grid->addWidget(name, m_rows, 0);
    m_grid->addWidget(value, m_rows, 1);
    ++m_rows;
    return value;
}

QString SummaryPanel::figure(const QString& key) const {
    const auto* label = findChild<QLabel*>(QStringLiteral("figure_") + key);
    return label ? label->text() : QString();
}

void SummaryPanel::setBusy(bool busy) {
    m_state->setText(busy ? tr("Computing…") : QString());
    m_state->setVisible(busy);
}

void SummaryPanel::setError(const QString& error) {
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    emit updated();
}

void SummaryPanel::setResult(ResultPtr result) {
    const auto set = [this](const char* key, const QString& text) {
        if (auto* label = findChild<QLabel*>(QStringLiteral("figure_") + QLatin1String(key)))
            label->setText(text);
    };
    m_error->hide();
    if (!result) {
        for (const char* key : {"iteration", "throughput", "efficiency", "passes", "exposed",
                                "memory", "fits", "max_batch"})
            set(key, QStringLiteral("–"));
        emit updated();
        return;
    }
    const auto& p = result->prediction;
    set("iteration", formatMs(p.iteration_ms));
    set("throughput", tr("%1 images/s").arg(formatRate(p.images_per_second)));
    set("efficiency", result->settings.totalGpus() == 1
                          ? tr("100 % (one GPU)")
                          : tr("%1 of %2 × one GPU's %3 images/s")
                                .arg(formatPercent(result->scaling_efficiency))
                                .arg(result->settings.totalGpus())
                                .arg(formatRate(result->single_gpu_images_per_second)));
    set("passes", QStringLiteral("%1 / %2 / %3")
                      .arg(formatMs(p.forward_ms), formatMs(p.backward_ms), formatMs(p.update_ms)));
    set("exposed",
        p.communication_ms > 0
            ? tr("%1 of %2%3")
                  .arg(formatMs(p.exposed_communication_ms), formatMs(p.communication_ms),
                       p.allreduce_algorithm.empty()
                           ? QString()
                           : QStringLiteral(" (%1)").arg(
                                 QString::fromStdString(p.allreduce_algorithm)))
            : tr("none"));
    set("memory",
        tr("%1 of %2")
            .arg(formatBytes(p.memory_per_gpu_bytes), formatBytes(result->gpu.memory_bytes)));
    auto* fits = findChild<QLabel*>(QStringLiteral("figure_fits"));
    fits->setText(p.fits_in_memory ? tr("yes") : tr("no — the batch does not fit"));
    // A style sheet re-polishes the label: set it only when the state flips.
    const QString style = p.fits_in_memory ? QString() : QStringLiteral("color: #d62728");
    if (fits->styleSheet() != style)
        fits->setStyleSheet(style);
    set("max_batch", p.max_batch_that_fits > 0 ? QString::number(p.max_batch_that_fits)
                                               : tr("none (not even batch 1)"));
    emit updated();
}

} // namespace iterscope::ui
