#include "layer_table_model.h"

#include "format.h"

#include "network/analysis.h"
#include "util/precision.h"

#include <QColor>
#include <QFont>

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
           column == LayerTableModel::Share;
}
} // namespace

LayerTableModel::LayerTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void LayerTableModel::setResult(ResultPtr result) {
    // A new result for the same network (a slider moved) changes numbers, not rows: the
    // views keep their scroll position and selection and skip a full relayout, which is
    // most of the cost of following a drag on a network of hundreds of layers.
    const bool same_rows = m_result && result && m_result->network == result->network &&
                           m_result->prediction.layers.size() == result->prediction.layers.size();
    if (!same_rows)
        beginResetModel();
    m_result = std::move(result);
    m_totals = {};
    if (m_result) {
        const auto& analysis = m_result->network->analysis;
        for (const auto& t : m_result->prediction.layers) {
            if (t.layer < analysis.layers.size()) {
                m_totals.params += analysis.layers[t.layer].params;
                m_totals.macs += analysis.layers[t.layer].macs * m_result->settings.batch;
            }
            m_totals.forward_ms += t.forward_ms;
            m_totals.backward_ms += t.backward_ms;
            m_totals.gradient_bytes += t.gradient_bytes;
        }
    }
    if (same_rows)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    else
        endResetModel();
}

int LayerTableModel::rowForLayer(long layer) const {
    if (!m_result || layer < 0)
        return -1;
    const auto& layers = m_result->prediction.layers;
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (layers[i].layer == static_cast<std::size_t>(layer))
            return static_cast<int>(i);
    return -1;
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_result)
        return 0;
    return static_cast<int>(m_result->prediction.layers.size()) + 1;
}

int LayerTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* const titles[ColumnCount] = {"Layer",  "Type",     "Output",   "Params",
                                                    "MACs",   "Forward",  "Backward", "Gradient",
                                                    "Bucket", "Bound by", "Share"};
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
        "Forward + backward time as a share (%) of the whole iteration"};
    static const char* const keys[ColumnCount] = {"layer",
                                                  "type",
                                                  "output",
                                                  "params",
                                                  "macs",
                                                  "forward_ms",
                                                  "backward_ms",
                                                  "gradient_bytes",
                                                  "bucket",
                                                  "bound",
                                                  "share_of_iteration"};
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
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_result)
        return {};
    const int row = index.row();
    const bool totals = row == static_cast<int>(m_result->prediction.layers.size());
    if (role == IsTotalsRole)
        return totals;
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(
            (isNumeric(index.column()) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    if (role == ExportRole) {
        if (totals)
            return totalsData(index.column(), SortRole);
        const auto& t = m_result->prediction.layers[static_cast<std::size_t>(row)];
        switch (index.column()) {
        case Name:
            return layerData(row, Name, FullNameRole);
        case Output:
        case BoundBy:
            return layerData(row, index.column(), Qt::DisplayRole);
        case Bucket: // blank, as the table shows it, for layers without gradients
            return t.bucket >= 0 ? QVariant(t.bucket) : QVariant(QString());
        default:
            return layerData(row, index.column(), SortRole);
        }
    }
    if (totals) {
        if (role == Qt::FontRole) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return totalsData(index.column(), role);
    }
    return layerData(row, index.column(), role);
}

QVariant LayerTableModel::layerData(int row, int column, int role) const {
    const auto& t = m_result->prediction.layers[static_cast<std::size_t>(row)];
    const auto& net = m_result->network->network;
    const auto& analysis = m_result->network->analysis;
    if (role == LayerIndexRole)
        return static_cast<qlonglong>(t.layer);
    if (t.layer >= net.layers.size() || t.layer >= analysis.layers.size())
        return {};
    const auto& layer = net.layers[t.layer];
    const auto& cost = analysis.layers[t.layer];
    const double iteration = m_result->prediction.iteration_ms;
    const double share = iteration > 0 ? (t.forward_ms + t.backward_ms) / iteration : 0;
    const auto macs = cost.macs * m_result->settings.batch;
    if (role == FullNameRole)
        return QString::fromStdString(layer.name);
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name:
            return m_result->layerName(t.layer);
        case Type:
            return QString::fromLatin1(layerKindName(layer.kind));
        case Output:
            return QString::fromStdString(formatDims(cost.output));
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
        }
    } else if (role == Qt::ToolTipRole) {
        return QStringLiteral("%1 (%2)\nforward %3, backward %4\n%5 of the iteration")
            .arg(QString::fromStdString(layer.name), QLatin1String(layerKindName(layer.kind)),
                 formatMs(t.forward_ms), formatMs(t.backward_ms), formatPercent(share));
    }
    return {};
}

QVariant LayerTableModel::totalsData(int column, int role) const {
    if (role == LayerIndexRole)
        return qlonglong(-1);
    const double iteration = m_result->prediction.iteration_ms;
    const double share =
        iteration > 0 ? (m_totals.forward_ms + m_totals.backward_ms) / iteration : 0;
    const int count = static_cast<int>(m_result->prediction.layers.size());
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name:
            return count == 1 ? tr("Total (1 layer)") : tr("Total (%1 layers)").arg(count);
        case Params:
            return formatCount(double(m_totals.params));
        case Macs:
            return formatCount(double(m_totals.macs));
        case Forward:
            return formatMs(m_totals.forward_ms);
        case Backward:
            return formatMs(m_totals.backward_ms);
        case Gradient:
            return formatBytes(m_totals.gradient_bytes);
        case Share:
            return formatPercent(share);
        default:
            return QString();
        }
    }
    if (role == SortRole) {
        switch (column) {
        case Params:
            return static_cast<qlonglong>(m_totals.params);
        case Macs:
            return static_cast<qlonglong>(m_totals.macs);
        case Forward:
            return m_totals.forward_ms;
        case Backward:
            return m_totals.backward_ms;
        case Gradient:
            return static_cast<qlonglong>(m_totals.gradient_bytes);
        case Share:
            return share;
        case Name:
            return tr("Total");
        default:
            return QString();
        }
    }
    if (role == Qt::ToolTipRole)
        return tr("Sums over all layers; the iteration also holds input copy, update and "
                  "exposed communication, so the share may stay below 100 %");
    return {};
}

LayerFilterModel::LayerFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(LayerTableModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
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
