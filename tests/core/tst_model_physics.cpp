// The accuracy physics of issue 11 against values computed by hand (docs/model.md sections
// 1-3 and 6-7): tensor cores by GPU and software generation, layouts, fusions, gradient sums,
// the host input pipeline, stragglers, and memory that counts each saved tensor once.
#include "hardware/architecture.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/compute_model.h"
#include "model/memory_model.h"
#include "model/model.h"
#include "network/builder.h"

#include "round_profiles.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

namespace {

using test::ampereLike;
using test::cudnn8;

// input -> conv -> bn -> relu -> conv2 -> bn2 -> (+ input of conv2) -> relu2
Network residualBlock() {
    NetworkBuilder b("block", {16, 8, 8});
    LayerRef x = b.relu(
        "relu0", b.batchNorm("bn0", b.conv("conv0", b.input(), 16, Conv(3).pad(1).noBias())));
    LayerRef y =
        b.relu("relu1", b.batchNorm("bn1", b.conv("conv1", x, 16, Conv(3).pad(1).noBias())));
    y = b.batchNorm("bn2", b.conv("conv2", y, 16, Conv(3).pad(1).noBias()));
    b.relu("relu2", b.add("add", y, x));
    return std::move(b).build();
}

std::size_t indexOf(const Network& net, const std::string& name) {
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        if (net.layers[i].name == name)
            return i;
    return net.layers.size();
}

} // namespace

class ModelPhysics : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void tensorRatesAreTheSpecTimesTheLibraryCeilingTimesTheSoftware() {
        const GpuProfile g = ampereLike();
        const SoftwareProfile s = cudnn8();
        const ComputeRates amp = computeRates(g, s, Precision::AMP, true);
        QVERIFY(amp.tensor_cores);
        QVERIFY(qAbs(amp.gemm_flop_per_ms - 320 * 0.8 * 1e9) < 1);
        QVERIFY(qAbs(amp.conv_efficiency - 0.5) < 1e-12);
        const ComputeRates tf32 = computeRates(g, s, Precision::TF32, false);
        QVERIFY(qAbs(tf32.gemm_flop_per_ms - 160 * 0.75 * 1e9) < 1);
        QVERIFY(qAbs(tf32.conv_efficiency - 0.25) < 1e-12); // 0.5 x tf32 0.5
        // DRAM: 2000 GB/s x 0.9 achievable x 0.5 of it for the software's kernels.
        QVERIFY(qAbs(amp.bytes_per_ms - 2000 * 0.9 * 0.5 * 1e6) < 1);
        // Depthwise convolutions use the vector lanes whatever the precision: the FP32 ones
        // here, where the GPU has no faster FP16 lanes.
        QVERIFY(qAbs(amp.depthwise_flop_per_ms - 20 * 0.1 * 1e9) < 1);
    }

    void softwareGenerationGatesTensorCores() {
        const GpuProfile g = ampereLike();
        SoftwareProfile s = cudnn8();
        QCOMPARE(tensorCoreShare(g, s, Precision::AMP), 1.0);
        QCOMPARE(tensorCoreShare(g, s, Precision::FP32), 0.0);
        // cuDNN 5 knows Pascal at most: no tensor cores, no TF32.
        s.newest_compute_capability = 6.1;
        QCOMPARE(tensorCoreShare(g, s, Precision::AMP), 0.0);
        QCOMPARE(tensorCoreShare(g, s, Precision::TF32), 0.0);
        // cuDNN 7 knows Volta: FP16 tensor cores but not TF32.
        s.newest_compute_capability = 7.5;
        QCOMPARE(tensorCoreShare(g, s, Precision::TF32), 0.0);
        GpuProfile hopper = g;
        hopper.compute_capability = 9.0;
        s.newest_compute_capability = 8.6;
        // Ampere-era kernels on Hopper keep the legacy share; same-major GPUs lose nothing.
        QCOMPARE(tensorCoreShare(hopper, s, Precision::AMP), 0.6);
        GpuProfile ada = g;
        ada.compute_capability = 8.9;
        QCOMPARE(tensorCoreShare(ada, s, Precision::AMP), 1.0);
        // Without a tensor share the GEMM peak is the FP32 lanes'.
        s.newest_compute_capability = 6.1;
        const ComputeRates r = computeRates(g, s, Precision::AMP, true);
        QVERIFY(!r.tensor_cores);
        QVERIFY(qAbs(r.gemm_flop_per_ms - 20e9) < 1);
    }

    void architecturesComeFromTheirFile() {
        ArchitectureFacts hopper;
        QVERIFY(findArchitecture("Hopper", hopper));
        QCOMPARE(hopper.compute_capability, 9.0);
        QVERIFY(hopper.legacy_tensor_fraction < 1);
        const GpuProfile h100 = loadGpuProfile("h100-sxm");
        QCOMPARE(h100.tensor_gemm_efficiency, hopper.tensor_gemm_efficiency);
        // A GPU without its own compute capability takes its architecture's.
        ArchitectureFacts none;
        QVERIFY(!findArchitecture("Unknown", none));
    }

    void fusedBatchNormKernelsAbsorbTheirReluAndResidualAddition() {
        const Network net = residualBlock();
        const NetworkAnalysis a = analyze(net);
        SoftwareProfile s = cudnn8();
        s.fused_bn_add_activation = true;
        const auto fused = planFusions(net, a, s, true);
        const double e = double(a.layers[indexOf(net, "relu2")].output_elems);
        QVERIFY(fused[indexOf(net, "relu0")].absorbed);
        QVERIFY(fused[indexOf(net, "relu2")].absorbed);
        QVERIFY(fused[indexOf(net, "add")].absorbed);
        // bn2 reads the residual forward; backward it masks and writes the residual gradient.
        QCOMPARE(fused[indexOf(net, "bn2")].extra_fwd_elems, e);
        QCOMPARE(fused[indexOf(net, "bn2")].extra_bwd_elems, 2 * e);
        QCOMPARE(fused[indexOf(net, "bn0")].extra_bwd_elems, e);
        // cuDNN's fused kernels exist for NHWC only.
        const auto nchw = planFusions(net, a, s, false);
        QVERIFY(!nchw[indexOf(net, "relu0")].absorbed);
        // A compiler fuses in any layout.
        SoftwareProfile xla = cudnn8();
        xla.elementwise_fusion = true;
        QVERIFY(planFusions(net, a, xla, false)[indexOf(net, "add")].absorbed);
    }

    void gradientsOfAnOutputWithTwoConsumersAreSummed() {
        const Network net = residualBlock();
        const NetworkAnalysis a = analyze(net);
        const std::size_t relu0 = indexOf(net, "relu0"); // feeds conv1 and the addition
        const auto plan = planFusions(net, a, cudnn8(), false);
        QCOMPARE(plan[relu0].gradient_sum_elems, 3.0 * double(a.layers[relu0].output_elems));
        QCOMPARE(plan[indexOf(net, "relu1")].gradient_sum_elems, 0.0);
        SoftwareProfile xla = cudnn8();
        xla.elementwise_fusion = true;
        QCOMPARE(planFusions(net, a, xla, false)[relu0].gradient_sum_elems, 0.0);
        // The sum is one more bandwidth-bound kernel in that layer's backward pass.
        const ComputeRates r = computeRates(ampereLike(), cudnn8(), Precision::AMP, false);
        const Dims& in = a.layers[net.layers[relu0].inputs[0]].output;
        const LayerPasses without =
            layerPasses(net.layers[relu0], a.layers[relu0], in, 8, r, LayerFusion{});
        const LayerPasses with =
            layerPasses(net.layers[relu0], a.layers[relu0], in, 8, r, plan[relu0]);
        const double sum_ms = 8 * plan[relu0].gradient_sum_elems * 2 / r.bytes_per_ms;
        QVERIFY(qAbs(with.backward.ms - without.backward.ms - sum_ms) < 1e-9);
    }

    void persistentBatchNormReadsEachTensorOnce() {
        const Network net = residualBlock();
        const NetworkAnalysis a = analyze(net);
        const std::size_t bn = indexOf(net, "bn1");
        const Dims& in = a.layers[net.layers[bn].inputs[0]].output;
        const ComputeRates nhwc = computeRates(ampereLike(), cudnn8(), Precision::AMP, true);
        const ComputeRates nchw = computeRates(ampereLike(), cudnn8(), Precision::AMP, false);
        QVERIFY(nhwc.persistent_bn);
        const double e = 16.0 * double(a.layers[bn].input_elems) * 2; // batch 16, FP16 bytes
        const LayerPasses p = layerPasses(net.layers[bn], a.layers[bn], in, 16, nhwc);
        const LayerPasses q = layerPasses(net.layers[bn], a.layers[bn], in, 16, nchw);
        QVERIFY(qAbs(p.forward.ms - 2 * e / nhwc.bytes_per_ms) < 1e-9);  // read x, write y
        QVERIFY(qAbs(p.backward.ms - 3 * e / nhwc.bytes_per_ms) < 1e-9); // x, dy, dx
        QVERIFY(qAbs(q.forward.ms - 3 * e / nchw.bytes_per_ms) < 1e-9);
        QVERIFY(qAbs(q.backward.ms - 5 * e / nchw.bytes_per_ms) < 1e-9);
    }

    void theHostDecodesForEveryGpuOfItsNode() {
        Scenario s;
        s.network = loadNetwork("resnet18");
        s.gpu = loadGpuProfile("v100-sxm2-16gb");
        s.system = loadSystemProfile("dgx1-v100");
        s.software = loadSoftwareProfile("pytorch");
        s.software.host_images_per_core_s = 100;
        s.software.loader_workers_per_gpu = 16;
        s.software.sync_jitter = 0;
        s.gpus_per_node = 8;
        s.batch_per_gpu = 64;
        s.precision = Precision::AMP;
        s.data = DataSource::Real;
        // 16 x 8 = 128 loader processes, but 80 hardware threads: 80 x 100 images/s;
        // 8 GPUs x 64 images take 512 / 8000 s = 64 ms.
        const Prediction p = predict(s);
        QVERIFY(qAbs(p.host_input_ms - 64.0) < 1e-9);
        // The soft maximum of the GPU's step and the host's: (g^3 + h^3)^(1/3).
        Scenario synthetic = s;
        synthetic.data = DataSource::Synthetic;
        const Prediction g = predict(synthetic);
        QCOMPARE(g.host_input_ms, 0.0);
        const double expected = std::cbrt(std::pow(g.iteration_ms, 3) + std::pow(64.0, 3));
        QVERIFY(qAbs(p.iteration_ms - expected) < 1e-6 * expected);
        QVERIFY(qAbs(p.input_wait_ms - (expected - g.iteration_ms)) < 1e-6 * expected);
        QVERIFY(p.input_bound);
        // A system whose cores are unknown sets no cap.
        s.system.cpu_cores_per_node = 0;
        QCOMPARE(predict(s).host_input_ms, 0.0);
    }

    void theSlowestOfNGpusSetsTheStep() {
        Scenario s;
        s.network = loadNetwork("resnet18");
        s.gpu = loadGpuProfile("v100-sxm2-16gb");
        s.system = loadSystemProfile("dgx1-v100");
        s.software = loadSoftwareProfile("pytorch");
        s.data = DataSource::Synthetic;
        s.batch_per_gpu = 64;
        s.gpus_per_node = 8;
        s.software.sync_jitter = 0;
        const Prediction steady = predict(s);
        s.software.sync_jitter = 0.05;
        const Prediction jittery = predict(s);
        // E[max of 8 standard normals] = 1.4236; Blom's approximation is within 1% of it.
        const double lag = jittery.straggler_ms / (steady.iteration_ms * 0.05);
        QVERIFY2(qAbs(lag - 1.4236) < 0.0143, qPrintable(QString::number(lag)));
        QVERIFY(qAbs(jittery.iteration_ms - steady.iteration_ms - jittery.straggler_ms) < 1e-9);
        // One GPU waits for nobody.
        s.gpus_per_node = 1;
        s.sync = SyncStrategy::None;
        QCOMPARE(predict(s).straggler_ms, 0.0);
    }

    void eachSavedTensorCountsOnce() {
        // relu0 runs in place on bn0's output; conv1 and the addition save it again; bn1 and
        // relu1 (in place) and conv2 save bn1's output once; bn2 saves conv2's output;
        // relu2 runs in place on the addition. Saved: conv0's input (the image), conv0's,
        // conv1's and conv2's outputs (the batch norms' inputs), bn0's and bn1's outputs
        // (in place under their ReLUs), and the addition's output (relu2 keeps it): 1 + 6.
        const Network net = residualBlock();
        const NetworkAnalysis a = analyze(net);
        Scenario s;
        auto analyzed = std::make_shared<AnalyzedNetwork>();
        analyzed->network = net;
        analyzed->analysis = a;
        s.network = analyzed;
        s.gpu = ampereLike();
        s.software = cudnn8();
        s.batch_per_gpu = 1;
        const MemoryEstimate m = estimateMemory(s);
        const double map = 16.0 * 8 * 8;
        // FP32 bytes, plus the two transient tensors at the peak (2 x the largest output).
        QCOMPARE(double(m.activations_bytes), (7 * map + 2 * map) * 4);
    }
};

QTEST_APPLESS_MAIN(ModelPhysics)
#include "tst_model_physics.moc"
