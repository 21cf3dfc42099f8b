// Measured steps from traces against the model (core/trace/trace_steps.h, trace_compare.h,
// trace_scenario.h): on the real A100 fixture and on synthetic training traces whose kernel
// times the test knows, every convolution's and linear layer's kernels are found and summed
// exactly, passes and steps are told apart, and the GPU is named.
#include "gzip_bytes.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "trace/kineto_trace.h"
#include "trace/trace_compare.h"
#include "trace/trace_scenario.h"
#include "training_trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>
#include <set>

using namespace iterscope;

namespace {

const std::string kFixture = ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz";

Scenario scenarioFor(const std::string& gpu, const std::string& system, int64_t batch,
                     Precision precision, int gpus) {
    Scenario s;
    s.network = loadNetwork("alexnet");
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile(system);
    s.software = loadSoftwareProfile("pytorch");
    s.batch_per_gpu = batch;
    s.gpus_per_node = gpus;
    s.precision = precision;
    s.sync = gpus > 1 ? SyncStrategy::AllreduceNccl : SyncStrategy::None;
    return s;
}

ScenarioChoices alexnetChoices() {
    ScenarioChoices c;
    c.network = "alexnet";
    return c;
}

const TraceLayerComparison& layerNamed(const TraceComparison& c, const std::string& name) {
    for (const TraceLayerComparison& l : c.layers)
        if (l.name == name)
            return l;
    throw std::runtime_error("no layer " + name);
}

const TracePassComparison* pass(const TraceComparison& c, TracePass p) {
    for (const TracePassComparison& x : c.passes)
        if (x.pass == p)
            return &x;
    return nullptr;
}

// For each aten::conv2d and aten::linear op inside the step's span, in order, the sum of the
// durations of the GPU activities whose launch (by correlation) lies within the op: an oracle read
// with Qt's JSON parser and a plain time-window rule, not the reader's nesting.
std::vector<double> fixtureLayerSumsUs(double step_start_us, double step_end_us) {
    const QJsonObject doc =
        QJsonDocument::fromJson(QByteArray::fromStdString(gunzipFile(kFixture))).object();
    std::map<qint64, double> launch_ts;
    std::vector<QJsonObject> ops, kernels;
    for (const QJsonValue& v : doc["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        const QString cat = e["cat"].toString();
        if (cat == "cuda_runtime")
            launch_ts[e["args"].toObject()["correlation"].toInteger(-1)] = e["ts"].toDouble();
        else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
            kernels.push_back(e); // a layer's time is all the GPU work it launched
        else if (cat == "cpu_op" &&
                 (e["name"].toString() == "aten::conv2d" ||
                  e["name"].toString() == "aten::linear") &&
                 e["ts"].toDouble() >= step_start_us && e["ts"].toDouble() <= step_end_us)
            ops.push_back(e);
    }
    std::sort(ops.begin(), ops.end(), [](const QJsonObject& a, const QJsonObject& b) {
        return a["ts"].toDouble() < b["ts"].toDouble();
    });
    std::vector<double> sums;
    for (const QJsonObject& op : ops) {
        double sum = 0;
        for (const QJsonObject& k : kernels) {
            const double at = launch_ts[k["args"].toObject()["correlation"].toInteger()];
            if (at >= op["ts"].toDouble() && at <= op["ts"].toDouble() + op["dur"].toDouble())
                sum += k["dur"].toDouble();
        }
        sums.push_back(sum);
    }
    return sums;
}

} // namespace

class TraceCompare : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void theFixturesConvolutionsAndLinearLayersAreSummedExactly() {
        const TraceAnalysis a = analyzeTrace(readKinetoTrace(kFixture));
        // Warm-up and measured passes are annotated alike; the later one is the step.
        QCOMPARE(a.steps.size(), std::size_t(1));
        QVERIFY2(a.steps[0].label.find("measure") != std::string::npos, a.steps[0].label.c_str());
        QVERIFY(!a.facts.has_backward);
        const std::vector<double> expected_us =
            fixtureLayerSumsUs(static_cast<double>(a.steps[0].start_ns) / 1000,
                               static_cast<double>(a.steps[0].end_ns) / 1000);
        QCOMPARE(expected_us.size(), std::size_t(8)); // 5 convolutions, 3 linear layers

        const TraceComparison c =
            compareTrace(a, scenarioFor("a100-sxm4-40gb", "dgx-a100", 128, Precision::TF32, 1));
        std::vector<double> measured;
        for (const TraceLayerComparison& l : c.layers)
            if (l.kind == OpKind::Convolution || l.kind == OpKind::Linear) {
                QCOMPARE(l.forward_match, MatchKind::OneToOne);
                QVERIFY(l.measured_forward_ms.has_value());
                measured.push_back(*l.measured_forward_ms);
            }
        QCOMPARE(measured.size(), expected_us.size());
        for (std::size_t i = 0; i < measured.size(); ++i) // exactly, not within a tolerance
            QVERIFY2(measured[i] == expected_us[i] / 1000,
                     qPrintable(QString("%1 vs %2").arg(measured[i]).arg(expected_us[i])));
        QVERIFY(c.predicted_step_ms > 0);
        QCOMPARE(c.steps, 1);
        QVERIFY(c.measured_busy_ms <= c.measured_step_ms);
    }

    void theFixturesGpuIsNamedAndMatchedByWhatTheRuntimeReported() {
        const TraceAnalysis a = analyzeTrace(readKinetoTrace(kFixture));
        QVERIFY(a.facts.has_device);
        const QJsonObject doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(gunzipFile(kFixture))).object();
        QCOMPARE(QString::fromStdString(a.facts.device.name),
                 doc["deviceProperties"].toArray()[0].toObject()["name"].toString());
        // 108 SMs, compute capability 8.0, 40 GB, an SXM board (its name says no PCIe).
        QCOMPARE(gpuProfileForDevice(a.facts.device), std::string("a100-sxm4-40gb"));
        QCOMPARE(a.facts.precision, std::string("tf32"));
    }

    void otherGpusAreMatchedToTheirProfiles_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("sms");
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<double>("gib");
        QTest::addColumn<QString>("profile");
        QTest::newRow("V100 SXM2")
            << "Tesla V100-SXM2-16GB" << 80 << 7 << 0 << 15.8 << "v100-sxm2-16gb";
        QTest::newRow("V100 PCIe") << "Tesla V100-PCIE-16GB" << 80 << 7 << 0 << 15.8 << "v100-pcie";
        QTest::newRow("A100 80GB")
            << "NVIDIA A100-SXM4-80GB" << 108 << 8 << 0 << 79.2 << "a100-sxm4-80gb";
        QTest::newRow("H100 SXM") << "NVIDIA H100 80GB HBM3" << 132 << 9 << 0 << 79.1 << "h100-sxm";
        QTest::newRow("unknown") << "Some GPU" << 7 << 5 << 0 << 4.0 << "";
    }
    void otherGpusAreMatchedToTheirProfiles() {
        QFETCH(QString, name);
        QFETCH(int, sms);
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(double, gib);
        QFETCH(QString, profile);
        TraceDevice d;
        d.name = name.toStdString();
        d.sm_count = sms;
        d.compute_major = major;
        d.compute_minor = minor;
        d.memory_bytes = static_cast<std::int64_t>(gib * 1024 * 1024 * 1024);
        QCOMPARE(QString::fromStdString(gpuProfileForDevice(d)), profile);
    }

    void aTrainingStepSplitsIntoPassesAndEveryLayerIsSummedExactly() {
        TrainingTraceOptions o;
        const TrainingTrace t = alexnetTrainingTrace(o);
        const TraceAnalysis a = analyzeTrace(parseKinetoTrace(t.json, "train.json"));
        QCOMPARE(a.steps.size(), std::size_t(1));
        QCOMPARE(a.facts.step_source, std::string("ProfilerStep#N"));
        QVERIFY(a.facts.has_backward && a.facts.has_optimizer && a.facts.has_communication);
        QCOMPARE(a.facts.world_size, 2);
        QCOMPARE(gpuProfileForDevice(a.facts.device), std::string("h100-sxm"));
        QCOMPARE(a.steps[0].durationNs(), std::llround(t.step_us[0] * 1000));

        const TraceComparison c =
            compareTrace(a, scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 2));
        QVERIFY(c.training);
        const auto alexnet = loadNetwork("alexnet");
        const Network& net = alexnet->network;
        int checked = 0;
        for (std::size_t i = 0; i < net.layers.size(); ++i) {
            if (t.kinds[i] != "conv" && t.kinds[i] != "linear")
                continue;
            const TraceLayerComparison& l = layerNamed(c, net.layers[i].name);
            QCOMPARE(l.forward_match, MatchKind::OneToOne);
            QCOMPARE(l.backward_match, MatchKind::OneToOne);
            QCOMPARE(*l.measured_forward_ms, t.forward_us[i] / 1000);
            QCOMPARE(*l.measured_backward_ms, t.backward_us[i] / 1000);
            ++checked;
        }
        QCOMPARE(checked, 8);
        const TracePassComparison* comm = pass(c, TracePass::Communication);
        QVERIFY(comm);
        QCOMPARE(comm->measured_busy_ms, t.nccl_us / 1000);
        QCOMPARE(comm->measured_exposed_ms, t.nccl_exposed_us / 1000);
        QVERIFY(comm->measured_exposed_ms > 0 &&
                comm->measured_exposed_ms < comm->measured_busy_ms);
        QCOMPARE(pass(c, TracePass::Optimizer)->measured_busy_ms, t.optimizer_us / 1000);
        QCOMPARE(c.predicted_step_ms,
                 predict(scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 2),
                         PredictDetail::Totals)
                     .iteration_ms);
        // The loss and gradient accumulation are no layer of the network.
        std::set<std::string> unmatched;
        for (const TraceUnmatchedOp& u : c.unmatched)
            unmatched.insert(u.name);
        QVERIFY(unmatched.count("aten::cross_entropy_loss"));
        QVERIFY(unmatched.count(
            "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"));
        QCOMPARE(c.layers_matched, 21); // every layer with work: no kind differs in count
    }

    void twoStepsAreAveragedAndEachStepTimed() {
        TrainingTraceOptions o;
        o.steps = 2;
        const TrainingTrace t = alexnetTrainingTrace(o);
        const TraceAnalysis a = analyzeTrace(parseKinetoTrace(t.json, "two.json"));
        QCOMPARE(a.steps.size(), std::size_t(2));
        const TraceComparison c =
            compareTrace(a, scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 2));
        QCOMPARE(c.steps, 2);
        for (int s = 0; s < 2; ++s)
            QCOMPARE(c.step_ms[static_cast<std::size_t>(s)],
                     t.step_us[static_cast<std::size_t>(s)] / 1000);
        const auto alexnet = loadNetwork("alexnet");
        const Network& net = alexnet->network;
        for (std::size_t i = 0; i < net.layers.size(); ++i)
            if (t.kinds[i] == "conv" || t.kinds[i] == "linear") {
                const TraceLayerComparison& l = layerNamed(c, net.layers[i].name);
                QCOMPARE(*l.measured_forward_ms, t.forward_us[i] / 2 / 1000);
                QCOMPARE(*l.measured_backward_ms, t.backward_us[i] / 2 / 1000);
            }
    }

    void backwardNodesFollowTheirForwardOpBySequenceNumber() {
        TrainingTraceOptions o;
        o.scrambled_backward = true;
        const TrainingTrace t = alexnetTrainingTrace(o);
        const TraceComparison c =
            compareTrace(analyzeTrace(parseKinetoTrace(t.json, "s.json")),
                         scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 2));
        const auto alexnet = loadNetwork("alexnet");
        const Network& net = alexnet->network;
        for (std::size_t i = 0; i < net.layers.size(); ++i)
            if (t.kinds[i] == "linear")
                QCOMPARE(*layerNamed(c, net.layers[i].name).measured_backward_ms,
                         t.backward_us[i] / 1000);
    }

    void theBatchComesFromTheInputCopyOrTheShapes() {
        TrainingTraceOptions o;
        o.batch = 96;
        TraceAnalysis a = analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "b.json"));
        TraceScenario s = traceScenario(a, alexnetChoices(), {});
        QCOMPARE(s.choices.batch, std::string("96"));
        QCOMPARE(s.batch_source, std::string("input copy"));
        QCOMPARE(s.choices.gpu, std::string("h100-sxm"));
        QCOMPARE(s.choices.gpus_per_node, std::string("2"));

        o.batch = 48;
        o.shapes = true;
        o.input_copy = false;
        a = analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "s.json"));
        s = traceScenario(a, alexnetChoices(), {});
        QCOMPARE(s.choices.batch, std::string("48"));
        QCOMPARE(s.batch_source, std::string("op shapes"));
        QCOMPARE(s.choices.image, int64_t(224));

        o.shapes = false;
        a = analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "n.json"));
        s = traceScenario(a, alexnetChoices(), {});
        QCOMPARE(s.batch_source, std::string("assumed"));
        QCOMPARE(s.warnings.size(), std::size_t(1));
    }

    void aTraceFromAnotherGpuIsComparedOnIt() {
        TrainingTraceOptions o;
        o.gpu_name = "Tesla V100-SXM2-16GB";
        o.sms = 80;
        o.cc_major = 7;
        o.memory_bytes = 16945512448;
        o.world_size = 1;
        const TrainingTrace t = alexnetTrainingTrace(o);
        const TraceAnalysis a = analyzeTrace(parseKinetoTrace(t.json, "v100.json"));
        const TraceScenario s = traceScenario(a, alexnetChoices(), {});
        QCOMPARE(s.choices.gpu, std::string("v100-sxm2-16gb"));
        QCOMPARE(s.gpu_name, o.gpu_name);
        QCOMPARE(s.choices.gpus_per_node, std::string("1"));
    }

    void aForwardOnlyTraceIsComparedWithTheForwardPass() {
        TrainingTraceOptions o;
        o.backward = false;
        const TraceAnalysis a =
            analyzeTrace(parseKinetoTrace(alexnetTrainingTrace(o).json, "f.json"));
        QVERIFY(!a.facts.has_backward && !a.facts.has_optimizer);
        const Scenario s = scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 1);
        const TraceComparison c = compareTrace(a, s);
        QVERIFY(!c.training);
        QCOMPARE(c.predicted_step_ms, predict(s, PredictDetail::Totals).forward_ms);
        QVERIFY(pass(c, TracePass::Backward) == nullptr);
    }

    void theMeasuredTimelineCarriesThePassesAndTheMatchedLayers() {
        const TrainingTrace t = alexnetTrainingTrace({});
        const TraceAnalysis a = analyzeTrace(parseKinetoTrace(t.json, "t.json"));
        const TraceComparison c =
            compareTrace(a, scenarioFor("h100-sxm", "dgx-h100", 64, Precision::FP32, 2));
        const std::vector<TimelineEvent> events = measuredTimeline(a, c, 0);
        QCOMPARE(events.size(), a.steps[0].activities.size());
        std::map<Stream, int> per_stream;
        double nccl_ms = 0;
        for (const TimelineEvent& e : events) {
            ++per_stream[e.stream];
            QVERIFY(e.start_ms >= 0);
            if (e.stream == Stream::Communication)
                nccl_ms += e.duration_ms;
        }
        QCOMPARE(per_stream[Stream::Input], 1);
        QVERIFY(per_stream[Stream::Update] > 0);
        QCOMPARE(nccl_ms, t.nccl_us / 1000);
        const auto alexnet = loadNetwork("alexnet");
        const Network& net = alexnet->network;
        bool first_conv_forward = false;
        for (const TimelineEvent& e : events)
            first_conv_forward =
                first_conv_forward ||
                (e.kind == EventKind::Forward && e.layer >= 0 &&
                 net.layers[static_cast<std::size_t>(e.layer)].name == "features.0");
        QVERIFY(first_conv_forward);
        QVERIFY(measuredTimeline(a, c, 5).empty());
    }
};

QTEST_APPLESS_MAIN(TraceCompare)
#include "tst_trace_compare.moc"
