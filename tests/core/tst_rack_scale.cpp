// Today's rack-scale and superchip hardware (issue 30): an NVLink domain wider than a node
// (GB200 NVL72: 18 trays of 4 GPUs), a CPU-to-GPU link other than PCIe (NVLink-C2C), and a
// GPU held below its boost clock by a power limit.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"

#include <QtTest>

#include <cmath>
#include <string>

using namespace iterscope;

namespace {

Scenario nvl72(int trays) {
    Scenario s;
    s.network = loadNetwork("resnet50");
    s.gpu = loadGpuProfile("gb200");
    s.system = loadSystemProfile("gb200-nvl72");
    s.software = loadSoftwareProfile("pytorch");
    s.precision = Precision::AMP;
    s.sync = SyncStrategy::AllreduceNccl;
    s.batch_per_gpu = 256;
    s.nodes = trays;
    s.gpus_per_node = 4;
    return s;
}

Scenario overTheNetworkOnly(Scenario s) {
    s.system.nvlink_domain_nodes = 1;
    return s;
}

} // namespace

class RackScale : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void theNvl72RackIsOneNvlinkDomainOfItsTrays() {
        const SystemProfile rack = loadSystemProfile("gb200-nvl72");
        QCOMPARE(rack.gpus_per_node * rack.nvlink_domain_nodes, 72);
        QVERIFY(rack.nvlink_sharp);
        const GpuProfile gpu = loadGpuProfile("gb200");
        QCOMPARE(QString::fromStdString(gpu.cpu_link), QStringLiteral("nvlink-c2c"));
        QVERIFY(gpu.cpu_link_gbps > 0);
    }

    void traysOfOneRackTalkOverNvlinkNotTheNetwork() {
        // 18 trays: 72 GPUs through the NVLink switches, against the same trays joined by
        // their 4 x 400 Gb/s NICs only.
        const Prediction rack = predict(nvl72(18));
        const Prediction network = predict(overTheNetworkOnly(nvl72(18)));
        QVERIFY2(rack.communication_ms < network.communication_ms / 2,
                 qPrintable(
                     QString("%1 vs %2").arg(rack.communication_ms).arg(network.communication_ms)));
        QVERIFY(rack.iteration_ms <= network.iteration_ms);
        QCOMPARE(rack.images_per_second > 0, true);
    }

    void twoRacksTakeTheNetworkBetweenThem() {
        // 36 trays are two domains: slower to all-reduce than one rack, faster than 36 trays
        // with no NVLink between them.
        const double one_rack = predict(nvl72(18)).communication_ms;
        const double two_racks = predict(nvl72(36)).communication_ms;
        const double no_domain = predict(overTheNetworkOnly(nvl72(36))).communication_ms;
        QVERIFY2(one_rack < two_racks, qPrintable(QString("%1 %2").arg(one_rack).arg(two_racks)));
        QVERIFY2(two_racks < no_domain, qPrintable(QString("%1 %2").arg(two_racks).arg(no_domain)));
    }

    void anUnevenTrayCountFillsRacksEvenly() {
        // 20 trays: two racks of 10, as a scheduler would place them; never a NaN or a
        // zero-time exchange.
        const Prediction p = predict(nvl72(20));
        QVERIFY(p.communication_ms > 0 && std::isfinite(p.iteration_ms));
        QVERIFY(p.communication_ms < predict(overTheNetworkOnly(nvl72(20))).communication_ms);
    }

    void aHybridRunKeepsItsNodes() {
        // Hybrid splits the FC layers across a node's GPUs: a rack must not turn that node
        // into 72 GPUs.
        Scenario s = nvl72(18);
        s.parallel = ParallelStrategy::Hybrid;
        QCOMPARE(predict(s).iteration_ms, predict(overTheNetworkOnly(s)).iteration_ms);
    }

    void parameterServersStillTakeTheNetwork() {
        // Each tray keeps its own host: gradients bound for a CPU parameter server leave the
        // tray over its NICs, domain or not.
        Scenario s = nvl72(2);
        s.sync = SyncStrategy::PsCpu;
        QCOMPARE(predict(s).iteration_ms, predict(overTheNetworkOnly(s)).iteration_ms);
    }

    void nvlinkC2cCarriesTheInputCopy() {
        // Real images cross from the Grace CPU's memory to the GPU over NVLink-C2C: faster
        // than the PCIe 5.0 link the same GPU would have in a DGX.
        Scenario s = nvl72(1);
        s.data = DataSource::Real;
        const double c2c = predict(s).input_ms;
        s.gpu.cpu_link = "pcie";
        s.gpu.cpu_link_gbps = 0;
        const double pcie = predict(s).input_ms;
        QVERIFY2(c2c > 0 && c2c < pcie, qPrintable(QString("%1 vs %2").arg(c2c).arg(pcie)));
    }

    void aPowerLimitedClockSlowsComputeNotMemory() {
        Scenario s;
        s.network = loadNetwork("resnet50");
        s.gpu = loadGpuProfile("rtx2080ti");
        s.system = loadSystemProfile("workstation-pcie3");
        s.software = loadSoftwareProfile("pytorch");
        s.batch_per_gpu = 64;
        const Prediction boost = predict(s);
        s.gpu.sustained_clock_mhz = s.gpu.boost_clock_mhz / 2;
        const Prediction held = predict(s);
        // Convolutions are compute-bound in FP32 and slow nearly in proportion; memory-bound
        // layers (batch norm, ReLU) keep their time, so the whole is less than twice.
        const double ratio = held.forward_ms / boost.forward_ms;
        QVERIFY2(ratio > 1.4 && ratio < 2.0, qPrintable(QString::number(ratio)));
        // A calibrated GPU's measured peaks already ran at whatever clock it held.
        s.gpu.calibrated = true;
        s.gpu.measured_fp32_tflops = s.gpu.fp32_tflops;
        Scenario measured_boost = s;
        measured_boost.gpu.sustained_clock_mhz = 0;
        QCOMPARE(predict(s).forward_ms, predict(measured_boost).forward_ms);
    }
};

QTEST_MAIN(RackScale)
#include "tst_rack_scale.moc"
