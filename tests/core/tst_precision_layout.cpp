// Precision and harness physics against hand-computed values (docs/model.md sections 1-3):
// BF16 on the FP16 tensor rate without a loss scaler, the transposes cuDNN makes for NCHW
// tensors on 16-bit tensor cores, depthwise convolutions on the FP16 lanes, and the host time
// of a learned augmentation policy. Plus the property that bf16 is never slower than fp16.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/compute_model.h"
#include "model/model.h"
#include "model/scenario_warnings.h"

#include "round_profiles.h"

#include <QtTest>

using namespace iterscope;

namespace {

// The round Ampere of the other physics tests, with GA100's FP16 lanes: 4:1 of FP32.
GpuProfile ampere() {
    GpuProfile g = test::ampereLike();
    g.fp16_tflops = 80;
    g.legacy_tensor_fraction = 1;
    return g;
}

using test::cudnn8;

Scenario shipped(const std::string& network, const std::string& gpu, Precision p, int64_t batch) {
    Scenario s;
    s.network = loadNetwork(network);
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile("workstation-pcie4");
    s.software = loadSoftwareProfile("pytorch");
    s.gpus_per_node = 1;
    s.sync = SyncStrategy::None;
    s.precision = p;
    s.batch_per_gpu = batch;
    s.data = DataSource::Synthetic;
    return s;
}

} // namespace

class PrecisionLayout : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void bf16RunsAtTheFp16TensorRateOnAmpere() {
        const ComputeRates bf16 = computeRates(ampere(), cudnn8(), Precision::BF16, true);
        const ComputeRates amp = computeRates(ampere(), cudnn8(), Precision::AMP, true);
        QVERIFY(bf16.tensor_cores);
        QCOMPARE(bf16.gemm_flop_per_ms, amp.gemm_flop_per_ms); // 320 x 0.8
        QCOMPARE(bf16.elem_bytes, int64_t{2});
        QCOMPARE(bf16.weight_bytes, int64_t{2});
    }

    void bf16HasNoTensorCoresBeforeAmpere() {
        GpuProfile volta = ampere();
        volta.architecture = "Volta";
        volta.compute_capability = 7.0;
        QCOMPARE(tensorCoreShare(volta, cudnn8(), Precision::BF16), 0.0);
        QVERIFY(!computeRates(volta, cudnn8(), Precision::BF16, true).tensor_cores);
        QVERIFY(tensorCoreShare(volta, cudnn8(), Precision::AMP) > 0);
        Scenario s = shipped("resnet18", "v100-sxm2-16gb", Precision::BF16, 32);
        bool warned = false;
        for (const ScenarioWarning& w : scenarioWarnings(s))
            warned |= w.id == "bf16-without-tensor-cores";
        QVERIFY(warned);
    }

    void nchwOnTensorCoresTransposesWhatEachKernelReads() {
        // A 1x1 convolution, 64 -> 64 channels on 32 x 32, batch 8, under amp.
        Layer conv;
        conv.kind = LayerKind::Convolution;
        conv.conv.out_channels = 64;
        conv.conv.kernel_h = conv.conv.kernel_w = 1;
        LayerCost c;
        c.output = {64, 32, 32};
        c.params = 64 * 64;
        c.fwd_flops = c.bwd_data_flops = c.bwd_weight_flops = 2LL * 1024 * 64 * 64;
        c.input_elems = c.output_elems = 64 * 1024;
        c.needs_data_grad = true;
        const ComputeRates nhwc = computeRates(ampere(), cudnn8(), Precision::AMP, true);
        const ComputeRates nchw = computeRates(ampere(), cudnn8(), Precision::AMP, false);
        QVERIFY(nchw.transposes && !nhwc.transposes);
        const LayerPasses a = layerPasses(conv, c, {64, 32, 32}, 8, nhwc);
        const LayerPasses b = layerPasses(conv, c, {64, 32, 32}, 8, nchw);
        // One transpose of the input forward (a read and a write of 8 x 65536 halves), at a
        // copy's rate, 2000 GB/s x 0.9; backward the data gradient reads dy, the weight
        // gradient x and dy.
        const double copy_ms = 2.0 * 8 * 65536 * 2 / (2000 * 0.9 * 1e6);
        QVERIFY(qAbs((b.forward.ms - a.forward.ms) - copy_ms) < 1e-12);
        QVERIFY(qAbs((b.backward.ms - a.backward.ms) - 3 * copy_ms) < 1e-12);
        // TF32 reads FP32 tensors in their own layout.
        QVERIFY(!computeRates(ampere(), cudnn8(), Precision::TF32, false).transposes);
    }

    void depthwiseConvolutionsUseTheFp16Lanes() {
        const ComputeRates fp32 = computeRates(ampere(), cudnn8(), Precision::TF32, true);
        const ComputeRates amp = computeRates(ampere(), cudnn8(), Precision::AMP, true);
        QCOMPARE(fp32.depthwise_flop_per_ms, 20 * 0.1 * 1e9);
        QCOMPARE(amp.depthwise_flop_per_ms, 80 * 0.1 * 1e9);
        // A GPU whose FP16 lanes are no faster keeps the FP32 rate.
        GpuProfile ga102 = ampere();
        ga102.fp16_tflops = 20;
        QCOMPARE(computeRates(ga102, cudnn8(), Precision::AMP, true).depthwise_flop_per_ms,
                 20 * 0.1 * 1e9);
    }

    void aLearnedAugmentationPolicyCostsHostTimeByPixels() {
        // EfficientNet-B0 trains with AutoAugment: each image costs 1 + cost x pixels / 224^2
        // standard images of host time.
        Scenario s = shipped("efficientnet-b0", "a100-sxm4-80gb", Precision::AMP, 256);
        s.data = DataSource::Real;
        s.system = loadSystemProfile("dgx-a100");
        QCOMPARE(s.augmentationInEffect(), Augmentation::AutoAugment);
        const double policy = predict(s, PredictDetail::Totals).host_input_ms;
        s.augmentation = Augmentation::Standard;
        const double standard = predict(s, PredictDetail::Totals).host_input_ms;
        QVERIFY(standard > 0);
        QVERIFY(qAbs(policy / standard - (1 + s.software.policy_augment_cost)) < 1e-9);
        // ResNet-50's recipe is the standard one.
        QCOMPARE(shipped("resnet50", "a100-sxm4-80gb", Precision::AMP, 64).augmentationInEffect(),
                 Augmentation::Standard);
    }

    void bf16IsNeverSlowerThanFp16OnAmpereAndLater_data() {
        QTest::addColumn<QString>("network");
        QTest::addColumn<QString>("gpu");
        for (const char* net : {"resnet50", "efficientnet-b0", "vgg16", "vit-b-16"})
            for (const char* gpu : {"a100-sxm4-80gb", "h100-sxm", "rtx4090", "l4", "rtx3090"})
                QTest::newRow((std::string(net) + " " + gpu).c_str()) << net << gpu;
    }
    void bf16IsNeverSlowerThanFp16OnAmpereAndLater() {
        QFETCH(QString, network);
        QFETCH(QString, gpu);
        for (ActivationLayout layout : {ActivationLayout::NCHW, ActivationLayout::NHWC}) {
            Scenario s = shipped(network.toStdString(), gpu.toStdString(), Precision::AMP, 32);
            s.layout = layout;
            const double amp = predict(s, PredictDetail::Totals).iteration_ms;
            s.precision = Precision::BF16;
            const double bf16 = predict(s, PredictDetail::Totals).iteration_ms;
            QVERIFY2(bf16 <= amp, qPrintable(QStringLiteral("%1 vs %2").arg(bf16).arg(amp)));
        }
    }
};

QTEST_APPLESS_MAIN(PrecisionLayout)
#include "tst_precision_layout.moc"
