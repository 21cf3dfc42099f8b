// The layer breakdown as a table: one row per layer with timing, plus a totals row that
// stays last whatever the sort (LayerFilterModel). Adapts a PredictionResult; computes
// no timings.
#pragma once

#include "predictor.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace iterscope::ui {

class LayerTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Type,
        Output,
        Params,
        Macs,
        Forward,
        Backward,
        Gradient,
        Bucket,
        BoundBy,
        Share,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw number (or text) to sort and export by
        LayerIndexRole,              // index into Network::layers, -1 for the totals row
        IsTotalsRole,
        ExportRole,   // CSV: raw numbers, shapes as text; header: a machine-readable key
        FullNameRole, // the layer's name as in the file (the Name column shows it shortened)
    };

    explicit LayerTableModel(QObject* parent = nullptr);

    void setResult(ResultPtr result);
    const ResultPtr& result() const { return m_result; }
    // Row of a layer index (Network::layers), -1 if it has no row.
    int rowForLayer(long layer) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    QVariant layerData(int row, int column, int role) const;
    QVariant totalsData(int column, int role) const;

    struct Totals {
        int64_t params = 0, macs = 0, gradient_bytes = 0;
        double forward_ms = 0, backward_ms = 0;
    };
    ResultPtr m_result;
    Totals m_totals;
};

// Sorts by SortRole, filters by name or type (case-insensitive), keeps totals last.
class LayerFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit LayerFilterModel(QObject* parent = nullptr);

  protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace iterscope::ui
