// Every number with its caveat (issue 31, item 4): what predict warns of on the command line
// raises the GUI's banner, the summary and `predict --format table` split the iteration with
// one function and agree, the layer table's shares total 100 %, and a trace of another
// network says so where it is read.
#include "cli_runner.h"

#include "layers/layer_table_model.h"
#include "prediction/measured_run.h"
#include "prediction/predictor.h"
#include "summary/summary_panel.h"
#include "window/banner.h"
#include "window/main_window.h"

#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTest>

#include <cmath>
#include <map>

using namespace iterscope;
using namespace iterscope::ui;

namespace {
const QString kUnknownOps = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/unknown-op.onnx");
const QString kAlexNetTrace =
    QStringLiteral(ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz");

// Issue 31's scenario: ResNet-50 on a DGX-1's 8 V100s, a 4-stage 1F1B pipeline.
ScenarioSettings pipeline() {
    ScenarioSettings s;
    s.parallel = QStringLiteral("pipeline");
    s.pipeline_stages = 4;
    s.schedule = QStringLiteral("1f1b");
    return s;
}

const QStringList kPipelineFlags{
    "--network",         "resnet50",  "--gpu",           "v100-sxm2-16gb",
    "--system",          "dgx1-v100", "--gpus-per-node", "8",
    "--batch",           "64",        "--parallel",      "pipeline",
    "--pipeline-stages", "4",         "--schedule",      "1f1b"};

CliResult cli(const QStringList& args) {
    qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
    return runCli(args);
}

bool show(MainWindow& w, const ScenarioSettings& s) {
    w.setScenario(s);
    if (!w.waitForResult() || !w.currentResult())
        return false;
    QApplication::processEvents();
    return true;
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}
} // namespace

class TestCaveats : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void anOnnxFileWithUnknownOpsRaisesTheBanner() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        QVERIFY(show(w, ScenarioSettings{}));
        QVERIFY(w.banner()->isHidden());
        w.openFile(kUnknownOps);
        QVERIFY(w.waitForResult());
        QApplication::processEvents();
        QVERIFY(w.currentResult());
        QCOMPARE(w.currentResult()->settings.network, kUnknownOps);
        QVERIFY(w.banner()->isVisible());
        QVERIFY2(w.banner()->text().contains(QStringLiteral("unknown ops imported as zero-cost")) &&
                     w.banner()->text().contains(QStringLiteral("FancyNorm (x2)")),
                 qPrintable(w.banner()->text()));
        // Issue 31 saw 3,870,249,514 images/s without a word: now the figures say it.
        for (const char* key : {"iteration", "throughput"})
            QVERIFY2(w.summaryPanel()
                         ->figure(QLatin1String(key))
                         .contains(QStringLiteral("unknown ops left out")),
                     qPrintable(w.summaryPanel()->figure(QLatin1String(key))));

        // A network the reader knows whole takes the caveat away.
        QVERIFY(show(w, ScenarioSettings{}));
        QVERIFY(w.banner()->isHidden());
        QVERIFY(!w.summaryPanel()
                     ->figure(QStringLiteral("throughput"))
                     .contains(QStringLiteral("unknown ops")));
    }

    void aBatchThatDoesNotFitRaisesTheBannerUntilOneFits() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        ScenarioSettings big;
        big.batch = 1024;
        QVERIFY(show(w, big));
        QVERIFY(!w.currentResult()->prediction.fits_in_memory);
        QVERIFY(w.banner()->isVisible());
        QVERIFY2(w.banner()->text().contains(QStringLiteral("does not fit")),
                 qPrintable(w.banner()->text()));
        QVERIFY(show(w, ScenarioSettings{}));
        QVERIFY(w.currentResult()->prediction.fits_in_memory);
        QVERIFY(w.banner()->isHidden());
    }

    void anErrorsBannerIsNotReplacedByACaveat() {
        MainWindow w(false);
        ScenarioSettings big;
        big.batch = 1024;
        QVERIFY(show(w, big));
        w.openFile(QStringLiteral(ITERSCOPE_TEST_DATA "/bad/onnx/cycle.onnx"));
        QVERIFY(
            QTest::qWaitFor([&w] { return w.banner()->text().contains("Could not open"); }, 30000));
        QVERIFY(w.waitForResult());
        QApplication::processEvents();
        QVERIFY2(w.banner()->text().contains(QStringLiteral("Could not open")),
                 qPrintable(w.banner()->text()));
    }

    // Issue 31: the GUI showed 76.2 / 120 / 0.248 ms, exposed 20.4, bubble 49.6 and the
    // table 77.61 / 134.03 / 1.37, exposed 4.13, bubble 54.00 for this pipeline. Both now
    // read core's iterationBreakdown(): the same numbers, adding up to the same iteration.
    void theSummaryAndTheCliTableAreOneBreakdown() {
        MainWindow w(false);
        QVERIFY(show(w, pipeline()));
        const ResultPtr r = w.currentResult();
        std::map<QString, double> gui;
        double gui_sum = 0;
        for (const auto& [key, ms] : w.summaryPanel()->breakdownLines()) {
            gui[key] = ms;
            gui_sum += ms;
        }
        QVERIFY(near(gui_sum, r->prediction.iteration_ms));

        const CliResult json =
            cli(QStringList{"predict"} + kPipelineFlags + QStringList{"--format", "json"});
        QCOMPARE(json.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QVERIFY(near(o["iteration_ms"].toDouble(), r->prediction.iteration_ms));
        const QJsonObject b = o["breakdown"].toObject();
        const auto part = [&b](const char* key) { return b[QLatin1String(key)].toDouble(); };
        QVERIFY(near(gui["passes"], part("forward_ms") + part("backward_ms") + part("update_ms")));
        QVERIFY(near(gui["exposed"], part("exposed_communication_ms")));
        QVERIFY(near(gui["bubble"], part("idle_ms")));
        QVERIFY(near(gui["straggler"], part("straggler_ms") + part("server_wait_ms")));
        QVERIFY(near(gui["input"], part("input_ms") + part("input_wait_ms")));
        QVERIFY(part("idle_ms") > 0); // a pipeline's bubble
        QVERIFY(near(part("forward_ms"), r->breakdown.forward_ms));
        QVERIFY(near(part("backward_ms"), r->breakdown.backward_ms));

        // The table prints the same parts, rounded.
        const CliResult table = cli(QStringList{"predict"} + kPipelineFlags);
        QCOMPARE(table.exit_code, 0);
        const QString text = QString::fromUtf8(table.out);
        const auto line = [&text](const QString& label, double ms) {
            const QRegularExpression re(QStringLiteral("^%1\\s+%2\\s+ms$")
                                            .arg(QRegularExpression::escape(label))
                                            .arg(ms, 0, 'f', 2),
                                        QRegularExpression::MultilineOption);
            return re.match(text).hasMatch();
        };
        QVERIFY2(line(QStringLiteral("forward"), r->breakdown.forward_ms), qPrintable(text));
        QVERIFY2(line(QStringLiteral("backward"), r->breakdown.backward_ms), qPrintable(text));
        QVERIFY2(line(QStringLiteral("update"), r->breakdown.update_ms), qPrintable(text));
        QVERIFY2(
            line(QStringLiteral("exposed communication"), r->breakdown.exposed_communication_ms),
            qPrintable(text));
        QVERIFY2(line(QStringLiteral("pipeline bubble (4 stages, %1 micro-batches)")
                          .arg(r->prediction.micro_batches),
                      r->breakdown.idle_ms),
                 qPrintable(text));
    }

    // Issue 31 saw a Share total of 293.2 % for this pipeline: its stages' layers run at
    // once on different GPUs, so their times over the iteration add up past it.
    void theLayerSharesTotal100Percent() {
        ComputeCache cache;
        for (const ScenarioSettings& s : {pipeline(), ScenarioSettings{}}) {
            const ResultPtr r = computePrediction(s, cache, 1);
            LayerTableModel model;
            model.setResult(r);
            const int rows = model.rowCount();
            double sum = 0;
            for (int row = 0; row + 1 < rows; ++row)
                sum += model.index(row, LayerTableModel::Share)
                           .data(LayerTableModel::SortRole)
                           .toDouble();
            QVERIFY2(std::abs(sum - 1) < 1e-9, qPrintable(QString::number(sum)));
            const QModelIndex totals = model.index(rows - 1, LayerTableModel::Share);
            QVERIFY(totals.data(LayerTableModel::IsTotalsRole).toBool());
            QVERIFY(std::abs(totals.data(LayerTableModel::SortRole).toDouble() - 1) < 1e-9);
            QCOMPARE(totals.data().toString(), QStringLiteral("100.0 %"));
        }
    }

    // Issue 31: an AlexNet trace against ResNet-152 read "+115.1 %", and "0 of 514 layers
    // matched" only in a tooltip.
    void aTraceOfAnotherNetworkSaysSoFirst() {
        ScenarioSettings resnet152;
        resnet152.network = QStringLiteral("resnet152");
        const TracePtr t = openTrace(kAlexNetTrace, resnet152);
        QCOMPARE(t->settings.network, QStringLiteral("resnet152"));
        ComputeCache cache;
        const ResultPtr r = computePrediction(t->settings, cache, 1, t);
        QVERIFY(r->trace && r->trace->error.isEmpty());
        QVERIFY(r->trace->other_network);
        QVERIFY(r->trace->differs.contains(QStringLiteral("network")));
        SummaryPanel summary;
        summary.setResult(r);
        const QString line = summary.figure(QStringLiteral("measured"));
        QVERIFY2(line.startsWith(QStringLiteral("not this network (%1 of %2 layers matched)")
                                     .arg(r->trace->comparison.layers_matched)
                                     .arg(r->trace->comparison.layers.size())),
                 qPrintable(line));

        // Its own network's trace is no such case.
        ScenarioSettings alexnet;
        alexnet.network = QStringLiteral("alexnet");
        const TracePtr own = openTrace(kAlexNetTrace, alexnet);
        const ResultPtr mine = computePrediction(own->settings, cache, 2, own);
        QVERIFY(mine->trace && !mine->trace->other_network);
        summary.setResult(mine);
        QVERIFY(!summary.figure(QStringLiteral("measured")).startsWith(QStringLiteral("not this")));
    }
};

QTEST_MAIN(TestCaveats)
#include "tst_caveats.moc"
