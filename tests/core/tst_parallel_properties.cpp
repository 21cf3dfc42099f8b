// Properties of the parallel strategies over the shipped systems (issue 13 "Checks"): no
// strategy scales past linear (against the best one-GPU set-up; parameter servers on the
// hosts and hybrid's split layers only by the work they take off each GPU), a GPU never
// gets faster as nodes are added, more micro-batches never grow the bubble, each ZeRO
// stage holds no more than the one before, asynchronous parameter servers are never slower
// than synchronous ones, and one GPU is the same under every strategy that accepts it.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "model/parallel_exchange.h"
#include "util/error.h"

#include <QtTest>

#include <optional>

using namespace iterscope;

namespace {

struct Case {
    SyncStrategy sync;
    ParallelStrategy parallel;
};

// Every strategy and exchange that can run on several GPUs.
const std::vector<Case>& allCases() {
    static const std::vector<Case> cases = {
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Data},
        {SyncStrategy::AllreduceCopy, ParallelStrategy::Data},
        {SyncStrategy::PsCpu, ParallelStrategy::Data},
        {SyncStrategy::PsGpu, ParallelStrategy::Data},
        {SyncStrategy::DistributedReplicated, ParallelStrategy::Data},
        {SyncStrategy::PsAsync, ParallelStrategy::Data},
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Hybrid},
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Pipeline},
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Zero1},
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Zero2},
        {SyncStrategy::AllreduceNccl, ParallelStrategy::Zero3},
    };
    return cases;
}

std::string describe(const Scenario& s) {
    return s.network->network.name + " " + s.system.id + " " + syncStrategyName(s.sync) + " " +
           parallelStrategyName(s.parallel) + " " + std::to_string(s.nodes) + "x" +
           std::to_string(s.gpus_per_node) + " " + precisionName(s.precision);
}

std::optional<Prediction> tryPredict(const Scenario& s) {
    try {
        return predict(s, PredictDetail::Totals);
    } catch (const InputError&) {
        return std::nullopt; // a combination that cannot apply
    }
}

class Fixture {
  public:
    Fixture() {
        for (const char* id : {"alexnet", "resnet50", "vgg16"})
            networks.push_back(loadNetwork(id));
        for (const std::string& id : systemIds())
            systems.push_back(loadSystemProfile(id));
        software = loadSoftwareProfile("pytorch");
    }
    std::vector<std::shared_ptr<const AnalyzedNetwork>> networks;
    std::vector<SystemProfile> systems;
    SoftwareProfile software;

    Scenario base(std::size_t network, const SystemProfile& system) const {
        Scenario s;
        s.network = networks[network];
        s.system = system;
        s.gpu = loadGpuProfile(system.default_gpu.empty() ? "v100-pcie" : system.default_gpu);
        s.software = software;
        s.batch_per_gpu = 32;
        s.pipeline_stages = 2;
        return s;
    }
};

} // namespace

class ParallelProperties : public QObject {
    Q_OBJECT
    std::unique_ptr<Fixture> f;

    // Parameter servers on the hosts take the optimizer step off the GPUs: the CPUs do it
    // while the GPUs go on with backward. That is the only thing that may carry them past
    // linear: a GPU of theirs never takes less than one GPU alone without its update.
    void serversBeatLinearOnlyByTheUpdateTheyTakeOver(Scenario s) {
        s.data = DataSource::Synthetic;
        Scenario one = s;
        one.sync = SyncStrategy::None;
        one.nodes = one.gpus_per_node = 1;
        const Prediction alone = predict(one, PredictDetail::Totals);
        const Prediction servers = predict(s, PredictDetail::Totals);
        QVERIFY2(servers.iteration_ms >= alone.iteration_ms - alone.update_ms - 1e-9,
                 qPrintable(QString::fromStdString(describe(s))));
    }

    // ZeRO shards the optimizer step: each GPU updates 1/N of the parameters and then
    // gathers the rest over the links. Where the step is memory-bound and the links fast
    // (NVSwitch), that trade can beat one GPU's whole step; it is the only thing that may
    // carry ZeRO past linear: a GPU of it never takes less than one GPU alone less the part
    // of the step it no longer does.
    void shardedStepBeatsLinearOnlyByTheUpdateItSheds(Scenario s) {
        s.data = DataSource::Synthetic;
        Scenario one = s;
        one.parallel = ParallelStrategy::Data;
        one.sync = SyncStrategy::None;
        one.nodes = one.gpus_per_node = 1;
        const Prediction alone = predict(one, PredictDetail::Totals);
        const Prediction zero = predict(s, PredictDetail::Totals);
        QVERIFY2(zero.iteration_ms >=
                     alone.iteration_ms - (alone.update_ms - zero.update_ms) - 1e-9,
                 qPrintable(QString::fromStdString(describe(s))));
    }

    // Krizhevsky's split layers are not replicas: each GPU computes and updates only its
    // slice of them, for the node's G x B samples. That is a real saving (larger matrix
    // products, 1/G of their optimizer step), and the only thing that may carry hybrid past
    // linear: one GPU of the hybrid is never faster than one GPU alone by more than it.
    void hybridBeatsLinearOnlyByItsSplitLayers(Scenario s) {
        s.data = DataSource::Synthetic; // iterations add up without the host's decoding
        Scenario one = s;
        one.parallel = ParallelStrategy::Data;
        one.sync = SyncStrategy::None;
        one.nodes = one.gpus_per_node = 1;
        const Prediction hybrid = predict(s);
        const Prediction alone = predict(one);
        double saved = alone.update_ms - hybrid.update_ms;
        for (std::size_t i = 0; i < hybrid.layers.size(); ++i)
            if (splitInHybrid(s.network->network.layers[i]))
                saved += alone.layers[i].forward_ms + alone.layers[i].backward_ms -
                         hybrid.layers[i].forward_ms - hybrid.layers[i].backward_ms;
        QVERIFY2(hybrid.iteration_ms >= alone.iteration_ms - std::max(saved, 0.0) - 1e-9,
                 qPrintable(QString::fromStdString(describe(s))));
    }

  private slots:
    void initTestCase() {
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        f = std::make_unique<Fixture>();
        QVERIFY(f->systems.size() >= 10);
    }

    void noStrategyScalesPastLinear() {
        int checked = 0;
        for (std::size_t n = 0; n < f->networks.size(); ++n)
            for (const SystemProfile& system : f->systems) {
                const Scenario one = f->base(n, system);
                for (const Case& c : allCases())
                    for (int g = 2; g <= system.gpus_per_node; g *= 2)
                        for (int nodes : {1, 4}) {
                            if (nodes > system.max_nodes)
                                continue;
                            Scenario s = one;
                            s.sync = c.sync;
                            s.parallel = c.parallel;
                            s.gpus_per_node = g;
                            s.nodes = nodes;
                            const auto p = tryPredict(s);
                            if (!p)
                                continue;
                            const double single = singleGpuImagesPerSecond(s);
                            if (c.parallel == ParallelStrategy::Hybrid) {
                                hybridBeatsLinearOnlyByItsSplitLayers(s);
                                continue;
                            }
                            if (c.parallel == ParallelStrategy::Zero1 ||
                                c.parallel == ParallelStrategy::Zero2 ||
                                c.parallel == ParallelStrategy::Zero3) {
                                shardedStepBeatsLinearOnlyByTheUpdateItSheds(s);
                                continue;
                            }
                            if (c.sync == SyncStrategy::PsCpu || c.sync == SyncStrategy::PsAsync ||
                                c.sync == SyncStrategy::DistributedReplicated) {
                                serversBeatLinearOnlyByTheUpdateTheyTakeOver(s);
                                continue;
                            }
                            const double efficiency =
                                p->images_per_second / (s.totalGpus() * single);
                            QVERIFY2(efficiency <= 1 + 1e-9,
                                     qPrintable(QString::fromStdString(describe(s)) +
                                                QString(": %1 of linear").arg(efficiency)));
                            ++checked;
                        }
            }
        QVERIFY(checked > 500);
    }

    void aGpuNeverGetsFasterAsNodesAreAdded() {
        int checked = 0;
        for (std::size_t n = 0; n < f->networks.size(); ++n)
            for (const SystemProfile& system : f->systems) {
                if (system.max_nodes < 2 || system.nics_per_node < 1)
                    continue;
                for (const Case& c : allCases())
                    for (const int g : {1, system.gpus_per_node}) {
                        double last = 0;
                        std::optional<Prediction> before;
                        const bool zero = c.parallel == ParallelStrategy::Zero1 ||
                                          c.parallel == ParallelStrategy::Zero2 ||
                                          c.parallel == ParallelStrategy::Zero3;
                        for (int nodes : {1, 2, 4, 8, 32, 128}) {
                            Scenario s = f->base(n, system);
                            s.sync = c.sync;
                            s.parallel = c.parallel;
                            s.gpus_per_node = g;
                            s.nodes = nodes;
                            const auto p = tryPredict(s);
                            if (!p)
                                continue;
                            const double per_gpu = p->images_per_second / s.totalGpus();
                            // ZeRO's GPUs each update 1/N of the parameters: with an exchange
                            // whose cost per GPU stops growing (trees), more GPUs may shorten
                            // a step, but by no more than the update they shed.
                            if (zero && before)
                                QVERIFY2(p->iteration_ms >= before->iteration_ms -
                                                                (before->update_ms - p->update_ms) -
                                                                1e-9,
                                         qPrintable(QString::fromStdString(describe(s))));
                            else if (last > 0)
                                QVERIFY2(per_gpu <= last * (1 + 1e-12),
                                         qPrintable(QString::fromStdString(describe(s)) +
                                                    QString(": %1 images/s per GPU after %2")
                                                        .arg(per_gpu)
                                                        .arg(last)));
                            last = per_gpu;
                            before = p;
                            ++checked;
                        }
                    }
            }
        QVERIFY(checked > 500);
    }

    void moreMicroBatchesNeverGrowTheBubble() {
        for (std::size_t n = 0; n < f->networks.size(); ++n)
            for (const int stages : {2, 4, 8})
                for (const auto schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
                    Scenario s = f->base(n, loadSystemProfile("dgx1-v100"));
                    s.gpu = loadGpuProfile("v100-sxm2-16gb");
                    s.gpus_per_node = 8;
                    s.sync = SyncStrategy::AllreduceNccl;
                    s.parallel = ParallelStrategy::Pipeline;
                    s.pipeline_stages = stages;
                    s.schedule = schedule;
                    double last = -1;
                    for (int m = 1; m <= 32 * stages; m *= 2) {
                        s.micro_batches = m;
                        const Prediction p = predict(s, PredictDetail::Totals);
                        // The bubble as GPipe states it: the share of the schedule the
                        // busiest stage stands idle.
                        const double share = p.pipeline_bubble_ms /
                                             (p.pipeline_bubble_ms + p.forward_ms + p.backward_ms);
                        if (last >= 0)
                            QVERIFY2(share <= last * (1 + 1e-9),
                                     qPrintable(QString::fromStdString(describe(s)) +
                                                QString(", %1 micro-batches: bubble %2 after %3")
                                                    .arg(m)
                                                    .arg(share)
                                                    .arg(last)));
                        last = share;
                    }
                }
    }

    void eachZeroStageHoldsNoMoreThanTheOneBefore() {
        for (std::size_t n = 0; n < f->networks.size(); ++n)
            for (const Precision precision : {Precision::FP32, Precision::AMP})
                for (const int gpus : {2, 8}) {
                    Scenario s = f->base(n, loadSystemProfile("dgx-a100"));
                    s.gpu = loadGpuProfile("a100-sxm4-80gb");
                    s.precision = precision;
                    s.gpus_per_node = gpus;
                    s.sync = SyncStrategy::AllreduceNccl;
                    int64_t last = 0;
                    for (const auto parallel : {ParallelStrategy::Data, ParallelStrategy::Zero1,
                                                ParallelStrategy::Zero2, ParallelStrategy::Zero3}) {
                        s.parallel = parallel;
                        const Prediction p = predict(s, PredictDetail::Totals);
                        if (parallel != ParallelStrategy::Data)
                            QVERIFY2(p.memory_per_gpu_bytes <= last,
                                     qPrintable(QString::fromStdString(describe(s))));
                        last = p.memory_per_gpu_bytes;
                    }
                }
    }

    void asynchronousServersAreNeverSlowerThanSynchronousOnes() {
        int checked = 0;
        for (std::size_t n = 0; n < f->networks.size(); ++n)
            for (const SystemProfile& system : f->systems)
                for (const int nodes : {1, 2, 8}) {
                    if (nodes > system.max_nodes)
                        continue;
                    Scenario s = f->base(n, system);
                    s.gpus_per_node = system.gpus_per_node;
                    s.nodes = nodes;
                    s.sync = SyncStrategy::PsCpu;
                    const auto sync = tryPredict(s);
                    s.sync = SyncStrategy::PsAsync;
                    const auto async = tryPredict(s);
                    if (!sync || !async)
                        continue;
                    QVERIFY2(async->images_per_second >= sync->images_per_second,
                             qPrintable(QString::fromStdString(describe(s))));
                    QCOMPARE(async->staleness, double(s.totalGpus() - 1));
                    QCOMPARE(sync->staleness, 0.0);
                    ++checked;
                }
        QVERIFY(checked > 20);
    }

    void oneGpuIsTheSameUnderEveryStrategyThatAcceptsIt() {
        for (std::size_t n = 0; n < f->networks.size(); ++n) {
            Scenario s = f->base(n, loadSystemProfile("dgx1-v100"));
            s.gpu = loadGpuProfile("v100-sxm2-16gb");
            s.sync = SyncStrategy::None;
            const Prediction data = predict(s);
            for (const auto parallel : {ParallelStrategy::Hybrid, ParallelStrategy::Pipeline}) {
                Scenario other = s;
                other.parallel = parallel;
                other.pipeline_stages = 1;
                other.micro_batches = 1;
                const Prediction p = predict(other);
                QCOMPARE(p.iteration_ms, data.iteration_ms);
                QCOMPARE(p.images_per_second, data.images_per_second);
                QCOMPARE(p.memory_per_gpu_bytes, data.memory_per_gpu_bytes);
                QCOMPARE(p.timeline.size(), data.timeline.size());
            }
            for (const auto parallel :
                 {ParallelStrategy::Zero1, ParallelStrategy::Zero2, ParallelStrategy::Zero3}) {
                Scenario zero = s;
                zero.parallel = parallel;
                QVERIFY_THROWS_EXCEPTION(InputError, predict(zero));
            }
        }
    }

    void totalsOnlyPredictionsMatchFullOnesUnderEveryStrategy() {
        for (const Case& c : allCases()) {
            Scenario s = f->base(1, loadSystemProfile("cluster-25gbe"));
            s.sync = c.sync;
            s.parallel = c.parallel;
            s.gpus_per_node = 8;
            s.nodes = 2;
            const Prediction full = predict(s);
            const Prediction totals = predict(s, PredictDetail::Totals);
            QVERIFY(!full.timeline.empty());
            QCOMPARE(totals.iteration_ms, full.iteration_ms);
            QCOMPARE(totals.pipeline_bubble_ms, full.pipeline_bubble_ms);
            QCOMPARE(totals.exchanged_bytes_per_gpu, full.exchanged_bytes_per_gpu);
            QCOMPARE(totals.memory_per_gpu_bytes, full.memory_per_gpu_bytes);
            // Every event belongs to a group the prediction names, and none outlasts the
            // iteration.
            for (const TimelineEvent& e : full.timeline) {
                QVERIFY(e.group >= 0 && e.group < static_cast<int>(full.groups.size()));
                QVERIFY(e.start_ms + e.duration_ms <= full.iteration_ms * (1 + 1e-9));
            }
        }
    }
};

QTEST_APPLESS_MAIN(ParallelProperties)
#include "tst_parallel_properties.moc"
