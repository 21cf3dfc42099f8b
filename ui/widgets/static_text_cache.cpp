#include "widgets/static_text_cache.h"

#include <QFontMetrics>

namespace iterscope::ui {

const QStaticText& StaticTextCache::get(const QString& text, const QFont& font, int width,
                                        Qt::TextElideMode mode) {
    if (font != m_font || m_texts.size() > kMaxTexts) {
        m_texts.clear();
        m_font = font;
    }
    // One table for both: an elided text's key starts with its width and mode, which no
    // plain text of a cell or a label starts with.
    const QString key =
        width < 0
            ? text
            : QStringLiteral("\x1f%1\x1f%2\x1f%3").arg(width).arg(static_cast<int>(mode)).arg(text);
    auto it = m_texts.find(key);
    if (it == m_texts.end()) {
        QString shown = text;
        if (width >= 0) {
            const QFontMetrics fm(font);
            if (fm.horizontalAdvance(text) > width)
                shown = fm.elidedText(text, mode, width);
        }
        QStaticText shaped(shown);
        shaped.setTextFormat(Qt::PlainText);
        shaped.prepare(QTransform(), font);
        it = m_texts.insert(key, shaped);
    }
    return *it;
}

} // namespace iterscope::ui
