#include "summary/memory_bar.h"

#include "widgets/format.h"

#include "model/prediction.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace iterscope::ui {
namespace {
constexpr int kBarHeight = 10;
constexpr int kGap = 3;
constexpr int kLegendLines = 2; // six names in the narrowest column

// Model state in blues and greens, per-sample memory in warm hues, the rest grey: what
// sharding shrinks and what the batch grows read apart at a glance.
const QColor kWeights(0x4c, 0x8b, 0xf5);
const QColor kGradients(0x26, 0xa6, 0x9a);
const QColor kOptimizer(0x9c, 0x6a, 0xde);
const QColor kActivations(0xf0, 0x8c, 0x2e);
const QColor kWorkspace(0xd9, 0x53, 0x4f);
const QColor kOther(0x9e, 0x9e, 0x9e);
} // namespace

MemoryBar::MemoryBar(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("memoryBar"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMemory(nullptr, 0);
}

QSize MemoryBar::sizeHint() const {
    return {200, kBarHeight + kGap + kLegendLines * fontMetrics().height()};
}

QSize MemoryBar::minimumSizeHint() const {
    return {60, sizeHint().height()};
}

void MemoryBar::setFaded(bool faded) {
    if (faded == m_faded)
        return;
    m_faded = faded;
    update();
}

void MemoryBar::setMemory(const Prediction* p, int64_t capacity_bytes) {
    m_capacity = std::max<int64_t>(0, capacity_bytes);
    int64_t parts = 0;
    if (p)
        parts = p->weights_bytes + p->gradients_bytes + p->optimizer_bytes + p->activations_bytes +
                p->workspace_bytes;
    // All six always, in this order: the legend names every kind and never reflows while
    // a slider moves. The framework's reserve and a strategy's transient buffers are in
    // the total only.
    const std::vector<Part> next = {
        {tr("weights"), p ? p->weights_bytes : 0, kWeights},
        {tr("gradients"), p ? p->gradients_bytes : 0, kGradients},
        {tr("optimizer"), p ? p->optimizer_bytes : 0, kOptimizer},
        {tr("activations"), p ? p->activations_bytes : 0, kActivations},
        {tr("workspace"), p ? p->workspace_bytes : 0, kWorkspace},
        {tr("reserved"), p ? std::max<int64_t>(0, p->memory_per_gpu_bytes - parts) : 0, kOther}};
    const int64_t total = p ? std::max(parts, p->memory_per_gpu_bytes) : 0;
    const bool same = total == m_total && next.size() == m_parts.size() &&
                      std::equal(next.begin(), next.end(), m_parts.begin(),
                                 [](const Part& a, const Part& b) { return a.bytes == b.bytes; });
    if (same && !m_parts.empty())
        return;
    m_parts = next;
    m_total = total;
    QString tip =
        tr("<b>Memory per GPU</b>: %1 of %2").arg(formatBytes(m_total), formatBytes(m_capacity));
    for (const auto& part : m_parts)
        tip += QStringLiteral("<br><span style='color:%1'>■</span> %2: %3")
                   .arg(part.color.name(), part.name, formatBytes(part.bytes));
    setToolTip(p ? tip : QString());
    update();
}

void MemoryBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        m_legend_width = -1;
    QWidget::changeEvent(event);
}

void MemoryBar::layoutLegend() const {
    // Names and where they go, once per width: the text layout is most of a paint's cost.
    m_legend_width = width();
    m_legend.clear();
    const QFontMetrics fm = fontMetrics();
    const int box = std::max(4, fm.ascent() - 3);
    int x = 0, line = 0;
    for (const auto& part : m_parts) {
        const int need = box + 3 + fm.horizontalAdvance(part.name);
        if (x > 0 && x + need > width() && line + 1 < kLegendLines) {
            x = 0;
            ++line;
        }
        QStaticText text(part.name);
        text.setTextFormat(Qt::PlainText);
        text.prepare(QTransform(), font());
        m_legend.push_back({QPoint(x, kBarHeight + kGap + line * fm.height()), std::move(text)});
        x += need + 10;
    }
}

void MemoryBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (m_faded)
        p.setOpacity(0.4); // the last result's, while the newest choices were refused
    const QPalette& pal = palette();
    const QRect bar(0, 0, width() - 1, kBarHeight);
    p.fillRect(bar, pal.color(QPalette::AlternateBase));
    // Scaled to the GPU's memory, or to the total when it does not fit.
    const double scale = static_cast<double>(std::max({m_capacity, m_total, int64_t{1}}));
    double x = 0;
    for (const auto& part : m_parts) {
        const double w = static_cast<double>(part.bytes) / scale * bar.width();
        const int left = static_cast<int>(std::lround(x));
        const int right = static_cast<int>(std::lround(x + w));
        if (right > left)
            p.fillRect(QRect(left, bar.top(), right - left, bar.height()), part.color);
        x += w;
    }
    p.setPen(pal.color(QPalette::Mid));
    p.drawRect(bar);
    if (m_total > m_capacity && m_capacity > 0) {
        // Where the GPU's memory ends: what lies right of it does not fit.
        const int cap =
            static_cast<int>(std::lround(static_cast<double>(m_capacity) / scale * bar.width()));
        p.setPen(QPen(pal.color(QPalette::Text), 2));
        p.drawLine(cap, bar.top() - 1, cap, bar.bottom() + 1);
    }
    if (m_legend_width != width() || m_legend.size() != m_parts.size())
        layoutLegend();
    const QFontMetrics fm = fontMetrics();
    const int box = std::max(4, fm.ascent() - 3);
    p.setPen(pal.color(QPalette::Text));
    for (std::size_t i = 0; i < m_parts.size(); ++i) {
        const QPoint at = m_legend[i].first;
        p.fillRect(QRect(at.x(), at.y() + (fm.height() - box) / 2, box, box), m_parts[i].color);
        p.drawStaticText(QPoint(at.x() + box + 3, at.y()), m_legend[i].second);
    }
}

} // namespace iterscope::ui
