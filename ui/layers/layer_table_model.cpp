#include "layers/layer_table_model.h"

#include "widgets/format.h"

#include "network/analysis.h"
#include "util/precision.h"

#include <QColor>
#include <QFont>

#include <algorithm>

namespace iterscope::ui {
namespace {
QString boundText(const LayerTiming& t) {
    if (t.forward_bound == t.backward_bound || t.backward_ms <= 0)
        return QString::fromLatin1(boundName(t.forward_bound));
    return QStringLiteral("%1 / %2").arg(QLatin1String(boundName(t.forward_bound)),
                                         QLatin1String(boundName(t.backward_bound)));
}

bool isNumeric(int column) {
    return (column >= LayerTableModel::Params && column <= LayerTableModel::Bucket) ||
           column == LayerTableModel::Share || column == LayerTableModel::Measured;
}

// "1.23 ms (−4.0 %)": the measured time, and how far the predicted kernel time is from it.
QString measuredText(const std::optional<std::pair<double, double>>& measured) {
    if (!measured)
        return {};
    const auto [ms, predicted] = *measured;
    return ms > 0 ? QStringLiteral("%1 (%2)").arg(formatMs(ms),
                                                  formatSignedPercent(predicted / ms - 1))
                  : formatMs(ms);
}

QString shapeWithBatch(const Dims& output, int batch) {
    return QStringLiteral("%1×%2").arg(batch).arg(
        QString::fromStdString(formatDims(output)).replace(QLatin1Char('x'), QChar(0xd7)));
}
} // namespace

LayerTableModel::LayerTableModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void LayerTableModel::setResult(ResultPtr result) {
    // A new result for the same network (a slider moved) changes numbers, not rows: the
    // views keep their scroll position, selection and open modules and skip a full
    // relayout, which is most of the cost of following a drag on a network of hundreds of
    // layers.
    const bool same_rows = m_result && result && m_result->network == result->network &&
                           m_result->prediction.layers.size() == result->prediction.layers.size();
    if (!same_rows) {
        beginResetModel();
        m_result = std::move(result);
        m_totals_of.reset();
        std::vector<QString> names;
        if (m_result) {
            const auto& layers = m_result->network->network.layers;
            for (const auto& t : m_result->prediction.layers)
                names.push_back(t.layer < layers.size()
                                    ? QString::fromStdString(layers[t.layer].name)
                                    : QString());
        }
        m_tree = layerTree(names);
        addUp();
        endResetModel();
        return;
    }
    m_result = std::move(result);
    addUp();
    emitChanged({}, m_tree.top);
}

void LayerTableModel::emitChanged(const QModelIndex& parent, const std::vector<int>& children) {
    if (children.empty())
        return;
    const int last = static_cast<int>(children.size()) - (parent.isValid() ? 1 : 0);
    emit dataChanged(index(0, 0, parent), index(last, ColumnCount - 1, parent));
    for (const int child : children) {
        const auto& node = m_tree.nodes[static_cast<std::size_t>(child)];
        if (!node.children.empty())
            emitChanged(createIndex(node.row, 0, quintptr(child)), node.children);
    }
}

std::optional<std::pair<double, double>> LayerTableModel::measuredOf(std::size_t layer) const {
    if (!m_result || !m_result->trace)
        return std::nullopt;
    const TraceLayerComparison* l = m_result->trace->layer(layer);
    const auto measured = m_result->trace->measuredLayerMs(layer);
    if (!l || !measured)
        return std::nullopt;
    // The prediction of what was measured: a pass without its measurement is left out.
    const double predicted = (l->measured_forward_ms ? l->predicted_forward_ms : 0) +
                             (l->measured_backward_ms ? l->predicted_backward_ms : 0);
    return std::pair{*measured, predicted};
}

void LayerTableModel::addUp() {
    m_sums.assign(m_tree.nodes.size(), Sums{});
    m_totals = {};
    m_compute_ms = 0;
    if (!m_result)
        return;
    for (const LayerTiming& t : m_result->prediction.layers)
        m_compute_ms += t.forward_ms + t.backward_ms;
    const auto& analysis = m_result->network->analysis;
    const auto& timings = m_result->prediction.layers;
    std::vector<bool> counted;
    if (m_totals_of) {
        counted.assign(m_result->network->network.layers.size(), false);
        for (const long l : *m_totals_of)
            if (l >= 0 && static_cast<std::size_t>(l) < counted.size())
                counted[static_cast<std::size_t>(l)] = true;
    }
    const auto add = [](Sums& to, const Sums& from) {
        to.params += from.params;
        to.macs += from.macs;
        to.gradient_bytes += from.gradient_bytes;
        to.forward_ms += from.forward_ms;
        to.backward_ms += from.backward_ms;
        to.measured_ms += from.measured_ms;
        to.predicted_kernel_ms += from.predicted_kernel_ms;
        to.measured_layers += from.measured_layers;
        to.layers += from.layers;
        to.last_timing = std::max(to.last_timing, from.last_timing);
    };
    // Children come after their parents: from the back, each node adds itself to its parent.
    for (std::size_t n = m_tree.nodes.size(); n-- > 0;) {
        const auto& node = m_tree.nodes[n];
        Sums& sums = m_sums[n];
        if (node.timing >= 0) {
            const LayerTiming& t = timings[static_cast<std::size_t>(node.timing)];
            if (t.layer < analysis.layers.size()) {
                sums.params = analysis.layers[t.layer].params;
                sums.macs = analysis.layers[t.layer].macs * m_result->settings.batch;
            }
            sums.forward_ms = t.forward_ms;
            sums.backward_ms = t.backward_ms;
            sums.gradient_bytes = t.gradient_bytes;
            sums.layers = 1;
            sums.last_timing = node.timing;
            if (const auto measured = measuredOf(t.layer)) {
                sums.measured_ms = measured->first;
                sums.predicted_kernel_ms = measured->second;
                sums.measured_layers = 1;
            }
            const bool shown = !m_totals_of || (t.layer < counted.size() && counted[t.layer]);
            if (shown)
                add(m_totals, sums);
            if (!shown && node.parent >= 0) {
                // A module under a filter sums the layers it shows, as the totals row does:
                // a subtotal over hidden layers would not add up to the rows under it. Its
                // output stays its last layer's, shown or not.
                Sums& parent = m_sums[static_cast<std::size_t>(node.parent)];
                parent.last_timing = std::max(parent.last_timing, sums.last_timing);
                continue;
            }
        }
        if (node.parent >= 0)
            add(m_sums[static_cast<std::size_t>(node.parent)], sums);
    }
}

void LayerTableModel::setTotalsOf(const std::optional<std::vector<long>>& layers) {
    if (layers == m_totals_of)
        return;
    m_totals_of = layers;
    addUp();
    if (m_result)
        emitChanged({}, m_tree.top); // the modules' subtotals and the totals row
}

QModelIndex LayerTableModel::indexForLayer(long layer) const {
    if (!m_result || layer < 0)
        return {};
    const auto& timings = m_result->prediction.layers;
    for (std::size_t i = 0; i < timings.size(); ++i)
        if (timings[i].layer == static_cast<std::size_t>(layer)) {
            const int node = m_tree.node_of_timing[i];
            return node < 0 ? QModelIndex()
                            : createIndex(m_tree.nodes[static_cast<std::size_t>(node)].row, 0,
                                          quintptr(node));
        }
    return {};
}

int LayerTableModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<int>(index.internalId()) : -1;
}

QModelIndex LayerTableModel::index(int row, int column, const QModelIndex& parent) const {
    if (!m_result || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        const int top = static_cast<int>(m_tree.top.size());
        if (row > top)
            return {};
        // The totals row is the node past the last one.
        return createIndex(row, column,
                           quintptr(row == top ? static_cast<int>(m_tree.nodes.size())
                                               : m_tree.top[static_cast<std::size_t>(row)]));
    }
    const int p = nodeOf(parent);
    if (p < 0 || p >= static_cast<int>(m_tree.nodes.size()) || parent.column() != 0)
        return {};
    const auto& children = m_tree.nodes[static_cast<std::size_t>(p)].children;
    if (row >= static_cast<int>(children.size()))
        return {};
    return createIndex(row, column, quintptr(children[static_cast<std::size_t>(row)]));
}

QModelIndex LayerTableModel::parent(const QModelIndex& child) const {
    const int n = nodeOf(child);
    if (n < 0 || n >= static_cast<int>(m_tree.nodes.size()))
        return {};
    const int p = m_tree.nodes[static_cast<std::size_t>(n)].parent;
    if (p < 0)
        return {};
    return createIndex(m_tree.nodes[static_cast<std::size_t>(p)].row, 0, quintptr(p));
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
    if (!m_result)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(m_tree.top.size()) + 1;
    const int p = nodeOf(parent);
    if (parent.column() != 0 || p < 0 || p >= static_cast<int>(m_tree.nodes.size()))
        return 0;
    return static_cast<int>(m_tree.nodes[static_cast<std::size_t>(p)].children.size());
}

int LayerTableModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* const titles[ColumnCount] = {"Layer",  "Type",     "Output",   "Params",
                                                    "MACs",   "Forward",  "Backward", "Gradient",
                                                    "Bucket", "Bound by", "Share",    "Measured"};
    static const char* const tips[ColumnCount] = {
        "Layer name as in the network file",
        "Layer kind",
        "Output shape of one sample (channels × height × width)",
        "Trainable parameters",
        "Forward multiply-accumulates for the whole per-GPU batch (convolution and fully "
        "connected layers)",
        "Predicted forward time of the layer on one GPU",
        "Predicted backward time (data and weight gradients)",
        "Bytes of weight gradients the layer produces per iteration",
        "Gradient bucket the layer's gradients are exchanged in",
        "What limits the layer's kernels, forward / backward: compute throughput, memory "
        "bandwidth or per-kernel overhead",
        "Forward + backward time as a share (%) of all layers' forward + backward time: the "
        "shares total 100 %. A pipeline's layers run on several GPUs at once, so a share of "
        "the iteration would not add up; the summary says how the iteration splits",
        "Kernel time of the layer in the opened profiler trace (forward + backward, per step), "
        "where its ops were matched one to one, and how far the predicted kernel time is "
        "from it"};
    static const char* const keys[ColumnCount] = {
        "layer",  "type",       "output",           "params",
        "macs",   "forward_ms", "backward_ms",      "gradient_bytes",
        "bucket", "bound",      "share_of_compute", "measured_ms"};
    if (role == ExportRole)
        return QString::fromLatin1(keys[section]);
    if (role == Qt::DisplayRole)
        return tr(titles[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(
            (isNumeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    // A first click on a number column shows the largest first: one looks for the
    // costliest layers, not the cheapest.
    if (role == Qt::InitialSortOrderRole)
        return isNumeric(section) ? int(Qt::DescendingOrder) : int(Qt::AscendingOrder);
    return {};
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_result)
        return {};
    const int n = nodeOf(index);
    const bool totals = n == static_cast<int>(m_tree.nodes.size());
    if (role == IsTotalsRole)
        return totals;
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(
            (isNumeric(index.column()) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    if (totals || m_tree.nodes[static_cast<std::size_t>(n)].timing < 0) {
        if (role == Qt::FontRole && totals) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        const int column = index.column();
        if (role == ExportRole)
            return column == Name
                       ? sumsData(totals ? m_totals : m_sums[static_cast<std::size_t>(n)],
                                  totals ? QString()
                                         : m_tree.nodes[static_cast<std::size_t>(n)].label,
                                  Name, Qt::DisplayRole, totals)
                       : sumsData(totals ? m_totals : m_sums[static_cast<std::size_t>(n)], {},
                                  column, SortRole, totals);
        return totals
                   ? sumsData(m_totals, {}, column, role, true)
                   : sumsData(m_sums[static_cast<std::size_t>(n)],
                              m_tree.nodes[static_cast<std::size_t>(n)].label, column, role, false);
    }
    const auto& node = m_tree.nodes[static_cast<std::size_t>(n)];
    const LayerTiming& t = m_result->prediction.layers[static_cast<std::size_t>(node.timing)];
    if (role == Qt::DisplayRole && index.column() == Name && node.parent >= 0) {
        // Under its module, a layer reads without the module's name ("conv1" under
        // "layer1.0"), as torchinfo writes it, unless that leaves a bare index ("0" of
        // "features.0"); the tooltip has it whole.
        const QString name = m_result->layerName(t.layer);
        const QString& module = m_tree.nodes[static_cast<std::size_t>(node.parent)].label;
        for (const QChar separator : {QLatin1Char('.'), QLatin1Char('/')})
            if (name.size() > module.size() + 1 && name.startsWith(module + separator)) {
                const QString rest = name.mid(module.size() + 1);
                bool number = false;
                rest.toInt(&number);
                return number ? name : rest;
            }
        return name;
    }
    if (role == ExportRole) {
        switch (index.column()) {
        case Name:
            return layerData(t, Name, FullNameRole);
        case Output:
        case BoundBy:
            return layerData(t, index.column(), Qt::DisplayRole);
        case Bucket: // blank, as the table shows it, for layers without gradients
            return t.bucket >= 0 ? QVariant(t.bucket) : QVariant(QString());
        default:
            return layerData(t, index.column(), SortRole);
        }
    }
    return layerData(t, index.column(), role);
}

QVariant LayerTableModel::layerData(const LayerTiming& t, int column, int role) const {
    const auto& net = m_result->network->network;
    const auto& analysis = m_result->network->analysis;
    if (role == LayerIndexRole)
        return static_cast<qlonglong>(t.layer);
    if (t.layer >= net.layers.size() || t.layer >= analysis.layers.size())
        return {};
    const auto& layer = net.layers[t.layer];
    const auto& cost = analysis.layers[t.layer];
    const double share = m_compute_ms > 0 ? (t.forward_ms + t.backward_ms) / m_compute_ms : 0;
    const auto macs = cost.macs * m_result->settings.batch;
    if (role == FullNameRole)
        return QString::fromStdString(layer.name);
    if (role == IsModuleRole)
        return false;
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name:
            return m_result->layerName(t.layer);
        case Type:
            return QString::fromLatin1(layerKindName(layer.kind));
        case Output: // torchinfo's way: the batch first
            return shapeWithBatch(cost.output, m_result->settings.batch);
        case Params:
            return cost.params ? formatCount(double(cost.params)) : QString();
        case Macs:
            return macs ? formatCount(double(macs)) : QString();
        case Forward:
            return formatMs(t.forward_ms);
        case Backward:
            return formatMs(t.backward_ms);
        case Gradient:
            return t.gradient_bytes ? formatBytes(t.gradient_bytes) : QString();
        case Bucket:
            return t.bucket >= 0 ? QString::number(t.bucket) : QString();
        case BoundBy:
            return boundText(t);
        case Share:
            return formatPercent(share);
        case Measured:
            return measuredText(measuredOf(t.layer));
        }
    } else if (role == SortRole) {
        switch (column) {
        case Name:
            return m_result->layerName(t.layer);
        case Type:
            return QString::fromLatin1(layerKindName(layer.kind));
        case Output:
            return static_cast<qlonglong>(cost.output_elems);
        case Params:
            return static_cast<qlonglong>(cost.params);
        case Macs:
            return static_cast<qlonglong>(macs);
        case Forward:
            return t.forward_ms;
        case Backward:
            return t.backward_ms;
        case Gradient:
            return static_cast<qlonglong>(t.gradient_bytes);
        case Bucket:
            return t.bucket;
        case BoundBy:
            return boundText(t);
        case Share:
            return share;
        case Measured: {
            const auto measured = measuredOf(t.layer);
            return measured ? QVariant(measured->first) : QVariant(QString());
        }
        }
    } else if (role == Qt::ToolTipRole) {
        QString tip =
            QStringLiteral("%1 (%2)\nforward %3, backward %4\n%5 of all layers' compute")
                .arg(QString::fromStdString(layer.name), QLatin1String(layerKindName(layer.kind)),
                     formatMs(t.forward_ms), formatMs(t.backward_ms), formatPercent(share));
        if (const auto measured = measuredOf(t.layer)) {
            const TraceLayerComparison* l = m_result->trace->layer(t.layer);
            tip += tr("\nmeasured %1 (%2), predicted kernel time %3")
                       .arg(formatMs(measured->first), QString::fromStdString(l->op),
                            formatMs(measured->second));
        } else if (m_result->trace && m_result->trace->layer(t.layer)) {
            tip += tr("\nnot matched one to one in the trace: compared within its kind");
        }
        return tip;
    }
    return {};
}

QVariant LayerTableModel::sumsData(const Sums& sums, const QString& label, int column, int role,
                                   bool totals) const {
    if (role == LayerIndexRole)
        return qlonglong(-1);
    if (role == IsModuleRole)
        return !totals;
    if (role == FullNameRole)
        return label;
    const double share = m_compute_ms > 0 ? (sums.forward_ms + sums.backward_ms) / m_compute_ms : 0;
    const int all = layerCount();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name:
            if (!totals)
                return label;
            if (m_totals_of)
                return tr("Total of %1 shown (of %2)").arg(sums.layers).arg(all);
            return all == 1 ? tr("Total (1 layer)") : tr("Total (%1 layers)").arg(all);
        case Type:
            return totals ? QString() : tr("%1 layers").arg(sums.layers);
        case Output: {
            // A module's output is its last layer's.
            if (totals || sums.last_timing < 0)
                return QString();
            const auto& t = m_result->prediction.layers[static_cast<std::size_t>(sums.last_timing)];
            return layerData(t, Output, Qt::DisplayRole);
        }
        case Params:
            return formatCount(double(sums.params));
        case Macs:
            return formatCount(double(sums.macs));
        case Forward:
            return formatMs(sums.forward_ms);
        case Backward:
            return formatMs(sums.backward_ms);
        case Gradient:
            return formatBytes(sums.gradient_bytes);
        case Share:
            return formatPercent(share);
        case Measured:
            return sums.measured_layers > 0
                       ? measuredText(std::pair{sums.measured_ms, sums.predicted_kernel_ms})
                       : QString();
        default:
            return QString();
        }
    }
    if (role == SortRole) {
        switch (column) {
        case Params:
            return static_cast<qlonglong>(sums.params);
        case Macs:
            return static_cast<qlonglong>(sums.macs);
        case Forward:
            return sums.forward_ms;
        case Backward:
            return sums.backward_ms;
        case Gradient:
            return static_cast<qlonglong>(sums.gradient_bytes);
        case Share:
            return share;
        case Measured:
            return sums.measured_layers > 0 ? QVariant(sums.measured_ms) : QVariant(QString());
        case Name:
            return totals ? tr("Total") : label;
        default:
            return QString();
        }
    }
    if (role == Qt::ToolTipRole) {
        if (totals) {
            // How the layers' compute stands to the iteration: the summary's parts
            // (core/model/breakdown.h), which add up to it.
            const IterationBreakdown& b = m_result->breakdown;
            const QString iteration =
                tr("The GPU the iteration waits for computes forward and backward for %1 of its "
                   "%2; update, exposed communication, bubble and waits are the rest (the "
                   "summary's lines)")
                    .arg(formatMs(b.forward_ms + b.backward_ms),
                         formatMs(m_result->prediction.iteration_ms));
            return m_totals_of
                       ? tr("Sums over the %1 layers the filter shows; their share is of all "
                            "layers' forward and backward time.\n%2")
                             .arg(sums.layers)
                             .arg(iteration)
                       : tr("Sums over all layers: the shares are of their forward and backward "
                            "time and total 100 %.\n%1")
                             .arg(iteration);
        }
        return tr("%1: %2 layers\nforward %3, backward %4\n%5 of all layers' compute")
            .arg(label)
            .arg(sums.layers)
            .arg(formatMs(sums.forward_ms), formatMs(sums.backward_ms), formatPercent(share));
    }
    return {};
}

LayerFilterModel::LayerFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(LayerTableModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
    // A module is shown when a layer in it matches, and all of it when its own name does.
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
    connect(this, &QAbstractItemModel::modelReset, this, &LayerFilterModel::updateTotals);
}

void LayerFilterModel::setFilterText(const QString& text) {
    setFilterFixedString(text);
    updateTotals();
}

void LayerFilterModel::collect(const QModelIndex& parent, std::vector<long>& layers) const {
    for (int r = 0; r < rowCount(parent); ++r) {
        const QModelIndex i = index(r, 0, parent);
        const long layer = static_cast<long>(i.data(LayerTableModel::LayerIndexRole).toLongLong());
        if (layer >= 0)
            layers.push_back(layer);
        collect(i, layers);
    }
}

void LayerFilterModel::updateTotals() {
    auto* source = qobject_cast<LayerTableModel*>(sourceModel());
    if (!source)
        return;
    if (filterRegularExpression().pattern().isEmpty()) {
        m_shown = source->layerCount();
        source->setTotalsOf(std::nullopt);
        return;
    }
    std::vector<long> layers;
    collect({}, layers);
    m_shown = static_cast<int>(layers.size());
    source->setTotalsOf(layers);
}

bool LayerFilterModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
    const auto index = sourceModel()->index(source_row, 0, source_parent);
    if (index.data(LayerTableModel::IsTotalsRole).toBool())
        return true;
    const auto pattern = filterRegularExpression();
    if (pattern.pattern().isEmpty())
        return true;
    for (int column : {LayerTableModel::Name, LayerTableModel::Type, LayerTableModel::BoundBy}) {
        const auto text = sourceModel()->index(source_row, column, source_parent).data().toString();
        if (pattern.match(text).hasMatch())
            return true;
    }
    // The full name too: a part the shortened name leaves out still finds the layer.
    const auto full = index.data(LayerTableModel::FullNameRole).toString();
    return pattern.match(full).hasMatch();
}

bool LayerFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    // The totals row sorts last in either order.
    const bool left_total = left.data(LayerTableModel::IsTotalsRole).toBool();
    const bool right_total = right.data(LayerTableModel::IsTotalsRole).toBool();
    if (left_total || right_total) {
        if (left_total == right_total)
            return false;
        return sortOrder() == Qt::AscendingOrder ? right_total : left_total;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace iterscope::ui
