// Each cost formula of the model against values computed by hand (docs/model.md).
#include "model/communication_model.h"
#include "model/compute_model.h"
#include "model/memory_model.h"
#include "model/timeline.h"

#include <QtTest>

using namespace iterscope;

namespace {

SystemProfile pcieBox() {
    SystemProfile s;
    s.id = "test-pcie";
    s.gpus_per_node = 8;
    s.intra_node = "pcie";
    s.gpus_per_pcie_switch = 2;
    s.pcie_gbps = 12;
    s.host_pcie_gbps = 48;
    s.inter_socket_gbps = 6;
    s.cpu_sockets = 2;
    return s;
}

ComputeRates simpleRates() {
    ComputeRates r;
    r.vector_flop_per_ms = 10e9; // 10 TFLOP/s
    r.gemm_flop_per_ms = 10e9;
    r.conv_efficiency = 1;
    r.fc_efficiency = 1;
    r.bytes_per_ms = 500e6; // 500 GB/s
    r.sms = 10;
    r.kernel_gap_ms = 0;
    r.host_overhead_ms = 0;
    r.gemm_k_half = 0;
    r.tile_m = 128;
    r.tile_n = 128;
    return r;
}

} // namespace

class ModelFormulas : public QObject {
    Q_OBJECT
  private slots:
    void ringAllReduceOf100MbOver8Gpus() {
        // 2(N-1) hops of 5 us, plus 2(N-1)/N x 100 MB at 10 GB/s = 17.5 ms.
        const double ms = ringAllreduceMs(100e6, 8, 10, 5, 0);
        QVERIFY(qAbs(ms - (17.5 + 0.070)) < 1e-9);
        QCOMPARE(ringAllreduceMs(100e6, 1, 10, 5, 8), 0.0);
    }

    void psOnTheCpuWith8GpusSharesTheHostPcie() {
        // Per GPU 12 GB/s, per switch 2 GPUs on 12 GB/s, host 48 GB/s for 8 GPUs: the host
        // is the bottleneck, 8 x 100 MB / 48 GB/s = 16.67 ms each way.
        const double ms = hostPcieMs(pcieBox(), 8, 100e6, 1.0);
        QVERIFY(qAbs(ms - 100e6 * 8 / 48e9 * 1e3) < 1e-9);
        // Two GPUs on one switch share its uplink: 2 x 100 MB / 12 GB/s.
        QVERIFY(qAbs(hostPcieMs(pcieBox(), 2, 100e6, 1.0) - 2 * 100e6 / 12e9 * 1e3) < 1e-9);
    }

    void pcieHopsAcrossSocketsUseTheSlowerLink() {
        QCOMPARE(pcieHopGbps(pcieBox(), 0, 1), 12.0);
        QCOMPARE(pcieHopGbps(pcieBox(), 3, 4), 6.0);
    }

    void deviceOrderRingOnACubeMeshFallsBackToPcieBetweenQuads() {
        SystemProfile s = pcieBox();
        s.intra_node = "nvlink-cube-mesh";
        // The DGX-1 (P100) hybrid cube-mesh.
        const int pairs[][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 5}, {2, 3},
                                {2, 6}, {3, 7}, {4, 5}, {4, 6}, {4, 7}, {5, 6}, {5, 7}, {6, 7}};
        for (const auto& p : pairs)
            s.nvlink_pairs.push_back({p[0], p[1], 1});
        GpuProfile g;
        g.nvlink_links = 4; // the P100's
        g.nvlink_gbps_per_link = 20;
        // NCCL 1: 0-1-2-3 are NVLink hops, 3-4 is not: the ring crosses the sockets at 6 GB/s.
        QCOMPARE(intraNodeRingGbps(s, g, 8, false), 6.0);
        QCOMPARE(intraNodeRingGbps(s, g, 4, false), 20.0);
        // NCCL 2 finds NVLink rings; each GPU has 4 links.
        QCOMPARE(intraNodeRingGbps(s, g, 8, true), 80.0);
        QCOMPARE(intraNodeRingGbps(s, g, 2, true), 20.0);
    }

    void waveQuantizationCountsTheIdleSmsOfTheLastWave() {
        QCOMPARE(waveUtilization(56, 56), 1.0);
        QCOMPARE(waveUtilization(57, 56), 57.0 / 112.0);
        QCOMPARE(waveUtilization(28, 56), 0.5);
    }

    void gemmEfficiencyFallsForShortReductions() {
        ComputeRates r = simpleRates();
        r.gemm_k_half = 16;
        // 1280 x 1280 output in 128-tiles is 100 tiles on 10 SMs: full waves, no padding.
        QVERIFY(qAbs(gemmEfficiency(1280, 1280, 16, 1, 1.0, r) - 0.5) < 1e-12);
        QVERIFY(qAbs(gemmEfficiency(1280, 1280, 48, 1, 0.8, r) - 0.8 * 48.0 / 64.0) < 1e-12);
    }

    void convolutionForwardIsTheSlowerOfFlopsAndBytes() {
        Layer conv;
        conv.kind = LayerKind::Convolution;
        conv.conv.out_channels = 128;
        conv.conv.kernel_h = conv.conv.kernel_w = 1;
        LayerCost c;
        c.output = {128, 10, 128}; // 1280 output positions per sample
        c.params = 128 * 128;
        c.macs = 1280LL * 128 * 128;
        c.fwd_flops = 2 * c.macs;
        c.bwd_data_flops = 2 * c.macs;
        c.bwd_weight_flops = 2 * c.macs;
        c.input_elems = 128 * 1280;
        c.output_elems = 128 * 1280;
        const ComputeRates r = simpleRates();
        // Batch 1: M = 1280, N = 128, K = 128: 10 tiles on 10 SMs.
        // FLOPs 2 x 1280 x 128 x 128 = 41.9 MFLOP at 10 TFLOP/s = 4.19 us.
        // Bytes (163840 + 163840) x 4 + 16384 x 4 = 1.376 MB at 500 GB/s = 2.75 us.
        const LayerPasses p = layerPasses(conv, c, {128, 10, 128}, 1, r);
        QVERIFY(qAbs(p.forward.ms - 41943040.0 / 10e9) < 1e-12);
        QCOMPARE(p.forward.bound, Bound::Compute);
        // Backward: the data gradient is the same GEMM; the weight gradient is 128 x 128
        // with K = 1280, one tile, so the library narrows tiles to 32 x 32 (16 tiles), then
        // splits K in 3 for 4 waves on 10 SMs: 48 blocks fill 48 of 50 slots.
        const double t = 41943040.0 / 10e9;
        QVERIFY(qAbs(p.backward.ms - (t + t / 0.96)) < 1e-12);
    }

    void bandwidthBoundLayersMoveTheirElements() {
        Layer relu;
        relu.kind = LayerKind::Activation;
        LayerCost c;
        c.output = {64, 100, 100};
        c.input_elems = c.output_elems = 640000;
        c.fwd_flops = 640000;
        c.bwd_data_flops = 640000;
        const ComputeRates r = simpleRates();
        const LayerPasses p = layerPasses(relu, c, c.output, 2, r);
        // Forward reads and writes 2 x 640000 x 2 samples x 4 B = 10.24 MB at 500 GB/s.
        QVERIFY(qAbs(p.forward.ms - 10.24e6 / 500e6) < 1e-12);
        QCOMPARE(p.forward.bound, Bound::Memory);
        // Backward reads y and dy, writes dx: 15.36 MB.
        QVERIFY(qAbs(p.backward.ms - 15.36e6 / 500e6) < 1e-12);
    }

    void hostOverheadBoundsTinyLayers() {
        Layer relu;
        relu.kind = LayerKind::Activation;
        LayerCost c;
        c.output = {1};
        c.input_elems = c.output_elems = 1;
        ComputeRates r = simpleRates();
        r.host_overhead_ms = 0.01;
        const LayerPasses p = layerPasses(relu, c, c.output, 1, r);
        QCOMPARE(p.forward.ms, 0.01);
        QCOMPARE(p.forward.bound, Bound::Overhead);
    }

    void bucketsCloseWhenFullAndLaunchInBackwardOrder() {
        std::vector<LayerTiming> layers(4);
        const std::vector<double> bwd_end{4.0, 3.0, 2.0, 1.0}; // layer 3 finishes first
        const std::vector<int64_t> params{0, 100, 100, 100};
        auto buckets = makeBuckets(layers, bwd_end, 800, 4, params);
        QCOMPARE(buckets.size(), std::size_t(2));
        QCOMPARE(buckets[0].bytes, int64_t(800));
        QCOMPARE(buckets[0].ready_ms, 2.0);
        QCOMPARE(layers[3].bucket, 0);
        QCOMPARE(layers[1].bucket, 1);
        QCOMPARE(layers[0].bucket, -1);

        ExchangeModel m;
        m.active = true;
        m.candidate_count = 1;
        m.candidates[0].cost = {1.0, 0.0}; // 1 ms per bucket
        auto overlapped = buckets;
        QCOMPARE(scheduleExchange(overlapped, m, true, 4.0), 4.0); // 2..3, then 3..4: hidden
        auto serial = buckets;
        QCOMPARE(scheduleExchange(serial, m, false, 4.0), 6.0);
    }

    void ncclPicksTheCheaperAlgorithmPerBucket() {
        ExchangeModel m;
        m.active = true;
        m.candidate_count = 2;
        m.candidates[0] = {AllreduceAlgorithm::Ring, {1.0, 1e-6}};
        m.candidates[1] = {AllreduceAlgorithm::Tree, {0.1, 2e-6}};
        AllreduceAlgorithm chosen{};
        QCOMPARE(exchangeMs(m, 1000, &chosen), 0.1 + 2e-3);
        QCOMPARE(chosen, AllreduceAlgorithm::Tree);
        QCOMPARE(exchangeMs(m, 1e7, &chosen), 1.0 + 10.0);
        QCOMPARE(chosen, AllreduceAlgorithm::Ring);
    }
};

QTEST_APPLESS_MAIN(ModelFormulas)
#include "tst_model_formulas.moc"
