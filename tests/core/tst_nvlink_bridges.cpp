// NVLink bridges on pairs of PCIe cards (issue 30, item 3): a bridged pair talks over its
// bridge, faster than PCIe and slower than an NVSwitch; rings of more GPUs are still bound by
// the PCIe hops between the pairs, as NCCL's rings are; a card without a connector ignores
// the bridge; a bridged card in an NVLink baseboard system talks over that system's PCIe.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/communication_model.h"
#include "model/model.h"
#include "model/scenario_warnings.h"

#include <QtTest>

#include <cmath>
#include <string>

using namespace iterscope;

namespace {

constexpr double kBucketBytes = 100e6;

Scenario workstation(const std::string& gpu, int gpus, bool bridged) {
    Scenario s;
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile("workstation-pcie4");
    if (bridged)
        s.system.nvlink_pairs = {{0, 1, 4}, {2, 3, 4}};
    s.software = loadSoftwareProfile("pytorch");
    s.sync = SyncStrategy::AllreduceNccl;
    s.gpus_per_node = gpus;
    return s;
}

double allReduceMs(const Scenario& s) {
    return exchangeMs(exchangeModel(s), kBucketBytes);
}

QStringList warningIds(const Scenario& s) {
    QStringList out;
    for (const auto& w : scenarioWarnings(s))
        out << QString::fromStdString(w.id);
    return out;
}

} // namespace

class NvlinkBridges : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aBridgedPairIsFasterThanPcieAndSlowerThanAnNvswitch() {
        const Scenario plain = workstation("rtx3090", 2, false);
        const Scenario bridged = workstation("rtx3090", 2, true);
        // GA102: four links of 14.0625 GB/s per direction (the GA102 whitepaper).
        QCOMPARE(intraNodeRingGbps(bridged.system, bridged.gpu, 2, true), 4 * 14.0625);
        QCOMPARE(intraNodeRingGbps(plain.system, plain.gpu, 2, true), plain.system.pcie_gbps);
        Scenario nvswitch = bridged;
        nvswitch.system = loadSystemProfile("dgx-a100");
        nvswitch.gpu = loadGpuProfile("a100-sxm4-80gb");
        const double bridge_ms = allReduceMs(bridged);
        QVERIFY2(bridge_ms < allReduceMs(plain), qPrintable(QString::number(bridge_ms)));
        QVERIFY2(bridge_ms > allReduceMs(nvswitch), qPrintable(QString::number(bridge_ms)));
        QVERIFY(std::isfinite(bridge_ms) && bridge_ms > 0);
    }

    void moreGpusAreBoundByThePcieHopsBetweenPairs() {
        // A ring through two bridged pairs crosses PCIe twice: no faster than PCIe alone.
        const Scenario plain = workstation("rtx3090", 4, false);
        const Scenario bridged = workstation("rtx3090", 4, true);
        QCOMPARE(intraNodeRingGbps(bridged.system, bridged.gpu, 4, true),
                 intraNodeRingGbps(plain.system, plain.gpu, 4, true));
        // Each GPU sends its partner's share over the bridge: the all-to-all phase of the
        // sharded strategies gets no slower, and faster where the GPU's own link bounds it.
        const double plain_ms = allToAllPhaseMs(plain.system, plain.gpu, 4, kBucketBytes, 1.0);
        const double bridged_ms =
            allToAllPhaseMs(bridged.system, bridged.gpu, 4, kBucketBytes, 1.0);
        QVERIFY(bridged_ms <= plain_ms);
        QVERIFY(bridged_ms > 0);
        QCOMPARE(peerGbps(bridged.system, bridged.gpu, 0, 1), 4 * 14.0625);
        QCOMPARE(peerGbps(bridged.system, bridged.gpu, 1, 2),
                 peerGbps(plain.system, plain.gpu, 1, 2));
    }

    void aCardWithoutAConnectorIgnoresTheBridge() {
        // The RTX 4090 has no NVLink: the bridge the system names joins nothing, and no link
        // of zero time appears.
        const Scenario plain = workstation("rtx4090", 2, false);
        const Scenario bridged = workstation("rtx4090", 2, true);
        QCOMPARE(allReduceMs(bridged), allReduceMs(plain));
        QVERIFY(allReduceMs(bridged) > 0);
        QVERIFY(warningIds(bridged).contains("bridge-without-nvlink"));
        QVERIFY(!warningIds(plain).contains("bridge-without-nvlink"));
        QVERIFY(!warningIds(workstation("rtx3090", 2, true)).contains("bridge-without-nvlink"));
    }

    void aBridgeUsesNoMoreLinksThanTheCardHas() {
        // A Quadro RTX 5000 has one x8 link: a bridge said to carry 4 runs at one link.
        Scenario s = workstation("quadro-rtx5000", 2, true);
        QCOMPARE(intraNodeRingGbps(s.system, s.gpu, 2, true), 25.0);
    }

    void aBridgedCardInAnNvlinkBaseboardSystemTalksOverItsPcie() {
        // An A100 PCIe has a bridge connector, not the SXM4 baseboard's NVLink: in a DGX
        // A100 its GPUs talk over the system's PCIe, and the scenario says so.
        Scenario dgx;
        dgx.gpu = loadGpuProfile("a100-pcie");
        dgx.system = loadSystemProfile("dgx-a100");
        dgx.software = loadSoftwareProfile("pytorch");
        dgx.sync = SyncStrategy::AllreduceNccl;
        dgx.gpus_per_node = 8;
        dgx.network = loadNetwork("resnet18");
        dgx.batch_per_gpu = 64;
        QVERIFY(warningIds(dgx).contains("pcie-card-in-nvlink-system"));
        Scenario over_pcie = dgx;
        over_pcie.system.intra_node = "pcie";
        over_pcie.system.nvswitch_gbps_per_gpu = 0;
        over_pcie.system.nvlink_sharp = false;
        const Prediction in_dgx = predict(dgx, PredictDetail::Totals);
        const Prediction pcie = predict(over_pcie, PredictDetail::Totals);
        QCOMPARE(in_dgx.iteration_ms, pcie.iteration_ms);
        QVERIFY(in_dgx.communication_ms > 0);
    }

    void aPcieSystemNamesItsBridgesOnePairPerCard() {
        const SystemProfile s = loadSystemProfile(std::string(ITERSCOPE_TEST_DATA) +
                                                  "/systems/supermicro-4029gp-trt-nvlink.json");
        QCOMPARE(QString::fromStdString(s.intra_node), QStringLiteral("pcie"));
        QCOMPARE(s.nvlink_pairs.size(), std::size_t(4));
        for (const auto& p : s.nvlink_pairs)
            QCOMPARE(p.b, p.a + 1);
    }
};

QTEST_MAIN(NvlinkBridges)
#include "tst_nvlink_bridges.moc"
