// GPUs without PCIe peer-to-peer (GeForce RTX 4090 and 5090 under NVIDIA's driver): NCCL
// stages every GPU-to-GPU copy through host memory, so behind PCIe switches the uplinks to
// the CPU carry the whole ring, while GPUs on root ports of their own lose nothing; a known
// host memory bandwidth bounds the staging too.
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "hardware/profile_writer.h"
#include "io/network_loader.h"
#include "model/communication_model.h"
#include "model/model.h"
#include "model/scenario_warnings.h"
#include "util/error.h"

#include <QtTest>

#include <string>

using namespace iterscope;

namespace {

// Lambda's 8-GPU Turing server: 4 GPUs behind each of two PCIe switches.
SystemProfile switchedServer() {
    return loadSystemProfile(std::string(ITERSCOPE_TEST_DATA) +
                             "/systems/supermicro-4029gp-trt2.json");
}

GpuProfile withP2p(GpuProfile gpu, bool p2p) {
    gpu.pcie_p2p = p2p;
    return gpu;
}

} // namespace

class PcieP2p : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void theGeForceCardsWithoutP2pSaySo() {
        QVERIFY(!loadGpuProfile("rtx4090").pcie_p2p);
        QVERIFY(!loadGpuProfile("rtx5090").pcie_p2p);
        QVERIFY(loadGpuProfile("rtx3090").pcie_p2p);
        QVERIFY(loadGpuProfile("a100-pcie").pcie_p2p);
    }

    void behindSwitchesTheUplinksCarryTheRing() {
        const SystemProfile server = switchedServer();
        QCOMPARE(server.gpus_per_pcie_switch, 4);
        const GpuProfile gpu = loadGpuProfile("rtx4090");
        const double p2p = intraNodeRingGbps(server, withP2p(gpu, true), 8, true);
        const double staged = intraNodeRingGbps(server, gpu, 8, true);
        // Each switch's uplink (the host's PCIe aggregate over the switches) carries the hops
        // of its four GPUs in each direction.
        const double uplink = server.host_pcie_gbps / 2;
        QCOMPARE(staged, std::min(p2p, uplink / 4));
        QVERIFY(staged < p2p);
        // Two GPUs behind one switch share its uplink two ways.
        QCOMPARE(intraNodeRingGbps(server, gpu, 2, true), std::min(p2p, uplink / 2));
        // One copy at a time (a pipeline's stage to stage) has the uplink to itself.
        QCOMPARE(peerGbps(server, gpu, 0, 1),
                 std::min(peerGbps(server, withP2p(gpu, true), 0, 1), uplink));
        // The copy all-reduce's all-to-all phases climb the uplinks too.
        QVERIFY(allToAllPhaseMs(server, gpu, 8, 100e6, 1.0) >
                allToAllPhaseMs(server, withP2p(gpu, true), 8, 100e6, 1.0));
    }

    void onRootPortsOfTheirOwnNothingIsLost() {
        const SystemProfile workstation = loadSystemProfile("workstation-pcie4");
        QCOMPARE(workstation.gpus_per_pcie_switch, 1);
        const GpuProfile gpu = loadGpuProfile("rtx4090");
        QCOMPARE(intraNodeRingGbps(workstation, gpu, 4, true),
                 intraNodeRingGbps(workstation, withP2p(gpu, true), 4, true));
        // A host memory bandwidth, where the system knows it, bounds the staging: each byte
        // is written and read once, for every GPU's hop at once.
        SystemProfile slow_memory = workstation;
        slow_memory.cpu_memory_bandwidth_gbps = 40;
        QCOMPARE(intraNodeRingGbps(slow_memory, gpu, 4, true), 40.0 / (2 * 4));
        QCOMPARE(intraNodeRingGbps(slow_memory, withP2p(gpu, true), 4, true),
                 intraNodeRingGbps(workstation, gpu, 4, true));
    }

    void anIterationOnEightCardsBehindSwitchesWaitsLonger() {
        Scenario s;
        s.network = loadNetwork("resnet50");
        s.gpu = loadGpuProfile("rtx4090");
        s.system = switchedServer();
        s.software = loadSoftwareProfile("pytorch");
        s.precision = Precision::AMP;
        s.batch_per_gpu = 64;
        s.gpus_per_node = 8;
        const Prediction staged = predict(s);
        s.gpu.pcie_p2p = true;
        const Prediction p2p = predict(s);
        QVERIFY2(staged.exposed_communication_ms > p2p.exposed_communication_ms,
                 qPrintable(QStringLiteral("%1 vs %2 ms")
                                .arg(staged.exposed_communication_ms)
                                .arg(p2p.exposed_communication_ms)));
        QVERIFY(staged.iteration_ms > p2p.iteration_ms);
    }

    void theSummarySaysWhy() {
        Scenario s;
        s.gpu = loadGpuProfile("rtx4090");
        s.system = loadSystemProfile("workstation-pcie4");
        s.software = loadSoftwareProfile("pytorch");
        const auto said = [&] {
            for (const ScenarioWarning& w : scenarioWarnings(s))
                if (w.id == "no-pcie-p2p")
                    return w.text;
            return std::string();
        };
        QVERIFY2(said().find("GeForce RTX 4090") != std::string::npos, said().c_str());
        s.gpu = loadGpuProfile("rtx3090");
        QVERIFY(said().empty());
    }

    void theFieldIsWrittenAndReadBack() {
        const GpuProfile gpu = loadGpuProfile("rtx4090");
        const std::string text = gpuProfileJson(gpu).dump(2);
        QVERIFY(text.find("\"pcie_p2p\": false") != std::string::npos);
        QVERIFY(!parseGpuProfile(text, "mine.json").pcie_p2p);
        // Written only where it is false: a profile with P2P reads as before.
        QVERIFY(gpuProfileJson(loadGpuProfile("rtx3090")).dump().find("pcie_p2p") ==
                std::string::npos);
        std::string bad = text;
        bad.replace(bad.find("\"pcie_p2p\": false"), 17, "\"pcie_p2p\": \"no\"");
        try {
            parseGpuProfile(bad, "mine.json");
            QFAIL("a pcie_p2p that is no boolean was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("mine.json") &&
                         QString(e.what()).contains("pcie_p2p"),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(PcieP2p)
#include "tst_pcie_p2p.moc"
