#include "layers/layer_tree_view.h"

#include <QAccessible>

namespace iterscope::ui {

void LayerTreeView::dataChanged(const QModelIndex& top_left, const QModelIndex& bottom_right,
                                const QList<int>& roles) {
    // A screen reader is told of each change, as QTreeView tells it.
    if (top_left == bottom_right || !uniformRowHeights() || QAccessible::isActive()) {
        QTreeView::dataChanged(top_left, bottom_right, roles);
        return;
    }
    viewport()->update();
}

} // namespace iterscope::ui
