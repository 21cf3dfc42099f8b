// Properties any sane iteration-time model has (issue 3 "Checks"), on real networks and the
// shipped profiles.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/compute_model.h"
#include "model/model.h"
#include "model/sweep.h"
#include "util/error.h"

#include <QtTest>

#include <thread>
#include <tuple>

using namespace iterscope;

namespace {

Scenario make(const std::string& network, const std::string& gpu, const std::string& system,
              int gpus, int64_t batch, SyncStrategy sync = SyncStrategy::AllreduceNccl) {
    Scenario s;
    s.network = loadNetwork(network);
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile(system);
    s.software = loadSoftwareProfile("pytorch");
    s.gpus_per_node = gpus;
    s.batch_per_gpu = batch;
    s.sync = sync;
    return s;
}

} // namespace

class ModelProperties : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void moreBandwidthNeverSlowsAnIteration_data() {
        QTest::addColumn<QString>("network");
        QTest::newRow("resnet50") << "resnet50";
        QTest::newRow("vgg16") << "vgg16";
        QTest::newRow("alexnet") << "alexnet";
    }
    void moreBandwidthNeverSlowsAnIteration() {
        QFETCH(QString, network);
        Scenario s = make(network.toStdString(), "v100-sxm2-16gb", "dgx1-v100", 8, 32);
        const double base = predict(s).iteration_ms;
        Scenario mem = s;
        mem.gpu.memory_bandwidth_gbps *= 2;
        QVERIFY(predict(mem).iteration_ms <= base);
        Scenario link = s;
        link.gpu.nvlink_gbps_per_link *= 2;
        link.system.pcie_gbps *= 2;
        QVERIFY(predict(link).iteration_ms <= base);
        Scenario flops = s;
        flops.gpu.fp32_tflops *= 2;
        QVERIFY(predict(flops).iteration_ms <= base);

        Scenario net = make(network.toStdString(), "v100-sxm2-16gb", "cluster-10gbe", 8, 32);
        net.nodes = 4;
        const double slow = predict(net).iteration_ms;
        net.system.nic_gbps *= 4;
        QVERIFY(predict(net).iteration_ms <= slow);
    }

    void overlapIsNeverSlowerThanNoOverlap() {
        for (const char* network : {"resnet50", "vgg16", "inception-v3"}) {
            Scenario s = make(network, "v100-sxm2-16gb", "cluster-25gbe", 8, 32);
            s.nodes = 4;
            s.overlap = false;
            const double off = predict(s).iteration_ms;
            s.overlap = true;
            QVERIFY2(predict(s).iteration_ms <= off, network);
        }
    }

    void weakScalingNeverLosesThroughput() {
        double last = 0;
        for (int g : {1, 2, 4, 8}) {
            const Prediction p = predict(make("resnet50", "v100-sxm2-16gb", "dgx1-v100", g, 64));
            QVERIFY(p.images_per_second >= last);
            last = p.images_per_second;
        }
        last = 0;
        for (int n : {1, 2, 4, 8, 16}) {
            Scenario s = make("resnet50", "k80", "aws-p2.8xlarge", 8, 64,
                              SyncStrategy::DistributedReplicated);
            s.software = loadSoftwareProfile("tensorflow-1.1");
            s.nodes = n;
            const Prediction p = predict(s);
            QVERIFY(p.images_per_second >= last);
            last = p.images_per_second;
        }
    }

    void oneGpuExposesNoCommunication() {
        const Prediction p = predict(make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 64));
        QCOMPARE(p.exposed_communication_ms, 0.0);
        QCOMPARE(p.communication_ms, 0.0);
    }

    void mixedPrecisionBeatsFp32OnTensorCoreGpus() {
        for (const char* gpu : {"v100-sxm2-16gb", "a100-sxm4-80gb"}) {
            Scenario s = make("resnet50", gpu, "dgx-a100", 1, 128);
            const double fp32 = predict(s).iteration_ms;
            s.precision = Precision::AMP;
            QVERIFY2(predict(s).iteration_ms < fp32, gpu);
        }
    }

    void memoryGrowsWithBatch() {
        int64_t last = 0;
        for (int64_t b : {1, 8, 64, 256}) {
            const Prediction p = predict(make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, b));
            QVERIFY(p.memory_per_gpu_bytes > last);
            last = p.memory_per_gpu_bytes;
        }
        const Prediction p = predict(make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 64));
        QVERIFY(p.fits_in_memory);
        QVERIFY(p.max_batch_that_fits >= 64);
        Scenario big =
            make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, p.max_batch_that_fits + 1);
        QVERIFY(!predict(big).fits_in_memory);
    }

    void timelineIsConsistentWithTheTotals() {
        Scenario s = make("resnet152", "v100-sxm2-16gb", "dgx1-v100", 8, 32);
        const Prediction p = predict(s);
        QVERIFY(p.iteration_ms >= p.forward_ms + p.backward_ms);
        double end = 0;
        for (const TimelineEvent& e : p.timeline) {
            QVERIFY(e.start_ms >= 0);
            QVERIFY(e.duration_ms >= 0);
            end = std::max(end, e.start_ms + e.duration_ms);
        }
        QVERIFY(qAbs(end - p.iteration_ms) < 1e-9 * p.iteration_ms + 1e-12);
        QVERIFY(!p.allreduce_algorithm.empty());
    }

    void predictIsThreadSafeAndPure() {
        const Scenario s = make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 8, 64);
        const double expected = predict(s).iteration_ms;
        std::vector<double> got(4, 0);
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i)
            threads.emplace_back(
                [&, i] { got[static_cast<std::size_t>(i)] = predict(s).iteration_ms; });
        for (auto& t : threads)
            t.join();
        for (double v : got)
            QCOMPARE(v, expected);
    }

    void sweepGivesOneRowPerCombination() {
        const Scenario s = make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 64);
        SweepAxes axes;
        axes.gpus_per_node = {1, 2, 4, 8};
        axes.batch = {32, 64, 128};
        const auto points = sweep(s, axes);
        QCOMPARE(points.size(), std::size_t(12));
        QCOMPARE(points[5].gpus_per_node, 2);
        QCOMPARE(points[5].batch_per_gpu, int64_t(128));
        Scenario five = s;
        five.gpus_per_node = 2;
        five.batch_per_gpu = 128;
        QCOMPARE(points[5].prediction.iteration_ms, predict(five).iteration_ms);
        QVERIFY(points[5].prediction.timeline.empty()); // totals only, unless asked
        QCOMPARE(sweep(s, axes, PredictDetail::Full)[5].prediction.timeline.size(),
                 predict(five).timeline.size());
    }

    void totalsOnlyPredictionsMatchFullOnes_data() {
        QTest::addColumn<int>("sync");
        QTest::addColumn<int>("nodes");
        QTest::newRow("one GPU") << int(SyncStrategy::None) << 1;
        QTest::newRow("allreduce-nccl, 4 nodes") << int(SyncStrategy::AllreduceNccl) << 4;
        QTest::newRow("allreduce-copy") << int(SyncStrategy::AllreduceCopy) << 1;
        QTest::newRow("ps-cpu") << int(SyncStrategy::PsCpu) << 1;
        QTest::newRow("ps-gpu") << int(SyncStrategy::PsGpu) << 1;
        QTest::newRow("distributed-replicated") << int(SyncStrategy::DistributedReplicated) << 4;
    }
    void totalsOnlyPredictionsMatchFullOnes() {
        QFETCH(int, sync);
        QFETCH(int, nodes);
        Scenario s = make("resnet50", "v100-sxm2-16gb", "cluster-25gbe", nodes > 1 ? 8 : 1, 64,
                          static_cast<SyncStrategy>(sync));
        s.nodes = nodes;
        if (s.sync == SyncStrategy::None)
            s.gpus_per_node = 1;
        else if (nodes == 1)
            s = make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 8, 64, s.sync);
        const Prediction full = predict(s);
        const Prediction totals = predict(s, PredictDetail::Totals);
        QVERIFY(!full.timeline.empty() && !full.layers.empty());
        QVERIFY(totals.timeline.empty() && totals.layers.empty());
        QCOMPARE(totals.iteration_ms, full.iteration_ms);
        QCOMPARE(totals.images_per_second, full.images_per_second);
        QCOMPARE(totals.forward_ms, full.forward_ms);
        QCOMPARE(totals.backward_ms, full.backward_ms);
        QCOMPARE(totals.update_ms, full.update_ms);
        QCOMPARE(totals.communication_ms, full.communication_ms);
        QCOMPARE(totals.exposed_communication_ms, full.exposed_communication_ms);
        QCOMPARE(totals.allreduce_algorithm, full.allreduce_algorithm);
        QCOMPARE(totals.memory_per_gpu_bytes, full.memory_per_gpu_bytes);
        QCOMPARE(totals.max_batch_that_fits, full.max_batch_that_fits);
    }

    void unknownChoicesNameTheirSourceAndTheAcceptedValues() {
        QCOMPARE(requireSyncStrategy("ps-cpu", "--sync"), SyncStrategy::PsCpu);
        QVERIFY(requirePrecision("amp", "precision") == Precision::AMP);
        QCOMPARE(requireAllreduceAlgorithm("tree", "allreduce"), AllreduceAlgorithm::Tree);
        const auto message = [](auto parse) {
            try {
                parse();
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QCOMPARE(message([] { requireSyncStrategy("carrier-pigeon", "--sync"); }),
                 std::string("--sync: unknown 'carrier-pigeon' (none, allreduce-nccl, "
                             "allreduce-copy, ps-cpu, ps-gpu, distributed-replicated, ps-async)"));
        QCOMPARE(message([] { requirePrecision("fp64", "precision"); }),
                 std::string("precision: unknown 'fp64' (fp32, tf32, amp or bf16)"));
        QCOMPARE(message([] { requireAllreduceAlgorithm("butterfly", "--allreduce"); }),
                 std::string("--allreduce: unknown 'butterfly' (auto, ring, tree, hierarchical, "
                             "nvls, collnet)"));
    }

    void impossibleScenariosAreInputErrors() {
        Scenario s = make("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 64);
        Scenario zero = s;
        zero.gpus_per_node = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, predict(zero));
        Scenario many = s;
        many.nodes = 1000000000;
        QVERIFY_THROWS_EXCEPTION(InputError, predict(many));
        Scenario huge = s;
        huge.batch_per_gpu = 1000000000000LL;
        QVERIFY_THROWS_EXCEPTION(InputError, predict(huge));
        Scenario nine = s;
        nine.gpus_per_node = 9;
        QVERIFY_THROWS_EXCEPTION(InputError, predict(nine));
        Scenario no_net = s;
        no_net.network.reset();
        QVERIFY_THROWS_EXCEPTION(InputError, predict(no_net));
    }

    // Issue 11's properties. FP16 activations halve the bytes of every kernel: no layer of
    // any network may get slower for it (the tensor rate held equal).
    void halfPrecisionActivationsNeverSlowALayer() {
        for (const char* net : {"resnet50", "efficientnet-b0", "vit-b-16", "inception-v3"}) {
            const auto analyzed = loadNetwork(net);
            const Network& n = analyzed->network;
            const NetworkAnalysis& a = analyzed->analysis;
            for (const char* gpu : {"v100-sxm2-16gb", "a100-sxm4-80gb", "rtx4090"}) {
                const ComputeRates fp32 = computeRates(
                    loadGpuProfile(gpu), loadSoftwareProfile("pytorch"), Precision::FP32, false);
                ComputeRates half = fp32;
                half.elem_bytes = 2;
                half.weight_bytes = 2;
                for (std::size_t i = 0; i < n.layers.size(); ++i) {
                    const Dims& in = n.layers[i].inputs.empty()
                                         ? n.input
                                         : a.layers[n.layers[i].inputs[0]].output;
                    const LayerPasses p32 = layerPasses(n.layers[i], a.layers[i], in, 64, fp32);
                    const LayerPasses p16 = layerPasses(n.layers[i], a.layers[i], in, 64, half);
                    QVERIFY2(p16.forward.ms <= p32.forward.ms * (1 + 1e-12) &&
                                 p16.backward.ms <= p32.backward.ms * (1 + 1e-12),
                             (std::string(net) + " " + gpu + " " + n.layers[i].name).c_str());
                }
            }
        }
    }

    // Decoding real images on the host can only add waiting.
    void anInputCapNeverSpeedsAnIteration() {
        for (const char* sw : {"pytorch", "tensorflow-ngc20.06", "mxnet-22.10", "tensorflow-1.1"})
            for (const char* net : {"resnet18", "resnet50", "efficientnet-b0"})
                for (const auto& [gpu, system, gpus] :
                     {std::tuple{"a100-sxm4-80gb", "dgx-a100", 8},
                      std::tuple{"h100-sxm", "dgx-h100", 8},
                      std::tuple{"v100-sxm2-16gb", "dgx1-v100", 1},
                      std::tuple{"k80", "aws-p2.8xlarge", 8}}) {
                    Scenario s = make(net, gpu, system, gpus, 128);
                    s.software = loadSoftwareProfile(sw);
                    s.precision = Precision::AMP;
                    s.data = DataSource::Synthetic;
                    const double synthetic = predict(s).iteration_ms;
                    s.data = DataSource::Real;
                    const Prediction real = predict(s);
                    QVERIFY2(real.iteration_ms >= synthetic,
                             (std::string(sw) + " " + net + " " + gpu).c_str());
                    QVERIFY(real.input_wait_ms >= 0);
                }
    }

    // A newer release of a framework is never slower than an older one on the same GPU,
    // network and precision, for what the release brings: its libraries' kernels. How the
    // host dispatches them is the executor's design (NGC's TensorFlow 1.15 with XLA or
    // without, an engine or an eager loop), fitted to each profile's own rows, so the
    // comparison gives the newer profile the older one's host costs.
    void aNewerSoftwareProfileIsNeverSlower() {
        std::vector<SoftwareProfile> all;
        for (const std::string& id : softwareIds())
            all.push_back(loadSoftwareProfile(id));
        int pairs = 0;
        for (const SoftwareProfile& older : all)
            for (const SoftwareProfile& newer : all) {
                if (older.family.empty() || older.family != newer.family ||
                    !(older.release < newer.release))
                    continue;
                ++pairs;
                for (const std::string& gpu : gpuIds())
                    for (const char* net : {"resnet50", "vgg16", "efficientnet-b0"})
                        for (Precision precision :
                             {Precision::FP32, Precision::TF32, Precision::AMP}) {
                            // A release two architectures older than a GPU's tensor cores
                            // (TensorFlow 1.1 with cuDNN 5.1 on Turing) never ran on it: its
                            // prediction puts mixed precision on the paired FP16 lanes with
                            // Winograd, which on a GeForce Turing, whose tensor cores run at
                            // half rate, outruns cuDNN 8's tensor-core kernels in the model
                            // (docs/validation.md, known gaps). Such pairs compare a
                            // hypothetical with a release.
                            if (precision == Precision::AMP &&
                                older.newest_compute_capability < 7.0 &&
                                loadGpuProfile(gpu).compute_capability >= 7.5)
                                continue;
                            Scenario s =
                                make(net, gpu, "workstation-pcie4", 1, 64, SyncStrategy::None);
                            s.precision = precision;
                            s.data = DataSource::Synthetic;
                            s.software = older;
                            const double before = predict(s).iteration_ms;
                            s.software = newer;
                            s.software.per_layer_overhead_us = older.per_layer_overhead_us;
                            s.software.kernel_gap_us = older.kernel_gap_us;
                            s.software.optimizer_ops_per_tensor = older.optimizer_ops_per_tensor;
                            s.software.amp_host_sync = older.amp_host_sync;
                            const double after = predict(s).iteration_ms;
                            QVERIFY2(after <= before * (1 + 1e-9),
                                     (newer.id + " slower than " + older.id + " on " + gpu + " " +
                                      net + " " + precisionName(precision))
                                         .c_str());
                        }
            }
        QVERIFY(pairs >= 3); // tensorflow 1.1 -> 20.06 (and with XLA), mxnet 20.12 -> 22.10
    }
};

QTEST_APPLESS_MAIN(ModelProperties)
#include "tst_model_properties.moc"
