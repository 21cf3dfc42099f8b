#include "memory_bar.h"

#include "format.h"

#include "model/prediction.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace iterscope::ui {
namespace {
constexpr int kBarHeight = 10;
constexpr int kGap = 3;

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
}

QSize MemoryBar::sizeHint() const {
    return {200, kBarHeight + kGap + fontMetrics().height()};
}

QSize MemoryBar::minimumSizeHint() const {
    return {60, sizeHint().height()};
}

void MemoryBar::setMemory(const Prediction* p, int64_t capacity_bytes) {
    m_parts.clear();
    m_capacity = std::max<int64_t>(0, capacity_bytes);
    m_total = 0;
    if (p) {
        m_parts = {{tr("weights"), p->weights_bytes, kWeights},
                   {tr("gradients"), p->gradients_bytes, kGradients},
                   {tr("optimizer"), p->optimizer_bytes, kOptimizer},
                   {tr("activations"), p->activations_bytes, kActivations},
                   {tr("workspace"), p->workspace_bytes, kWorkspace}};
        int64_t parts = 0;
        for (const auto& part : m_parts)
            parts += part.bytes;
        // The framework's reserve and a strategy's transient buffers are in the total only.
        if (p->memory_per_gpu_bytes > parts)
            m_parts.push_back({tr("reserved"), p->memory_per_gpu_bytes - parts, kOther});
        m_total = std::max(parts, p->memory_per_gpu_bytes);
    }
    QString tip =
        tr("<b>Memory per GPU</b>: %1 of %2").arg(formatBytes(m_total), formatBytes(m_capacity));
    for (const auto& part : m_parts)
        tip += QStringLiteral("<br><span style='color:%1'>■</span> %2: %3")
                   .arg(part.color.name(), part.name, formatBytes(part.bytes));
    setToolTip(p ? tip : QString());
    update();
}

void MemoryBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
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
    // The legend: the largest parts first, as many as fit on one line; the tooltip has all.
    const QFontMetrics fm = fontMetrics();
    const int y = kBarHeight + kGap;
    const int box = std::max(4, fm.ascent() - 3);
    int lx = 0;
    std::vector<const Part*> by_size;
    for (const auto& part : m_parts)
        if (part.bytes > 0)
            by_size.push_back(&part);
    std::stable_sort(by_size.begin(), by_size.end(),
                     [](const Part* a, const Part* b) { return a->bytes > b->bytes; });
    p.setPen(pal.color(QPalette::Text));
    for (const Part* entry : by_size) {
        const Part& part = *entry;
        const int need = box + 3 + fm.horizontalAdvance(part.name) + 8;
        if (lx + need - 8 > width())
            break;
        p.fillRect(QRect(lx, y + (fm.height() - box) / 2, box, box), part.color);
        p.drawText(QPoint(lx + box + 3, y + fm.ascent()), part.name);
        lx += need;
    }
}

} // namespace iterscope::ui
