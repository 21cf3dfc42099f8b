// Shape inference and per-layer counts, one layer kind at a time, with hand-computed values.
#include "network/analysis.h"
#include "util/error.h"

#include <QtTest>

using namespace iterscope;

namespace {

// A network of the input followed by one layer fed by it.
Network single(const Dims& input, Layer layer) {
    Network net;
    net.name = "t";
    net.input = input;
    Layer in;
    in.name = "data";
    in.kind = LayerKind::Input;
    net.layers.push_back(in);
    layer.name = "x";
    layer.inputs = {0};
    net.layers.push_back(layer);
    return net;
}

Layer conv(int64_t out, int64_t k, int64_t stride = 1, int64_t pad = 0) {
    Layer l;
    l.kind = LayerKind::Convolution;
    l.conv.out_channels = out;
    l.conv.kernel_h = l.conv.kernel_w = k;
    l.conv.stride_h = l.conv.stride_w = stride;
    l.conv.pad_top = l.conv.pad_left = l.conv.pad_bottom = l.conv.pad_right = pad;
    return l;
}

Layer pool(int64_t k, int64_t stride, int64_t pad, bool ceil) {
    Layer l;
    l.kind = LayerKind::Pooling;
    l.pool.kernel_h = l.pool.kernel_w = k;
    l.pool.stride_h = l.pool.stride_w = stride;
    l.pool.pad_top = l.pool.pad_left = l.pool.pad_bottom = l.pool.pad_right = pad;
    l.pool.ceil_mode = ceil;
    return l;
}

} // namespace

class AnalysisTest : public QObject {
    Q_OBJECT
  private slots:
    void aConvolutionCountsWeightsBiasAndMacs() {
        const auto a = analyze(single({3, 224, 224}, conv(64, 7, 2, 3)));
        const LayerCost& c = a.layers[1];
        QCOMPARE(c.output, (Dims{64, 112, 112}));
        QCOMPARE(c.params, int64_t{64 * 3 * 7 * 7 + 64});
        QCOMPARE(c.macs, int64_t{64} * 112 * 112 * 3 * 7 * 7);
        // The first layer sees only the input: no data gradient.
        QVERIFY(!c.needs_data_grad);
        QCOMPARE(c.bwd_data_flops, int64_t{0});
        QCOMPARE(c.bwd_weight_flops, 2 * c.macs + 64 * 112 * 112);
    }

    void groupedAndDepthwiseConvolutionsDivideTheWork() {
        Layer g = conv(96, 3, 1, 1);
        g.conv.groups = 2;
        g.conv.bias = false;
        const auto a = analyze(single({48, 27, 27}, g));
        QCOMPARE(a.layers[1].params, int64_t{96 * 24 * 9});
        Layer dw = conv(32, 3, 1, 1);
        dw.conv.groups = 32;
        const auto b = analyze(single({32, 10, 10}, dw));
        QCOMPARE(b.layers[1].params, int64_t{32 * 9 + 32});
        QCOMPARE(b.layers[1].macs, int64_t{32 * 100 * 9});
    }

    void groupsMustDivideChannels() {
        Layer g = conv(64, 3);
        g.conv.groups = 5;
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(single({48, 8, 8}, g)));
    }

    void dilationWidensTheKernel() {
        Layer d = conv(8, 3, 1, 0);
        d.conv.dilation_h = d.conv.dilation_w = 2; // extent 5
        QCOMPARE(analyze(single({1, 9, 9}, d)).layers[1].output, (Dims{8, 5, 5}));
    }

    void strideLargerThanKernelSkipsPixels() {
        QCOMPARE(analyze(single({1, 10, 10}, conv(1, 1, 3))).layers[1].output, (Dims{1, 4, 4}));
    }

    void samePaddingKeepsCeilOfInputOverStride() {
        Layer s = conv(4, 3, 2);
        s.conv.pad_mode = PadMode::SameUpper;
        QCOMPARE(analyze(single({1, 7, 7}, s)).layers[1].output, (Dims{4, 4, 4}));
    }

    void asymmetricPaddingAddsPerSide() {
        Layer s = conv(4, 3, 1);
        s.conv.pad_top = 1;
        s.conv.pad_bottom = 0;
        s.conv.pad_left = 2;
        s.conv.pad_right = 0;
        QCOMPARE(analyze(single({1, 5, 5}, s)).layers[1].output, (Dims{4, 4, 5}));
    }

    void ceilPoolingRoundsUpButKeepsTheLastWindowInside_data() {
        QTest::addColumn<int64_t>("in");
        QTest::addColumn<int64_t>("k");
        QTest::addColumn<int64_t>("stride");
        QTest::addColumn<int64_t>("pad");
        QTest::addColumn<bool>("ceil");
        QTest::addColumn<int64_t>("out");
        QTest::newRow("caffe googlenet 112 3/2 ceil")
            << int64_t{112} << int64_t{3} << int64_t{2} << int64_t{0} << true << int64_t{56};
        QTest::newRow("floor 112 3/2")
            << int64_t{112} << int64_t{3} << int64_t{2} << int64_t{0} << false << int64_t{55};
        QTest::newRow("alexnet 55 3/2")
            << int64_t{55} << int64_t{3} << int64_t{2} << int64_t{0} << true << int64_t{27};
        QTest::newRow("padded ceil")
            << int64_t{6} << int64_t{2} << int64_t{2} << int64_t{1} << true << int64_t{4};
        QTest::newRow("last window dropped")
            << int64_t{5} << int64_t{2} << int64_t{2} << int64_t{1} << true << int64_t{3};
        QTest::newRow("window overhangs by less than a stride")
            << int64_t{2} << int64_t{3} << int64_t{2} << int64_t{0} << true << int64_t{1};
        QTest::newRow("1x1 input")
            << int64_t{1} << int64_t{1} << int64_t{1} << int64_t{0} << true << int64_t{1};
    }
    void ceilPoolingRoundsUpButKeepsTheLastWindowInside() {
        QFETCH(int64_t, in);
        QFETCH(int64_t, k);
        QFETCH(int64_t, stride);
        QFETCH(int64_t, pad);
        QFETCH(bool, ceil);
        QFETCH(int64_t, out);
        const auto a = analyze(single({3, in, in}, pool(k, stride, pad, ceil)));
        QCOMPARE(a.layers[1].output, (Dims{3, out, out}));
    }

    void aKernelLargerThanItsInputIsAnError() {
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(single({3, 4, 4}, conv(8, 5))));
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(single({3, 2, 2}, pool(3, 2, 0, false))));
    }

    void fullyConnectedFlattensItsInput() {
        Layer fc;
        fc.kind = LayerKind::FullyConnected;
        fc.fc.out_features = 10;
        const auto a = analyze(single({4, 3, 3}, fc));
        QCOMPARE(a.layers[1].params, int64_t{36 * 10 + 10});
        QCOMPARE(a.layers[1].macs, int64_t{360});
        QCOMPARE(a.layers[1].output, (Dims{10}));
    }

    void batchNormCountsScaleAndBiasOnlyWhenAffine() {
        Layer bn;
        bn.kind = LayerKind::BatchNorm;
        QCOMPARE(analyze(single({16, 4, 4}, bn)).layers[1].params, int64_t{32});
        bn.bn.affine = false;
        QCOMPARE(analyze(single({16, 4, 4}, bn)).layers[1].params, int64_t{0});
        Layer scale;
        scale.kind = LayerKind::Scale;
        QCOMPARE(analyze(single({16, 4, 4}, scale)).layers[1].params, int64_t{32});
    }

    void concatSumsTheAxisAndChecksTheRest() {
        Network net = single({8, 5, 5}, conv(4, 1));
        Layer b = conv(6, 1);
        b.name = "y";
        b.inputs = {0};
        net.layers.push_back(b);
        Layer cat;
        cat.name = "cat";
        cat.kind = LayerKind::Concat;
        cat.inputs = {1, 2};
        net.layers.push_back(cat);
        QCOMPARE(analyze(net).layers[3].output, (Dims{10, 5, 5}));
        net.layers[2].conv.stride_h = net.layers[2].conv.stride_w = 2;
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(net));
    }

    void eltwiseBroadcastsAndRejectsMismatch() {
        Network net = single({8, 5, 5}, conv(8, 1));
        Layer add;
        add.name = "add";
        add.kind = LayerKind::Eltwise;
        add.inputs = {0, 1};
        net.layers.push_back(add);
        QCOMPARE(analyze(net).layers[2].output, (Dims{8, 5, 5}));
        net.layers[1].conv.out_channels = 4;
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(net));
    }

    void reshapeInfersOneDimension() {
        Layer r;
        r.kind = LayerKind::Reshape;
        r.reshape.target = {-1, 4};
        QCOMPARE(analyze(single({2, 4, 4}, r)).layers[1].output, (Dims{8, 4}));
        r.reshape.target = {5, -1};
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(single({2, 4, 4}, r)));
    }

    void transposePermutesAndPadGrows() {
        Layer t;
        t.kind = LayerKind::Transpose;
        t.transpose.perm = {1, 2, 0};
        QCOMPARE(analyze(single({3, 5, 7}, t)).layers[1].output, (Dims{5, 7, 3}));
        Layer p;
        p.kind = LayerKind::Pad;
        p.pad = {1, 2, 3, 4, {}, {}};
        QCOMPARE(analyze(single({3, 5, 7}, p)).layers[1].output, (Dims{3, 9, 13}));
    }

    void deconvolutionGrowsTheImage() {
        Layer d = conv(8, 4, 2, 1);
        d.kind = LayerKind::Deconvolution;
        const auto a = analyze(single({16, 7, 7}, d));
        QCOMPARE(a.layers[1].output, (Dims{8, 14, 14}));
        QCOMPARE(a.layers[1].params, int64_t{16 * 8 * 16 + 8});
    }

    void dataGradientFlowsOnlyBelowTrainableLayers() {
        Network net = single({3, 8, 8}, conv(4, 3, 1, 1));
        Layer relu;
        relu.name = "relu";
        relu.kind = LayerKind::Activation;
        relu.inputs = {1};
        net.layers.push_back(relu);
        const auto a = analyze(net);
        QVERIFY(!a.layers[1].needs_data_grad);
        QVERIFY(a.layers[2].needs_data_grad);
        QVERIFY(a.layers[2].bwd_data_flops > 0);
    }

    void hugeDimensionsOverflowIntoAnErrorNotAWrap() {
        QVERIFY_THROWS_EXCEPTION(
            InputError, analyze(single({int64_t{1} << 40, int64_t{1} << 20, 4}, conv(1 << 20, 1))));
        const auto a = analyze(single({3, 224, 224}, conv(64, 3, 1, 1)));
        QVERIFY_THROWS_EXCEPTION(InputError, statsAt(a.layers[1], int64_t{1} << 50, 4));
    }

    void badTopologyIsRejected() {
        Network net = single({3, 8, 8}, conv(4, 3));
        net.layers[1].inputs = {1};
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(net));
        net.layers[1].inputs = {7};
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(net));
        net.layers[1].inputs = {0};
        net.input = {3, 0, 8};
        QVERIFY_THROWS_EXCEPTION(InputError, analyze(net));
    }

    void statsScaleWithBatchAndElementSize() {
        const auto a = analyze(single({3, 32, 32}, conv(16, 3, 1, 1)));
        const LayerStats s1 = statsAt(a.layers[1], 1, 4);
        const LayerStats s8 = statsAt(a.layers[1], 8, 2);
        QCOMPARE(s8.macs, 8 * s1.macs);
        QCOMPARE(s8.params, s1.params);
        QCOMPARE(s8.fwd_bytes_written, int64_t{8 * 16 * 32 * 32 * 2});
        QCOMPARE(s1.gradient_bytes, s1.params * 4);
        QVERIFY_THROWS_EXCEPTION(InputError, statsAt(a.layers[1], 0, 4));
    }
};

QTEST_APPLESS_MAIN(AnalysisTest)
#include "tst_analysis.moc"
