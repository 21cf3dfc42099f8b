#include "widgets/plain_text_delegate.h"

#include <QApplication>
#include <QPainter>
#include <QtMath>

namespace iterscope::ui {

void PlainTextDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = opt.widget;
    const QStyle* style = widget ? widget->style() : QApplication::style();
    const QString text = opt.text;
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    // Without a check box or an icon the style's text rectangle is the cell's; asking the
    // style for it shaped the text once more only to measure it.
    const bool text_only = !opt.features.testFlag(QStyleOptionViewItem::HasCheckIndicator) &&
                           !opt.features.testFlag(QStyleOptionViewItem::HasDecoration);
    const QRect box =
        (text_only ? opt.rect : style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget))
            .adjusted(margin, 0, -margin, 0);
    opt.text.clear(); // the style draws background, selection and focus, not the text
    // A plain cell (not selected, hovered or focused, no background of its own) has nothing
    // for the style to draw: the view painted the row's (alternating) background already.
    // Most of a table's cells are plain, and the style's pass was a third of their cost.
    const bool plain = !(opt.state & (QStyle::State_Selected | QStyle::State_MouseOver |
                                      QStyle::State_HasFocus)) &&
                       opt.backgroundBrush.style() == Qt::NoBrush &&
                       opt.features.testFlag(QStyleOptionViewItem::HasDisplay) && text_only;
    if (!plain)
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    if (text.isEmpty())
        return;

    const QFontMetrics fm(opt.font);
    const QStaticText* shown = &m_texts.get(text, opt.font);
    if (shown->size().width() > box.width())
        shown = &m_texts.get(text, opt.font, box.width(), opt.textElideMode);
    const int width = qCeil(shown->size().width());
    int x = box.left();
    if (opt.displayAlignment & Qt::AlignRight)
        x = box.right() + 1 - width;
    else if (opt.displayAlignment & Qt::AlignHCenter)
        x = box.left() + (box.width() - width) / 2;
    const int y = box.top() + (box.height() - fm.height()) / 2;

    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    const bool selected = opt.state & QStyle::State_Selected;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(
        opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawStaticText(QPoint(x, y), *shown);
    painter->restore();
}

} // namespace iterscope::ui
