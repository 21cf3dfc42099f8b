// The layer table's view: a QTreeView that repaints its visible rows when a whole result
// changes, instead of locating every changed row.
#pragma once

#include <QTreeView>

namespace iterscope::ui {

class LayerTreeView : public QTreeView {
    Q_OBJECT
  public:
    using QTreeView::QTreeView;

  protected:
    // A new result changes every number of every row at once. QTreeView finds the
    // rectangle of a changed range row by row, each row's place by a search of the open
    // rows, which made it the largest single cost of following a slider on a network of
    // hundreds of layers; the rows all have one height (uniformRowHeights) and no editor,
    // so a repaint of what is visible shows the same.
    void dataChanged(const QModelIndex& top_left, const QModelIndex& bottom_right,
                     const QList<int>& roles = QList<int>()) override;
};

} // namespace iterscope::ui
