// The layer breakdown as a tree, like torchinfo's summary: the network's modules
// (layer_tree.h) with their subtotals, the layers under them, and a totals row that stays
// last whatever the sort (LayerFilterModel); subtotals and totals sum only the layers the
// filter shows.
// Adapts a PredictionResult; adds up its figures, computes no timings.
#pragma once

#include "layers/layer_tree.h"
#include "prediction/predictor.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

namespace iterscope::ui {

class LayerTableModel : public QAbstractItemModel {
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
        Measured, // the opened trace's kernel time, where a layer was matched one to one
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw number (or text) to sort and export by
        LayerIndexRole,              // index into Network::layers; -1 for modules and totals
        IsTotalsRole,
        ExportRole,   // CSV: raw numbers, shapes as text; header: a machine-readable key
        FullNameRole, // the layer's name as in the file (the Name column shows it shortened)
        IsModuleRole,
    };

    explicit LayerTableModel(QObject* parent = nullptr);

    void setResult(ResultPtr result);
    const ResultPtr& result() const { return m_result; }
    // Whether the layers sit in modules (rows with children).
    bool hasModules() const { return m_tree.hasModules(); }
    int layerCount() const { return static_cast<int>(m_tree.node_of_timing.size()); }
    // The row of a layer (an index into Network::layers); invalid if it has none.
    QModelIndex indexForLayer(long layer) const;
    // Sums the totals row over these layers only (indices into Network::layers), as the
    // filter shows them; nullopt: over every layer.
    void setTotalsOf(const std::optional<std::vector<long>>& layers);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    struct Sums {
        int64_t params = 0, macs = 0, gradient_bytes = 0;
        double forward_ms = 0, backward_ms = 0;
        // Over the layers matched one to one with the opened trace's ops.
        double measured_ms = 0, predicted_kernel_ms = 0;
        int measured_layers = 0;
        int layers = 0;
        int last_timing = -1; // the module's last layer, whose output is the module's
    };
    int nodeOf(const QModelIndex& index) const;
    // The opened trace's measured kernel time of a layer and the predicted kernel time of
    // the same passes; nullopt where it was not matched one to one (or no trace is open).
    std::optional<std::pair<double, double>> measuredOf(std::size_t layer) const;
    QVariant layerData(const LayerTiming& t, int column, int role) const;
    QVariant sumsData(const Sums& sums, const QString& label, int column, int role,
                      bool totals) const;
    void addUp();
    void emitChanged(const QModelIndex& parent, const std::vector<int>& children);

    ResultPtr m_result;
    LayerTree m_tree;
    std::vector<Sums> m_sums; // parallel to m_tree.nodes
    Sums m_totals;
    // Forward + backward of every layer: what a layer's share is of. Not the iteration: a
    // pipeline's layers run on several GPUs at once, so their times over the iteration's
    // total far past 100 % (issue 31 saw 293 %).
    double m_compute_ms = 0;
    std::optional<std::vector<long>> m_totals_of;
};

// Sorts by SortRole within each module, filters by name, type or bound (case-insensitive,
// a module with its layers), keeps totals last and has them sum what it shows.
class LayerFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit LayerFilterModel(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    // Layers (not modules) shown by the filter; every layer without one.
    int shownLayers() const { return m_shown; }

  protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

  private:
    void updateTotals();
    void collect(const QModelIndex& parent, std::vector<long>& layers) const;

    int m_shown = 0;
};

} // namespace iterscope::ui
