// The parallel strategies' formulas against values computed by hand (docs/model.md
// "Parallel strategies"): the pipeline's schedule and bubble, its stage cut, ZeRO's and the
// hybrid scheme's exchanged bytes, ps-gpu's broadcast of the updated shards.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/communication_model.h"
#include "model/iteration.h"
#include "model/model.h"
#include "model/parallel_exchange.h"
#include "model/pipeline_schedule.h"
#include "util/error.h"

#include <QtTest>

using namespace iterscope;

namespace {

Scenario make(const std::string& network, int gpus, int64_t batch,
              ParallelStrategy parallel = ParallelStrategy::Data) {
    Scenario s;
    s.network = loadNetwork(network);
    s.gpu = loadGpuProfile("v100-sxm2-16gb");
    s.system = loadSystemProfile("dgx1-v100");
    s.software = loadSoftwareProfile("pytorch");
    s.gpus_per_node = gpus;
    s.batch_per_gpu = batch;
    s.sync = gpus > 1 ? SyncStrategy::AllreduceNccl : SyncStrategy::None;
    s.parallel = parallel;
    return s;
}

std::vector<StageCost> equalStages(int p, double f, double b) {
    return std::vector<StageCost>(static_cast<std::size_t>(p), StageCost{f, b, 0, 0});
}

} // namespace

class ParallelFormulas : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void gpipeBubbleIsPMinusOneOverMPlusPMinusOne_data() {
        QTest::addColumn<int>("schedule");
        QTest::newRow("gpipe") << int(PipelineSchedule::GPipe);
        QTest::newRow("1f1b") << int(PipelineSchedule::OneFOneB);
    }
    void gpipeBubbleIsPMinusOneOverMPlusPMinusOne() {
        QFETCH(int, schedule);
        // 4 stages of 1 ms forward, 2 ms backward, 8 micro-batches, free copies: the ideal
        // schedule takes (M + P - 1)(f + b) = 11 x 3 = 33 ms, of which each stage computes
        // 24: the bubble is 9 ms, (P-1)/(M+P-1) = 3/11 of it.
        const PipelineRun run =
            runPipeline(equalStages(4, 1, 2), 8, static_cast<PipelineSchedule>(schedule));
        QCOMPARE(run.makespan_ms, 33.0);
        QCOMPARE(run.bubble_ms, 9.0);
        QCOMPARE(run.bubble_ms / run.makespan_ms, 3.0 / 11.0);
        QCOMPARE(run.ops.size(), std::size_t(2 * 4 * 8));
    }

    void gpipeKeepsEveryMicroBatchAndOneFOneBAtMostTheStagesLeft() {
        const PipelineRun gpipe = runPipeline(equalStages(4, 1, 2), 8, PipelineSchedule::GPipe);
        const PipelineRun one = runPipeline(equalStages(4, 1, 2), 8, PipelineSchedule::OneFOneB);
        for (int s = 0; s < 4; ++s) {
            QCOMPARE(gpipe.peak_in_flight[static_cast<std::size_t>(s)], 8);
            QCOMPARE(one.peak_in_flight[static_cast<std::size_t>(s)], 4 - s);
        }
    }

    void copiesBetweenStagesDelayTheNextStage() {
        // Two stages, one micro-batch: F0 (1 ms), copy (0.5 ms), F1 (1), B1 (2), copy back
        // (0.5), B0 (2): 7 ms, every stage idle 4 ms of it.
        std::vector<StageCost> stages{{1, 2, 0.5, 0}, {1, 2, 0, 0.5}};
        const PipelineRun run = runPipeline(stages, 1, PipelineSchedule::GPipe);
        QCOMPARE(run.makespan_ms, 7.0);
        QCOMPARE(run.bubble_ms, 4.0);
        QCOMPARE(run.stage_end_ms[1], 4.5);
    }

    void stagesAreCutWhereTheTimeIsEven() {
        // [1 1 1 1 4] in two: the 4 alone (largest stage 4, not 5).
        QCOMPARE(balanceStages({1, 1, 1, 1, 4}, 2), (std::vector<std::size_t>{0, 4}));
        QCOMPARE(balanceStages({3, 3, 3}, 3), (std::vector<std::size_t>{0, 1, 2}));
        // More stages than the time needs still gives each one a layer.
        QCOMPARE(balanceStages({0, 0, 0, 5}, 4), (std::vector<std::size_t>{0, 1, 2, 3}));
        QCOMPARE(balanceStages({2, 2, 2, 2}, 2), (std::vector<std::size_t>{0, 2}));
    }

    void zeroThreeSendsOneAndAHalfTimesAnAllReduce() {
        // 100 MB of gradients and of parameters over 8 GPUs: an all-reduce sends
        // 2 x 7/8 x 100 = 175 MB; ZeRO-3 gathers twice and reduce-scatters once,
        // 3 x 7/8 x 100 = 262.5 MB; stages 1 and 2 as much as the all-reduce.
        QCOMPARE(collectiveSentBytes(Collective::AllReduce, 100e6, 8), 175e6);
        QCOMPARE(zeroSentBytes(ParallelStrategy::Zero3, 100e6, 100e6, 8), 262.5e6);
        QCOMPARE(zeroSentBytes(ParallelStrategy::Zero2, 100e6, 100e6, 8), 175e6);
        QCOMPARE(zeroSentBytes(ParallelStrategy::Zero1, 100e6, 100e6, 8), 175e6);

        // And predict() says the same of a whole network: FP32 gradients and parameters
        // are both 4 bytes, the all-reduce on one node a ring.
        Scenario data = make("resnet50", 8, 32);
        Scenario zero3 = data;
        zero3.parallel = ParallelStrategy::Zero3;
        const double ring = static_cast<double>(predict(data).exchanged_bytes_per_gpu);
        const double sharded = static_cast<double>(predict(zero3).exchanged_bytes_per_gpu);
        const double params = static_cast<double>(data.network->analysis.total_params);
        QVERIFY(qAbs(ring - 2.0 * 7 / 8 * params * 4) < 64); // buckets round to bytes
        QVERIFY(qAbs(sharded / ring - 1.5) < 1e-6);
    }

    void hybridExchangeEqualsTheActivationsItGathers() {
        // AlexNet's classifier: fc6 reads 256 x 6 x 6 = 9216 features, fc7 and fc8 4096
        // each. On 8 GPUs at batch 32, one GPU gathers the other 7 GPUs' 32 samples of each:
        // 7 x 32 x (9216 + 4096 + 4096) x 4 bytes; a ring all-gather sends as much.
        const Scenario s = make("alexnet", 8, 32, ParallelStrategy::Hybrid);
        const HybridExchange x = hybridForwardExchange(s);
        QCOMPARE(x.gathered_bytes, int64_t{7} * 32 * (9216 + 4096 + 4096) * 4);
        QCOMPARE(x.sent_bytes, x.gathered_bytes);
        // The split layers' weights stay in the node: only the convolutions' gradients
        // travel, far fewer bytes than data parallelism's.
        const Prediction hybrid = predict(s);
        const Prediction data = predict(make("alexnet", 8, 32));
        QVERIFY(hybrid.exchanged_bytes_per_gpu < data.exchanged_bytes_per_gpu / 4);
        // Each GPU holds its convolutions and 1/8 of the classifier.
        QVERIFY(hybrid.weights_bytes < data.weights_bytes / 4);
    }

    void psGpuOwnersBroadcastTheirShardsAfterTheUpdate() {
        Scenario s = make("alexnet", 8, 64);
        s.sync = SyncStrategy::PsGpu;
        const ExchangeModel model = exchangeModel(s);
        QVERIFY(model.broadcast_after_update);
        // The broadcast is one phase of the copy exchange: each GPU receives 7/8 of the
        // parameters; the reduce before it is the same phase.
        QCOMPARE(model.after_update.ms_per_byte, model.candidates[0].cost.ms_per_byte);
        Scenario copy = s;
        copy.sync = SyncStrategy::AllreduceCopy;
        QVERIFY(qAbs(2 * model.after_update.ms_per_byte -
                     exchangeModel(copy).candidates[0].cost.ms_per_byte) < 1e-18);
        // The broadcast ends the step, after the update.
        const Prediction p = predict(s);
        double update_end = 0, broadcast_start = -1;
        for (const TimelineEvent& e : p.timeline) {
            if (e.kind == EventKind::Update)
                update_end = e.start_ms + e.duration_ms;
            if (e.kind == EventKind::ParamBroadcast)
                broadcast_start = e.start_ms;
        }
        QCOMPARE(broadcast_start, update_end);

        // Before its 1/8 of the optimizer step an owner sums the 8 gradients of its shard:
        // 8 reads and 1 write of 1/8 of the FP32 gradients, at the GPU's streaming rate.
        const ComputeRates rates = layerPassTable(s).rates;
        const double params = static_cast<double>(s.network->analysis.total_params);
        const double tensors = detail::paramTensors(s.network->network, s.network->analysis);
        int trainable = 0;
        for (const LayerCost& c : s.network->analysis.layers)
            trainable += c.params > 0 ? 1 : 0;
        const double shard_step = detail::optimizerStepMs(s, rates, params / 8, tensors, trainable);
        const double sum = 9.0 * (params / 8) * 4.0 / rates.bytes_per_ms;
        QVERIFY(qAbs(p.update_ms - (shard_step + sum)) < 1e-9 * p.update_ms);
    }

    void pipelineBatchesAndStagesFollowTheFlags() {
        Scenario s = make("resnet50", 8, 32, ParallelStrategy::Pipeline);
        s.pipeline_stages = 4;
        QCOMPARE(s.microBatches(), 16);        // four per stage
        QCOMPARE(s.kernelBatch(), int64_t{8}); // 32 x 4 / 16
        s.micro_batches = 2;
        QCOMPARE(s.kernelBatch(), int64_t{64});
        const Prediction p = predict(s);
        QCOMPARE(p.pipeline_stages, 4);
        QCOMPARE(p.micro_batches, 2);
        QCOMPARE(p.groups.size(), std::size_t(4));
        QCOMPARE(p.groups[0].gpus, 2); // two replicas of four stages
        QVERIFY(p.pipeline_bubble_ms > 0);
        // Every stage has its own events: its forwards and backwards of both micro-batches.
        for (int stage = 0; stage < 4; ++stage) {
            int passes = 0;
            for (const TimelineEvent& e : p.timeline)
                passes += e.group == stage &&
                          (e.kind == EventKind::StageForward || e.kind == EventKind::StageBackward);
            QCOMPARE(passes, 4);
        }
    }

    void aChoiceThatCannotApplyIsAnInputError() {
        const auto message = [](Scenario s) {
            try {
                predict(s);
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        Scenario zero = make("resnet50", 1, 32, ParallelStrategy::Zero1);
        QCOMPARE(message(zero), std::string("scenario: zero1 shards over the GPUs and needs at "
                                            "least 2, not 1"));
        Scenario hybrid = make("squeezenet1.0", 8, 32, ParallelStrategy::Hybrid);
        QCOMPARE(message(hybrid), std::string("scenario: hybrid splits fully connected layers "
                                              "over a node's GPUs, and 'squeezenet1.0' has none"));
        Scenario pipe = make("alexnet", 8, 32, ParallelStrategy::Pipeline);
        pipe.pipeline_stages = 64;
        QVERIFY(message(pipe).find("has only") != std::string::npos);
        pipe.pipeline_stages = 3;
        QCOMPARE(message(pipe),
                 std::string("scenario: 8 GPUs do not split into pipelines of 3 stages"));
        pipe.pipeline_stages = 2;
        pipe.micro_batches = 7;
        QVERIFY(message(pipe).find("7 micro-batches do not divide") != std::string::npos);
        Scenario async = make("alexnet", 8, 32, ParallelStrategy::Zero2);
        async.sync = SyncStrategy::PsAsync;
        QVERIFY(message(async).find("ps-async") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(ParallelFormulas)
#include "tst_parallel_formulas.moc"
