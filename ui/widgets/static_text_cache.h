// Text shaped once and kept between paints. Shaping (HarfBuzz) is most of what drawing a
// short text costs, and a slider step repaints the same names, units and tick labels
// beside the numbers that changed (issue 20, item 13: every view within a 120 Hz frame).
#pragma once

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QString>

namespace iterscope::ui {

class StaticTextCache {
  public:
    // `text` shaped in `font`; with a `width`, elided to it first (with `mode`) where it is
    // wider. Valid until the next call.
    const QStaticText& get(const QString& text, const QFont& font, int width = -1,
                           Qt::TextElideMode mode = Qt::ElideRight);

  private:
    // Some screens of a table's cells; past that the oldest numbers are no longer shown.
    static constexpr qsizetype kMaxTexts = 8192;
    QHash<QString, QStaticText> m_texts;
    QFont m_font;
};

} // namespace iterscope::ui
