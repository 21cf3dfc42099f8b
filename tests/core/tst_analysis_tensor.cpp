// Shapes and counts of the tensor layer kinds (analysis_tensor.cpp), and their kernel times
// (compute_layers_tensor.cpp), on single layers with hand-computed values.
#include "model/compute_layers_tensor.h"
#include "network/analysis.h"
#include "network/builder.h"
#include "util/error.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

struct One {
    Network net;
    NetworkAnalysis a;
    const LayerCost& last() const { return a.layers.back(); }
};

// The input, a learned layer (so that backward needs data gradients), then `add`'s layers.
template <class Add> One build(const Dims& input, Add add) {
    NetworkBuilder b("t", input);
    const LayerRef x = b.layerNorm("prelude", b.input());
    add(b, x);
    One o;
    o.net = std::move(b).build();
    o.a = analyze(o.net);
    return o;
}

ComputeRates rates() {
    ComputeRates r;
    r.vector_flop_per_ms = 10e9; // 10 TFLOP/s
    r.gemm_flop_per_ms = 100e9;  // 100 TFLOP/s
    r.conv_efficiency = r.fc_efficiency = 0.5;
    r.bytes_per_ms = 1e9; // 1 TB/s
    r.sms = 100;
    r.kernel_gap_ms = 0.001;
    r.host_overhead_ms = 0;
    r.elem_bytes = 2;
    r.weight_bytes = 2;
    r.gemm_k_half = 0;
    r.tile_m = r.tile_n = 128;
    return r;
}

} // namespace

class TensorAnalysisTest : public QObject {
    Q_OBJECT
  private slots:
    void attentionScoresAreABatchedProductPerHead() {
        // q [12, 197, 64] x k^T: [12, 197, 197], 12 x 197 x 197 x 64 MACs, both inputs kept.
        const One o = build({12, 197, 64},
                            [](NetworkBuilder& b, LayerRef x) { b.matmul("scores", x, x, true); });
        const LayerCost& c = o.last();
        QCOMPARE(c.output, (Dims{12, 197, 197}));
        QCOMPARE(c.macs, int64_t{12} * 197 * 197 * 64);
        QCOMPARE(c.fwd_flops, 2 * c.macs);
        QCOMPARE(c.bwd_data_flops, 4 * c.macs);
        QCOMPARE(c.saved_elems, int64_t{2} * 12 * 197 * 64);
        QCOMPARE(c.params, int64_t{0});
    }

    void matmulBroadcastsLeadingAxesAndReadsVectors() {
        NetworkBuilder b("t", {2, 1, 5, 3});
        const LayerRef w = b.constant("w", {4, 3, 6}, 72);
        b.matmul("mm", b.input(), w);
        const NetworkAnalysis a = analyze(std::move(b).build());
        QCOMPARE(a.layers.back().output, (Dims{2, 4, 5, 6}));
        QCOMPARE(a.total_params, int64_t{72});
        QCOMPARE(a.layers.back().macs, int64_t{2} * 4 * 5 * 6 * 3);
        // Mismatched inner sizes name the layer.
        NetworkBuilder bad("t", {5, 3});
        bad.matmul("mm", bad.input(), bad.input());
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(std::move(bad).build()));
    }

    void aTokenLinearMapsTheLastAxis() {
        const One o =
            build({197, 768}, [](NetworkBuilder& b, LayerRef x) { b.linear("fc1", x, 3072); });
        const LayerCost& c = o.last();
        QCOMPARE(c.output, (Dims{197, 3072}));
        QCOMPARE(c.params, int64_t{768} * 3072 + 3072);
        QCOMPARE(c.macs, int64_t{197} * 768 * 3072);
    }

    void layerNormCountsItsBlockAndKeepsRowStatistics() {
        // Over the last two axes of [4, 6, 8]: a 48-element block, 4 rows.
        const One o =
            build({4, 6, 8}, [](NetworkBuilder& b, LayerRef x) { b.layerNorm("ln", x, -2); });
        const LayerCost& c = o.last();
        QCOMPARE(c.params, int64_t{2 * 48});
        QCOMPARE(c.saved_elems, int64_t{4 * 6 * 8 + 2 * 4});
        QCOMPARE(c.fwd_flops, int64_t{7 * 192});
    }

    void reductionsSlicesAndExpandsHaveTheirShapes() {
        NetworkBuilder b("t", {3, 10, 7});
        Layer r;
        r.name = "mean";
        r.kind = LayerKind::Reduce;
        r.inputs = {0};
        r.reduce = {ReduceKind::Mean, {-1, 0}, false};
        Network net = b.network();
        net.layers.push_back(r);
        Layer s;
        s.name = "odd_reversed";
        s.kind = LayerKind::Slice;
        s.inputs = {0};
        s.slice = {{1, 2}, {1, -1}, {-1, -8}, {2, -1}}; // 1, 3, 5, 7 of 10; 6..0 of 7
        net.layers.push_back(s);
        Layer e;
        e.name = "expand";
        e.kind = LayerKind::Expand;
        e.inputs = {1};
        e.expand.target = {4, 10};
        net.layers.push_back(e);
        const NetworkAnalysis a = analyze(net);
        QCOMPARE(a.layers[1].output, (Dims{10}));
        QCOMPARE(a.layers[2].output, (Dims{3, 4, 7}));
        QCOMPARE(a.layers[3].output, (Dims{4, 10}));
        // An empty slice is an error naming the layer.
        net.layers[2].slice.starts = {5, 0};
        net.layers[2].slice.ends = {5, 7};
        try {
            analyze(net);
            QFAIL("accepted an empty slice");
        } catch (const InputError& err) {
            QVERIFY(std::string(err.what()).find("odd_reversed") != std::string::npos);
        }
    }

    void aLearnedConstantCarriesItsParametersToEverySample() {
        NetworkBuilder b("t", {196, 768});
        const LayerRef cls = b.constant("class_token", {1, 768}, 768);
        const LayerRef x = b.concat("cat", {cls, b.input()}, 0);
        const LayerRef pos = b.constant("pos", {197, 768}, 197 * 768);
        b.add("add", x, pos);
        const NetworkAnalysis a = analyze(std::move(b).build());
        QCOMPARE(a.layers.back().output, (Dims{197, 768}));
        QCOMPARE(a.total_params, int64_t{768 + 197 * 768});
        // Downstream of a learned token, backward needs data gradients.
        QVERIFY(a.layers.back().needs_data_grad);
    }

    void attentionIsAGemmOnTheGemmPeak() {
        // [12, 197, 197] x [12, 197, 64] at batch 8: forward 2 x 8 x 12 x 197 x 64 x 197 FLOPs
        // on 96 GEMMs of 197 x 64 over K = 197, at most the GEMM peak x efficiency.
        const One o = build({12, 197, 197}, [](NetworkBuilder& b, LayerRef x) {
            const LayerRef v = b.slice("v", x, {2}, {0}, {64});
            b.matmul("context", x, v);
        });
        const ComputeRates r = rates();
        const Layer& l = o.net.layers.back();
        const LayerPasses p = tensorLayerPasses(l, o.last(), Dims{12, 197, 197}, 8, r);
        const double flops = 2.0 * 8 * 12 * 197 * 64 * 197;
        const double eff = gemmEfficiency(197, 64, 197, 8 * 12, r.fc_efficiency, r);
        QVERIFY(eff > 0 && eff <= r.fc_efficiency);
        const double compute = flops / (r.gemm_flop_per_ms * eff);
        const auto elems = static_cast<double>(o.last().input_elems + o.last().output_elems);
        const double memory = 8.0 * elems * 2 / r.bytes_per_ms;
        QCOMPARE(p.forward.ms, std::max(compute, memory) + r.kernel_gap_ms);
        // Backward: two products, each as many FLOPs as the forward.
        QVERIFY(p.backward.ms > 1.9 * (p.forward.ms - r.kernel_gap_ms));
        QVERIFY(isTensorLayer(l));
    }

    void layerNormIsBandwidthBound() {
        const One o =
            build({197, 768}, [](NetworkBuilder& b, LayerRef x) { b.layerNorm("ln", x); });
        const ComputeRates r = rates();
        const LayerPasses p =
            tensorLayerPasses(o.net.layers.back(), o.last(), Dims{197, 768}, 16, r);
        const double e = 16.0 * 197 * 768;
        QCOMPARE(p.forward.ms, 2 * e * 2 / r.bytes_per_ms + r.kernel_gap_ms); // read x, write y
        QCOMPARE(p.forward.bound, Bound::Memory);
        QCOMPARE(p.backward.ms, 5 * e * 2 / r.bytes_per_ms + r.kernel_gap_ms); // 4 E_in + E_out
    }

    void aConstantRunsNoForwardKernel() {
        NetworkBuilder b("t", {4, 8});
        const LayerRef pos = b.constant("pos", {4, 8}, 32);
        b.add("add", b.input(), pos);
        const Network net = std::move(b).build();
        const NetworkAnalysis a = analyze(net);
        const LayerPasses p = tensorLayerPasses(net.layers[1], a.layers[1], Dims{}, 64, rates());
        QCOMPARE(p.forward.ms, 0.0);
        QVERIFY(p.backward.ms > 0); // its gradient, summed over the batch
    }
};

QTEST_APPLESS_MAIN(TensorAnalysisTest)
#include "tst_analysis_tensor.moc"
