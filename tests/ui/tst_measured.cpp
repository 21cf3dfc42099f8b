// What the user measured, in the GUI: a profiler trace opened and compared with every
// prediction (summary, layer table, timeline, scaling chart), a measurements CSV drawn on
// the scaling charts, a fitted software profile opened as the software, and the harness
// (layout, data) as a choice of its own.
#include "charts/charts.h"
#include "layers/layer_table_model.h"
#include "prediction/measured_run.h"
#include "prediction/predictor.h"
#include "scenario/scenario_panel.h"
#include "scenario/settings_from_choices.h"
#include "session/session.h"
#include "summary/summary_panel.h"
#include "timeline/timeline_view.h"
#include "window/banner.h"
#include "window/main_window.h"

#include "gzip_bytes.h"
#include "training_trace.h"

#include "trace/kineto_trace.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <cmath>
#include <functional>

using namespace iterscope;
using namespace iterscope::ui;

namespace {
const QString kForwardFixture =
    QStringLiteral(ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz");

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(bytes.data(), static_cast<qint64>(bytes.size()));
    return path;
}

ScenarioSettings alexnet() {
    ScenarioSettings s;
    s.network = QStringLiteral("alexnet");
    return s;
}

TrainingTrace trainingTrace() {
    TrainingTraceOptions o;
    o.steps = 2;
    o.shapes = true; // the batch from the op shapes
    o.batch = 64;
    return alexnetTrainingTrace(o);
}

bool waitForTrace(MainWindow& w) {
    return QTest::qWaitFor([&w] { return w.traceBeingRead().isEmpty(); }, 30000) &&
           w.waitForResult();
}
} // namespace

class TestMeasured : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_training;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_training = writeFile(m_dir, QStringLiteral("train.pt.trace.json.gz"),
                               gzipBytes(trainingTrace().json));
        QVERIFY(!m_training.isEmpty());
    }

    void aTraceSaysItsScenario() {
        const TracePtr t = openTrace(m_training, alexnet());
        QCOMPARE(t->settings.network, QStringLiteral("alexnet")); // a trace names no network
        QCOMPARE(t->settings.gpu, QStringLiteral("h100-sxm"));    // 132 SMs, 9.0, 80 GB
        QCOMPARE(t->settings.totalGpus(), 2);                     // world size 2
        QCOMPARE(t->settings.batch, 64);
        QCOMPARE(t->batch_from, QStringLiteral("op shapes"));
        QCOMPARE(t->analysis.steps.size(), std::size_t{2});
    }

    void everyPredictionIsComparedWithTheTrace() {
        const TrainingTrace truth = trainingTrace();
        const TracePtr t = openTrace(m_training, alexnet());
        ComputeCache cache;
        const auto r = computePrediction(t->settings, cache, 1, t);
        QVERIFY(r->trace);
        const TraceOverlay& o = *r->trace;
        QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
        QVERIFY(o.comparison.training);
        QVERIFY(o.differs.isEmpty());
        // Every convolution and linear layer matched, its time the trace's (per step).
        int checked = 0;
        for (std::size_t l = 0; l < truth.kinds.size(); ++l) {
            if (truth.kinds[l] != "conv" && truth.kinds[l] != "linear")
                continue;
            const auto measured = o.measuredLayerMs(l);
            QVERIFY2(measured, qPrintable(QString::number(l)));
            const double expected = (truth.forward_us[l] + truth.backward_us[l]) / 2 / 1000;
            QVERIFY2(
                std::abs(*measured - expected) < 1e-9,
                qPrintable(QStringLiteral("%1: %2 vs %3").arg(l).arg(*measured).arg(expected)));
            ++checked;
        }
        QCOMPARE(checked, 8); // five convolutions, three linear layers
        // The measured step as timeline events, each with the op that ran it.
        QVERIFY(!o.timeline.empty());
        QCOMPARE(o.timeline_ops.size(), o.timeline.size());
        // Throughput of the traced run: batch × GPUs over the median step.
        QVERIFY(std::abs(o.images_per_second - 64.0 * 2 * 1000 / o.comparison.measured_step_ms) <
                1e-6);

        // Another GPU: still compared, and said to be another run.
        ScenarioSettings other = t->settings;
        other.gpu = QStringLiteral("a100-sxm4-80gb");
        other.system = QStringLiteral("dgx-a100");
        const auto r2 = computePrediction(other, cache, 2, t);
        QVERIFY(r2->trace);
        QCOMPARE(r2->trace->differs, QStringList{QStringLiteral("GPU")});
        QVERIFY(r2->trace->comparison.predicted_step_ms != o.comparison.predicted_step_ms);
    }

    void theViewsShowTheMeasuredStep() {
        const TracePtr t = openTrace(m_training, alexnet());
        ComputeCache cache;
        const ResultPtr r = computePrediction(t->settings, cache, 1, t);

        LayerTableModel model;
        model.setResult(r);
        // The first convolution, wherever in the module tree it sits.
        QModelIndex conv;
        std::function<void(const QModelIndex&)> find = [&](const QModelIndex& parent) {
            for (int row = 0; row < model.rowCount(parent) && !conv.isValid(); ++row) {
                const QModelIndex i = model.index(row, LayerTableModel::Type, parent);
                if (i.data().toString() == QLatin1String("Convolution"))
                    conv = i;
                find(i.siblingAtColumn(0));
            }
        };
        find({});
        QVERIFY(conv.isValid());
        const long layer = conv.data(LayerTableModel::LayerIndexRole).toLongLong();
        const QModelIndex cell = conv.siblingAtColumn(LayerTableModel::Measured);
        QCOMPARE(cell.data(LayerTableModel::SortRole).toDouble(),
                 *r->trace->measuredLayerMs(static_cast<std::size_t>(layer)));
        QVERIFY2(cell.data().toString().contains(QLatin1String(" %")),
                 qPrintable(cell.data().toString()));
        QCOMPARE(
            model.headerData(LayerTableModel::Measured, Qt::Horizontal, LayerTableModel::ExportRole)
                .toString(),
            QStringLiteral("measured_ms"));

        SummaryPanel summary;
        summary.setResult(r);
        const QString line = summary.figure(QStringLiteral("measured"));
        QVERIFY2(line.contains(QLatin1String("predicted")) && line.contains(QLatin1String(" %")) &&
                     line.contains(QLatin1String("train.pt.trace.json.gz")),
                 qPrintable(line));

        TimelineView timeline;
        timeline.resize(900, 400);
        ComputeCache plain_cache;
        TimelineView plain;
        plain.setResult(computePrediction(t->settings, plain_cache, 1));
        timeline.setResult(r);
        QCOMPARE(plain.groupCount(), 1);
        QCOMPARE(timeline.groupCount(), 2); // predicted, then measured
        QVERIFY(timeline.rowLabels().size() > plain.rowLabels().size());
        // Both blocks in the compact layout: a compute row each, so they fit one height.
        QCOMPARE(timeline.rowLabels().count(QStringLiteral("Compute")), 2);
        QCOMPARE(timeline.groupOfRow(static_cast<int>(timeline.rowLabels().size()) - 1), 1);
        // Bars of the measured block can be hovered: an event index past the predicted ones.
        QImage image(900, 400, QImage::Format_ARGB32);
        QPainter painter(&image);
        timeline.paintTimeline(painter, image.rect()); // draws both blocks without failing
    }

    void theWindowOpensAndClosesATrace() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(alexnet());
        QVERIFY(w.waitForResult());
        QVERIFY(w.layerView()->isColumnHidden(LayerTableModel::Measured));
        QVERIFY(!w.action(QStringLiteral("actionCloseTrace"))->isEnabled());

        w.openTrace(m_training);
        QVERIFY(waitForTrace(w));
        QVERIFY(w.currentResult()->trace);
        QCOMPARE(w.currentResult()->settings.gpu, QStringLiteral("h100-sxm"));
        QVERIFY(!w.layerView()->isColumnHidden(LayerTableModel::Measured));
        QVERIFY(!w.summaryPanel()->figure(QStringLiteral("measured")).isEmpty());
        QCOMPARE(w.timeline()->groupCount(), 2);
        // The traced run is a measured point on the GPU chart, at its 2 GPUs.
        const auto points = w.scalingCharts()->measuredPoints(true);
        QCOMPARE(points.size(), std::size_t{1});
        QCOMPARE(points[0].gpus, 2);
        // The traced scenario was one undo step.
        w.action(QStringLiteral("actionUndo"))->trigger();
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.gpu, alexnet().gpu);
        QVERIFY(w.currentResult()->trace); // still compared, now with another GPU
        QVERIFY(w.currentResult()->trace->differs.contains(QStringLiteral("GPU")));

        w.closeTrace();
        QVERIFY(w.waitForResult());
        QVERIFY(!w.currentResult()->trace);
        QVERIFY(w.layerView()->isColumnHidden(LayerTableModel::Measured));
        QCOMPARE(w.timeline()->groupCount(), 1);
    }

    void anInferenceTraceComparesTheForwardPass() {
        // The real A100 AlexNet trace: forward passes only.
        const TracePtr t = openTrace(kForwardFixture, alexnet());
        QCOMPARE(t->settings.gpu, QStringLiteral("a100-sxm4-40gb"));
        ComputeCache cache;
        const auto r = computePrediction(t->settings, cache, 1, t);
        QVERIFY(r->trace && r->trace->error.isEmpty());
        QVERIFY(!r->trace->comparison.training);
        QCOMPARE(r->trace->images_per_second, 0.0); // no training step, no training throughput
        QVERIFY(r->trace->comparison.layers_matched > 0);
        SummaryPanel summary;
        summary.setResult(r);
        const QString line = summary.figure(QStringLiteral("measured"));
        QVERIFY2(line.contains(QLatin1String("forward pass")), qPrintable(line));
        // The pass took 36 ms of wall time with the GPU busy for 5.3 ms of it: said, with
        // the busy time, so the step's error is not read as the model's.
        QVERIFY(r->trace->comparison.measured_busy_ms <
                0.5 * r->trace->comparison.measured_step_ms);
        QVERIFY2(line.contains(QLatin1String("GPU busy only 5.")), qPrintable(line));
    }

    void aBadTraceIsOneLineAndChangesNothing() {
        const QString truncated = writeFile(m_dir, QStringLiteral("cut.json.gz"),
                                            gzipBytes(trainingTrace().json).substr(0, 200));
        const QString not_json = writeFile(m_dir, QStringLiteral("notes.json"), "hello");
        for (const QString& path : {truncated, not_json}) {
            MainWindow w(false);
            w.setScenario(alexnet());
            QVERIFY(w.waitForResult());
            const ScenarioSettings before = w.currentResult()->settings;
            w.openTrace(path);
            QVERIFY(waitForTrace(w));
            QVERIFY(w.banner()->isVisible() || !w.lastError().isEmpty());
            QVERIFY2(w.lastError().contains(QFileInfo(path).fileName()) &&
                         !w.lastError().contains(QLatin1Char('\n')),
                     qPrintable(w.lastError()));
            QVERIFY(!w.predictor()->trace());
            QCOMPARE(w.scenarioPanel()->settings(), before);
        }
    }

    void measurementsAreDrawnWhereTheyMeasuredTheScenario() {
        const QString csv = writeFile(
            m_dir, QStringLiteral("runs.csv"),
            "id,source,network,image,batch_per_gpu,gpu,system,nodes,gpus_per_node,precision,"
            "software,sync,metric,measured\n"
            "r1,mine,resnet50,224,64,v100-sxm2-16gb,dgx1-v100,1,8,fp32,pytorch,allreduce-nccl,"
            "images_per_second,2400\n"
            "r2,mine,resnet50,224,64,v100-sxm2-16gb,dgx1-v100,1,1,fp32,pytorch,none,"
            "images_per_second,330\n"
            "r3,mine,resnet50,224,128,v100-sxm2-16gb,dgx1-v100,1,8,fp32,pytorch,allreduce-nccl,"
            "images_per_second,2600\n"
            "r4,mine,resnet50,224,64,a100-sxm4-40gb,dgx-a100,1,8,fp32,pytorch,allreduce-nccl,"
            "images_per_second,5000\n"
            "r5,mine,resnet50,224,64,v100-sxm2-16gb,dgx1-v100,1,8,amp,pytorch,allreduce-nccl,"
            "images_per_second,7000\n");
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(ScenarioSettings{}); // resnet50, V100, 8 GPUs, batch 64, FP32
        QVERIFY(w.waitForResult());
        QString error;
        QVERIFY2(w.openMeasurements(csv, &error), qPrintable(error));
        QCOMPARE(w.scalingCharts()->measurementCount(), 5);
        // GPU chart, at batch 64: r1 (8 GPUs) and r2 (1 GPU); batch chart, at 8 GPUs: r1, r3.
        const auto by_gpus = w.scalingCharts()->measuredPoints(true);
        QCOMPARE(by_gpus.size(), std::size_t{2});
        const auto by_batch = w.scalingCharts()->measuredPoints(false);
        QCOMPARE(by_batch.size(), std::size_t{2});
        QVERIFY(std::any_of(by_batch.begin(), by_batch.end(),
                            [](const MeasuredPoint& p) { return p.batch == 128; }));
        QVERIFY(w.scalingCharts()->gpuChart()->grab().width() > 0);
        // Another system with the same GPU: none of the DGX-1's runs are its.
        ScenarioSettings dgx2;
        dgx2.system = QStringLiteral("dgx2-v100");
        w.setScenario(dgx2);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.system, QStringLiteral("dgx2-v100"));
        QCOMPARE(w.scalingCharts()->measuredPoints(true).size(), std::size_t{0});
        QCOMPARE(w.scalingCharts()->measuredPoints(false).size(), std::size_t{0});
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QCOMPARE(w.scalingCharts()->measuredPoints(true).size(), std::size_t{2});

        QVERIFY(!w.openMeasurements(m_dir.filePath(QStringLiteral("missing.csv")), &error));
        QVERIFY2(error.contains(QLatin1String("missing.csv")), qPrintable(error));
        QCOMPARE(w.scalingCharts()->measurementCount(), 5); // the last good file stays
    }

    void aFittedSoftwareProfileOpensAsTheSoftware() {
        QFile base(QStringLiteral(ITERSCOPE_TEST_DATA "/../../profiles/software/pytorch.json"));
        QVERIFY(base.open(QIODevice::ReadOnly));
        const QString fitted =
            writeFile(m_dir, QStringLiteral("fitted.json"), base.readAll().toStdString());
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QString error;
        QVERIFY2(w.openSoftwareProfile(fitted, &error), qPrintable(error));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.software, QFileInfo(fitted).absoluteFilePath());
        QCOMPARE(w.scenarioPanel()->findChild<QComboBox*>()->count() > 0, true);

        const QString broken = writeFile(m_dir, QStringLiteral("broken.json"), "{\"id\": 3");
        QVERIFY(!w.openSoftwareProfile(broken, &error));
        QVERIFY2(error.contains(QLatin1String("broken.json")), qPrintable(error));
        QCOMPARE(w.currentResult()->settings.software, QFileInfo(fitted).absoluteFilePath());
    }

    void aProfileFittedToYourRunsSaysSoAndComparesWithItsBaseInOneClick() {
        // What `iterscope-cli fit` writes: the base's values, what it was fitted to, its
        // own band and a part kept for the GPU it measured.
        QFile base(QStringLiteral(ITERSCOPE_TEST_DATA "/../../profiles/software/pytorch.json"));
        QVERIFY(base.open(QIODevice::ReadOnly));
        nlohmann::json doc = nlohmann::json::parse(base.readAll().toStdString());
        doc["id"] = "mine";
        doc["fitted_to"] = {{"base", "pytorch"},
                            {"rows", 8},
                            {"gpus", {"v100-sxm2-16gb"}},
                            {"harness_share", 0.36},
                            {"other_gpus_band_scale", 0.88}};
        doc["error_band"] = {{"rows", 8}, {"half_width_log", 0.04}, {"architectures", {"Volta"}}};
        doc["gpu_corrections"] = {{"v100-sxm2-16gb", {{"fp32", 1.05}}}};
        const QString fitted = writeFile(m_dir, QStringLiteral("mine.json"), doc.dump());
        MainWindow w(false);
        w.setScenario(ScenarioSettings{}); // V100, FP32
        QVERIFY(w.waitForResult());
        QString error;
        QVERIFY2(w.openSoftwareProfile(fitted, &error), qPrintable(error));
        QVERIFY(w.waitForResult());
        const QString note = w.summaryPanel()->warnings().join(QLatin1Char('\n'));
        QVERIFY2(note.contains(QLatin1String("Fitted to 8 of your runs on v100-sxm2-16gb")),
                 qPrintable(note));
        QVERIFY2(note.contains(QLatin1String("each left out in turn, within")), qPrintable(note));
        QVERIFY2(note.contains(QLatin1String("other GPUs carry 36% of the harness correction")),
                 qPrintable(note));
        QVERIFY(w.summaryPanel()->messagesLabel()->text().contains(QLatin1String("compare-base")));
        // The link takes the theme's link colour, and takes it again when the theme changes
        // (a link parsed in the light theme's blue is unreadable on the dark one).
        const QString light_link = w.summaryPanel()->palette().color(QPalette::Link).name();
        QVERIFY(w.summaryPanel()->messagesLabel()->text().contains(light_link));
        w.setDarkTheme(true);
        QCoreApplication::processEvents(); // the palette reaches the widgets by events
        const QString dark_link = w.summaryPanel()->palette().color(QPalette::Link).name();
        QVERIFY(dark_link != light_link);
        QVERIFY2(w.summaryPanel()->messagesLabel()->text().contains(dark_link),
                 qPrintable(w.summaryPanel()->messagesLabel()->text()));
        w.setDarkTheme(false);
        // The link pins the same scenario on the shipped profile.
        const int pins = static_cast<int>(w.scalingCharts()->pins().size());
        emit w.summaryPanel()->compareWithBaseRequested(QStringLiteral("pytorch"));
        QCOMPARE(static_cast<int>(w.scalingCharts()->pins().size()), pins + 1);
        QCOMPARE(w.scalingCharts()->pins().back().settings.software, QStringLiteral("pytorch"));
        // On another GPU the note says what that GPU carries.
        ScenarioSettings a100 = w.currentResult()->settings;
        a100.gpu = QStringLiteral("a100-sxm4-80gb");
        a100.system = QStringLiteral("dgx-a100");
        w.setScenario(a100);
        QVERIFY(w.waitForResult());
        const QString other = w.summaryPanel()->warnings().join(QLatin1Char('\n'));
        QVERIFY2(other.contains(QLatin1String("this GPU carries 36%")), qPrintable(other));
        // ...and what the fit does to its band: the shipped one, narrowed as the public
        // files' leave-one-GPU-in table measured.
        QVERIFY2(other.contains(QLatin1String("and the shipped error band at 88% of its width")),
                 qPrintable(other));
    }

    void theHarnessIsAChoice() {
        // The panel, a session and the command line's flags carry layout and data.
        ScenarioSettings s;
        s.precision = QStringLiteral("amp");
        s.layout = QStringLiteral("nhwc");
        s.data = QStringLiteral("synthetic");
        QString error;
        const auto back = ScenarioSettings::fromJson(s.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(*back, s);

        ComputeCache cache;
        QVERIFY(buildScenario(s, cache).nhwc());
        QVERIFY(!buildScenario(s, cache).realData());
        ScenarioSettings nchw = s;
        nchw.layout = QStringLiteral("nchw");
        QVERIFY(!buildScenario(nchw, cache).nhwc());
        // Under AMP, NHWC tensor cores run convolutions without transposes: faster.
        QVERIFY(computePrediction(s, cache)->prediction.iteration_ms <
                computePrediction(nchw, cache)->prediction.iteration_ms);
        ScenarioSettings bad = s;
        bad.layout = QStringLiteral("nwhc");
        QVERIFY_THROWS_EXCEPTION(InputError, buildScenario(bad, cache));

        ScenarioChoices flags;
        flags.layout = "nhwc";
        flags.data = "real";
        const ScenarioSettings from_flags = settingsFromChoices(flags);
        QCOMPARE(from_flags.layout, QStringLiteral("nhwc"));
        QCOMPARE(from_flags.data, QStringLiteral("real"));
        flags.data = "fake";
        QVERIFY_THROWS_EXCEPTION(InputError, settingsFromChoices(flags));

        MainWindow w(false);
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        auto* layout = w.scenarioPanel()->findChild<QComboBox*>(QStringLiteral("layoutCombo"));
        auto* data = w.scenarioPanel()->findChild<QComboBox*>(QStringLiteral("dataCombo"));
        QVERIFY(layout && data);
        QCOMPARE(layout->currentData().toString(), QStringLiteral("nhwc"));
        QCOMPARE(data->currentData().toString(), QStringLiteral("synthetic"));
        // "auto" says what it stands for: PyTorch's own NCHW, real images.
        layout->setCurrentIndex(layout->findData(QStringLiteral("auto")));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.layout, QStringLiteral("auto"));
        QVERIFY2(layout->itemText(0).contains(QLatin1String("NCHW")),
                 qPrintable(layout->itemText(0)));
        QVERIFY2(data->itemText(0).contains(QLatin1String("real")), qPrintable(data->itemText(0)));
    }
};

QTEST_MAIN(TestMeasured)
#include "tst_measured.moc"
