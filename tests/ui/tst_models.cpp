// The layer table model over a hand-made Prediction: structure under
// QAbstractItemModelTester, totals that stay last whatever the sort, filtering, CSV.
#include "charts/charts.h"
#include "export/exporters.h"
#include "layers/layer_table_model.h"
#include "layers/layer_tree.h"

#include "network/analysis.h"
#include "network/zoo.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QtCharts/QValueAxis>

using namespace iterscope;
using namespace iterscope::ui;

namespace {
// A prediction as the model would give it, with made-up but consistent numbers: the item
// model must show what it is given, so the numbers need not be realistic.
ResultPtr handMadeResult() {
    auto net = std::make_shared<AnalyzedNetwork>();
    net->network = *zooNetwork("alexnet");
    net->analysis = analyze(net->network);
    net->source = "alexnet";
    auto result = std::make_shared<PredictionResult>();
    result->network = net;
    result->settings.batch = 32;
    result->gpu.memory_bytes = int64_t{16} << 30;
    auto& p = result->prediction;
    for (std::size_t i = 1; i < net->network.layers.size(); ++i) {
        LayerTiming t;
        t.layer = i;
        t.forward_ms = 0.1 * double(i);
        t.backward_ms = 0.2 * double(i);
        t.forward_bound = i % 2 ? Bound::Compute : Bound::Memory;
        t.backward_bound = Bound::Memory;
        t.gradient_bytes = net->analysis.layers[i].params * 4;
        t.bucket = t.gradient_bytes ? int(i % 3) : -1;
        p.layers.push_back(t);
        p.forward_ms += t.forward_ms;
        p.backward_ms += t.backward_ms;
    }
    p.iteration_ms = p.forward_ms + p.backward_ms + 1;
    p.images_per_second = 32 / p.iteration_ms * 1000;
    return result;
}

// Every layer row under `parent`, depth first (modules are not layers).
QList<QModelIndex> layerRows(const QAbstractItemModel& m, const QModelIndex& parent = {}) {
    QList<QModelIndex> out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        if (i.data(LayerTableModel::LayerIndexRole).toLongLong() >= 0)
            out.append(i);
        out += layerRows(m, i);
    }
    return out;
}

int totalsRow(const QAbstractItemModel& m) {
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.index(r, 0).data(LayerTableModel::IsTotalsRole).toBool())
            return r;
    return -1;
}
} // namespace

class TestModels : public QObject {
    Q_OBJECT
  private slots:
    void theLayerModelPassesTheModelTester() {
        LayerTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0); // no result yet: an empty table, not a crash
        const auto result = handMadeResult();
        model.setResult(result);
        QCOMPARE(layerRows(model).size(), qsizetype(result->prediction.layers.size()));
        QVERIFY(model.hasModules()); // torchvision's AlexNet: features.0, ..., classifier.6
        QCOMPARE(model.columnCount(), int(LayerTableModel::ColumnCount));
        model.setResult(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void modulesHoldTheirLayersWithSubtotals() {
        LayerTableModel model;
        const auto result = handMadeResult();
        model.setResult(result);
        QCOMPARE(model.index(0, LayerTableModel::Name).data().toString(),
                 QStringLiteral("features"));
        QVERIFY(model.index(0, 0).data(LayerTableModel::IsModuleRole).toBool());
        const QModelIndex features = model.index(0, 0);
        double forward = 0;
        for (const QModelIndex& layer : layerRows(model, features)) {
            QVERIFY(layer.data(LayerTableModel::FullNameRole).toString().startsWith("features."));
            forward += layer.siblingAtColumn(LayerTableModel::Forward)
                           .data(LayerTableModel::SortRole)
                           .toDouble();
        }
        QVERIFY(forward > 0);
        QCOMPARE(features.siblingAtColumn(LayerTableModel::Forward)
                     .data(LayerTableModel::SortRole)
                     .toDouble(),
                 forward);
        QVERIFY(
            features.siblingAtColumn(LayerTableModel::Type).data().toString().endsWith("layers"));
    }

    void shapesHaveTheBatchFirst() {
        LayerTableModel model;
        model.setResult(handMadeResult()); // batch 32
        const long conv = 1; // features.0, AlexNet's first convolution: 64 × 55 × 55
        QCOMPARE(
            model.indexForLayer(conv).siblingAtColumn(LayerTableModel::Output).data().toString(),
            QStringLiteral("32×64×55×55"));
    }

    void aNewResultForTheSameNetworkChangesDataNotRows() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto first = handMadeResult();
        model.setResult(first);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        auto slower = std::make_shared<PredictionResult>(*first);
        for (auto& t : slower->prediction.layers)
            t.forward_ms *= 2;
        model.setResult(slower); // a slider moved: same network, new numbers
        QCOMPARE(resets.count(), 0);
        QVERIFY(changes.count() >= 1); // the top, and each module's rows
        const long layer = long(first->prediction.layers.front().layer);
        QCOMPARE(
            model.indexForLayer(layer).siblingAtColumn(LayerTableModel::Forward).data().toString(),
            QStringLiteral("200 µs"));
        model.setResult(handMadeResult()); // another network object: rows may differ
        QCOMPARE(resets.count(), 1);
    }

    void chartAxesGetAOneTwoFiveRangeInOneCall() {
        QValueAxis axis;
        QSignalSpy ranges(&axis, &QValueAxis::rangeChanged);
        // 1120 / 5 = 224 rounds up to a step of 500: 0..1500, three intervals.
        QCOMPARE(setNiceRange(&axis, 1037 * 1.08), 500.0);
        QCOMPARE(axis.max(), 1500.0);
        QCOMPARE(axis.tickCount(), 4);
        QCOMPARE(ranges.count(), 1);
        QCOMPARE(setNiceRange(&axis, 1100), 500.0); // the same range: the axis is left alone
        QCOMPARE(ranges.count(), 1);
        QCOMPARE(setNiceRange(&axis, 0), 0.2); // nothing to show: 0..1
        QCOMPARE(axis.max(), 1.0);
    }

    void cellsShowTheResultsNumbers() {
        LayerTableModel model;
        const auto result = handMadeResult();
        model.setResult(result);
        const auto& first = result->prediction.layers.front();
        const QModelIndex row = model.indexForLayer(long(first.layer));
        QCOMPARE(row.siblingAtColumn(LayerTableModel::Name).data().toString(),
                 QString::fromStdString(result->network->network.layers[first.layer].name));
        QCOMPARE(row.siblingAtColumn(LayerTableModel::Forward)
                     .data(LayerTableModel::SortRole)
                     .toDouble(),
                 first.forward_ms);
        QCOMPARE(row.siblingAtColumn(LayerTableModel::Forward).data().toString(),
                 QStringLiteral("100 µs"));
        QCOMPARE(row.siblingAtColumn(LayerTableModel::BoundBy).data().toString(),
                 QStringLiteral("compute / memory"));
        QCOMPARE(
            row.siblingAtColumn(LayerTableModel::Macs).data(LayerTableModel::SortRole).toLongLong(),
            result->network->analysis.layers[first.layer].macs * 32);
        const int totals = totalsRow(model);
        QCOMPARE(totals, model.rowCount() - 1);
        QCOMPARE(model.index(totals, LayerTableModel::Forward)
                     .data(LayerTableModel::SortRole)
                     .toDouble(),
                 result->prediction.forward_ms);
        QCOMPARE(model.index(totals, LayerTableModel::Params)
                     .data(LayerTableModel::SortRole)
                     .toLongLong(),
                 result->network->analysis.total_params);
        QVERIFY(!model.indexForLayer(0).isValid()); // the input layer has no timing row
    }

    void totalsStayLastInEitherSortOrder() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(handMadeResult());
        for (auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            proxy.sort(LayerTableModel::Backward, order);
            QCOMPARE(totalsRow(proxy), proxy.rowCount() - 1);
            const double a = proxy.index(0, LayerTableModel::Backward)
                                 .data(LayerTableModel::SortRole)
                                 .toDouble();
            const double b = proxy.index(1, LayerTableModel::Backward)
                                 .data(LayerTableModel::SortRole)
                                 .toDouble();
            QVERIFY(order == Qt::AscendingOrder ? a <= b : a >= b);
        }
    }

    void theFilterMatchesNamesAndTypesButKeepsTotals() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(handMadeResult());
        proxy.setFilterText(QStringLiteral("convolution"));
        QCOMPARE(layerRows(proxy).size(), 5); // AlexNet's five convolutions, in their module
        QCOMPARE(proxy.shownLayers(), 5);
        QCOMPARE(totalsRow(proxy), proxy.rowCount() - 1);
        proxy.setFilterText(QStringLiteral("no such layer"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(totalsRow(proxy), 0);
    }

    void theFilteredTotalSumsOnlyWhatTheFilterShows() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        const auto result = handMadeResult();
        model.setResult(result);
        proxy.setFilterText(QStringLiteral("convolution"));
        double shown = 0;
        for (const QModelIndex& layer : layerRows(proxy))
            shown += layer.siblingAtColumn(LayerTableModel::Backward)
                         .data(LayerTableModel::SortRole)
                         .toDouble();
        const QModelIndex totals = proxy.index(totalsRow(proxy), LayerTableModel::Backward);
        QCOMPARE(totals.data(LayerTableModel::SortRole).toDouble(), shown);
        QVERIFY(shown < result->prediction.backward_ms);
        QVERIFY(
            totals.siblingAtColumn(LayerTableModel::Name).data().toString().contains("5 shown"));
        proxy.setFilterText({});
        QCOMPARE(proxy.index(totalsRow(proxy), LayerTableModel::Backward)
                     .data(LayerTableModel::SortRole)
                     .toDouble(),
                 result->prediction.backward_ms);
    }

    void aModuleUnderAFilterSumsOnlyTheLayersItShows() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(handMadeResult());
        const auto backward = [](const QModelIndex& i) {
            return i.siblingAtColumn(LayerTableModel::Backward)
                .data(LayerTableModel::SortRole)
                .toDouble();
        };
        const double unfiltered = backward(proxy.index(0, 0));
        // "features" holds convolutions, ReLUs and poolings; the filter shows the first.
        proxy.setFilterText(QStringLiteral("convolution"));
        const QModelIndex features = proxy.index(0, 0);
        QCOMPARE(features.data().toString(), QStringLiteral("features"));
        double shown = 0;
        for (const QModelIndex& layer : layerRows(proxy, features))
            shown += backward(layer);
        QVERIFY(shown > 0);
        QCOMPARE(backward(features), shown);
        QVERIFY(shown < unfiltered);
        QCOMPARE(features.siblingAtColumn(LayerTableModel::Type).data().toString(),
                 QStringLiteral("5 layers"));
        proxy.setFilterText({});
        QCOMPARE(backward(proxy.index(0, 0)), unfiltered);
    }

    void moduleTreesComeFromModulePathsAndDots() {
        const std::vector<QString> onnx = {
            "/features/features.0/features.0.0/Conv", "/features/features.0/features.0.2/Clip",
            "/features/features.1/conv/conv.0/conv.0.0/Conv", "/classifier/classifier.1/Gemm"};
        const LayerTree tree = layerTree(onnx);
        QCOMPARE(tree.top.size(), std::size_t(2)); // features, classifier (one layer: no level)
        const auto& features = tree.nodes[std::size_t(tree.top[0])];
        QCOMPARE(features.label, QStringLiteral("features"));
        // features.0 holds two layers; features.1 one, so it is no level of its own.
        QCOMPARE(features.children.size(), std::size_t(2));
        QCOMPARE(tree.nodes[std::size_t(features.children[0])].label, QStringLiteral("features.0"));
        QVERIFY(tree.nodes[std::size_t(features.children[1])].timing == 2);
        QVERIFY(tree.nodes[std::size_t(tree.top[1])].timing == 3);
        const LayerTree flat = layerTree({"conv1", "res2a_branch2a", "fc1000"});
        QVERIFY(!flat.hasModules());
        QCOMPARE(flat.top.size(), std::size_t(3));
        QCOMPARE(moduleChain(QStringLiteral("layer1.0.conv1")),
                 (std::vector<QString>{"layer1", "layer1.0"}));
    }

    void csvHoldsRawNumbersWithAHeader() {
        LayerTableModel model;
        LayerFilterModel proxy;
        proxy.setSourceModel(&model);
        model.setResult(handMadeResult());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("layers.csv"));
        QString error;
        QVERIFY2(exportCsv(proxy, path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        const auto result = model.result();
        QCOMPARE(lines.size(), qsizetype(result->prediction.layers.size()) + 2); // header, totals
        QVERIFY(lines[0].startsWith(QStringLiteral("layer,type,output,params,macs,forward_ms")));
        const auto fields = lines[1].split(',');
        QCOMPARE(fields.size(), int(LayerTableModel::ColumnCount));
        QCOMPARE(fields[LayerTableModel::Forward].toDouble(), 0.1);
        QVERIFY(lines.last().startsWith(QStringLiteral("Total")));
        // A layer without gradients has no bucket: blank, as the table shows it, not -1.
        for (std::size_t r = 0; r < result->prediction.layers.size(); ++r) {
            const auto row = lines[qsizetype(r) + 1].split(',');
            const bool has_gradients = row[LayerTableModel::Gradient].toLongLong() > 0;
            QCOMPARE(row[LayerTableModel::Bucket].isEmpty(), !has_gradients);
            QCOMPARE(model.indexForLayer(long(result->prediction.layers[r].layer))
                         .siblingAtColumn(LayerTableModel::Bucket)
                         .data()
                         .toString()
                         .isEmpty(),
                     !has_gradients);
        }

        QVERIFY(!exportCsv(proxy, dir.filePath(QStringLiteral("missing/dir/x.csv")), &error));
        QVERIFY(error.contains(QStringLiteral("x.csv")));
    }
};

QTEST_MAIN(TestModels)
#include "tst_models.moc"
