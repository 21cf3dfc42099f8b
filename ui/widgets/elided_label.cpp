#include "widgets/elided_label.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QTextLayout>
#include <QToolTip>

namespace iterscope::ui {

ElidedLabel::ElidedLabel(QWidget* parent, int lines)
    : QFrame(parent)
    , m_lines(std::max(1, lines)) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void ElidedLabel::setText(const QString& text) {
    if (text == m_text)
        return;
    m_text = text;
    fitLines();
    update(); // the height is fixed (or changes only with the lines needed): no relayout
}

void ElidedLabel::setMaxLines(int max_lines) {
    m_max_lines = std::max(0, max_lines);
    m_fitted_width = -1;
    fitLines();
}

void ElidedLabel::fitLines() {
    if (m_max_lines <= 0)
        return;
    const int width = contentsRect().width();
    if (m_text == m_fitted_text && width == m_fitted_width)
        return;
    m_fitted_text = m_text;
    m_fitted_width = width;
    setLineCount(std::min(m_max_lines, linesNeeded(width)));
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QFrame::resizeEvent(event);
    fitLines();
}

void ElidedLabel::setExplanation(const QString& explanation) {
    m_explanation = explanation;
}

void ElidedLabel::setMuted(bool muted) {
    m_muted = muted;
    update();
}

void ElidedLabel::setFaded(bool faded) {
    if (faded == m_faded)
        return;
    m_faded = faded;
    update();
}

void ElidedLabel::setTextColor(const QColor& color) {
    if (color == m_color)
        return;
    m_color = color;
    update();
}

QSize ElidedLabel::sizeHint() const {
    const QFontMetrics fm = fontMetrics();
    const int width = std::min(fm.horizontalAdvance(m_text), fm.averageCharWidth() * 40);
    return {width + 2 * frameWidth(), m_lines * fm.lineSpacing() + 2 * frameWidth()};
}

QSize ElidedLabel::minimumSizeHint() const {
    const QFontMetrics fm = fontMetrics();
    return {fm.averageCharWidth() * 6, m_lines * fm.lineSpacing() + 2 * frameWidth()};
}

QStringList ElidedLabel::layoutLines(int width, bool* elided) const {
    const QFontMetrics fm = fontMetrics();
    *elided = false;
    if (m_lines == 1) {
        const QString shown = fm.elidedText(m_text, Qt::ElideRight, width);
        *elided = shown != m_text;
        return {shown};
    }
    QStringList lines;
    QTextLayout layout(m_text, font());
    layout.beginLayout();
    while (true) {
        QTextLine line = layout.createLine();
        if (!line.isValid())
            break;
        line.setLineWidth(width);
        if (lines.size() == m_lines - 1) {
            const QString rest = m_text.mid(line.textStart());
            const QString shown = fm.elidedText(rest, Qt::ElideRight, width);
            *elided = shown != rest;
            lines.append(shown);
            break;
        }
        lines.append(m_text.mid(line.textStart(), line.textLength()).trimmed());
    }
    layout.endLayout();
    return lines;
}

const ElidedLabel::Shown& ElidedLabel::shown(int width) const {
    if (m_shown.width == width && m_shown.text == m_text && m_shown.font == font())
        return m_shown;
    m_shown.width = width;
    m_shown.text = m_text;
    m_shown.font = font();
    m_shown.lines.clear();
    for (const QString& line : layoutLines(width, &m_shown.elided)) {
        QStaticText text(line);
        text.setTextFormat(Qt::PlainText);
        text.prepare(QTransform(), font());
        m_shown.lines.append(text);
    }
    return m_shown;
}

QStringList ElidedLabel::shownLines() const {
    QStringList lines;
    for (const QStaticText& line : shown(contentsRect().width()).lines)
        lines.append(line.text());
    return lines;
}

void ElidedLabel::setLineCount(int lines) {
    lines = std::max(1, lines);
    if (lines == m_lines)
        return;
    m_lines = lines;
    m_shown.width = -1; // laid out again
    updateGeometry();
    update();
}

int ElidedLabel::linesNeeded(int width) const {
    QTextLayout layout(m_text, font());
    layout.beginLayout();
    int lines = 0;
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(std::max(1, width));
        ++lines;
    }
    layout.endLayout();
    return std::max(1, lines);
}

bool ElidedLabel::isElided() const {
    return shown(contentsRect().width()).elided;
}

void ElidedLabel::paintEvent(QPaintEvent* event) {
    QFrame::paintEvent(event);
    QPainter p(this);
    QColor color = m_color.isValid() ? m_color : palette().color(QPalette::WindowText);
    const float toward_back = m_faded ? 0.6f : m_muted && !m_color.isValid() ? 0.25f : 0.0f;
    if (toward_back > 0) {
        const QColor back = palette().color(QPalette::Window);
        const float keep = 1.0f - toward_back;
        color = QColor::fromRgbF(keep * color.redF() + toward_back * back.redF(),
                                 keep * color.greenF() + toward_back * back.greenF(),
                                 keep * color.blueF() + toward_back * back.blueF());
    }
    p.setPen(color);
    const QRect r = contentsRect();
    const QFontMetrics fm = fontMetrics();
    int y = r.top();
    for (const QStaticText& line : shown(r.width()).lines) {
        p.drawStaticText(QPoint(r.left(), y), line);
        y += fm.lineSpacing();
    }
}

bool ElidedLabel::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        QString tip = m_explanation;
        if (isElided())
            tip = m_explanation.isEmpty() ? m_text : m_text + QStringLiteral("\n\n") + tip;
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, this);
        }
        return true;
    }
    return QFrame::event(event);
}

} // namespace iterscope::ui
