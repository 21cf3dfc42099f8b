// Paints a table cell's text as one line with QPainter::drawText at a point. The style's
// own path lays every cell's text out with QTextLayout (line breaking included), which
// made repainting the layer table the slowest part of following a slider drag.
#pragma once

#include "widgets/static_text_cache.h"

#include <QStyledItemDelegate>

namespace iterscope::ui {

class PlainTextDelegate : public QStyledItemDelegate {
    Q_OBJECT
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    // Background, selection and focus as the style draws them; then the text, elided at
    // the right and aligned as the model asks, in the model's font and foreground.
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

  private:
    // Names, kinds and shapes stay the same while a slider moves: shaped once.
    mutable StaticTextCache m_texts;
};

} // namespace iterscope::ui
