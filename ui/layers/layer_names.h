// Layer names as a person reads them in the table, the charts and the timeline. ONNX files
// exported from PyTorch name each node by its module path, every level repeating its parent
// ("/features/features.2/features.2.0/block/block.0/block.0.0/Conv"), so the breakdown
// showed one long shared prefix on every row and the part that differs was cut off.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace iterscope::ui {

// Drops each path segment that the next one repeats as its prefix, and empty segments:
// "/features/features.2/features.2.0/block/block.0/block.0.0/Conv" ->
// "features.2.0/block.0.0/Conv". Names without '/' come back unchanged.
QString compactLayerName(const QString& name);

// The compacted names with the leading path segments that all of them share removed (at
// least two names; a name is never emptied). Parallel to `names`.
QStringList displayLayerNames(const std::vector<std::string>& names);

// Elision inside the text to at most max_chars characters, two thirds of them from the
// start ("features.2/conv.0.1/…Normalization" at 33), for places that cannot elide by pixel
// width (chart category labels).
QString elideMiddle(const QString& text, int max_chars);

// Labels for a few layers shown side by side (the costliest-layers chart), each at most
// max_chars long and no two alike: each name's shortest tail of at least two path segments
// (a module and the op) that no other name shares ("conv.0.0/Conv" where that tells it
// apart, "features.5.0/block.0.0/Conv" where it takes more), shortened to its first and last
// segments around "…" when too long. Nine bars that all read "features.5…./Conv" were no use in a
// report.
QStringList distinctLayerLabels(const QStringList& full_names, int max_chars);

} // namespace iterscope::ui
