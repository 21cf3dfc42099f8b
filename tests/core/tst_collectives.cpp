// NCCL's algorithms and the parameter servers' RPC against values computed by hand
// (docs/model.md section 4): trees that send half a ring's inter-node traffic, NVLS and
// CollNet where the switches reduce, rails that never slow an all-reduce, and gRPC's
// per-process rate on TensorFlow's parameter servers.
#include "hardware/profile_loader.h"
#include "model/communication_model.h"

#include <QtTest>

using namespace iterscope;

namespace {

constexpr double kMsPerByteAt1Gbps = 1e-6; // 1 GB/s = 1e6 bytes per ms

// A cluster of NVSwitch nodes with round numbers and every efficiency and latency at the
// identity, so that each formula shows plainly.
Scenario cluster(int nodes, int gpus, int nics) {
    Scenario s;
    s.system.intra_node = "nvswitch";
    s.system.nvswitch_gbps_per_gpu = 100;
    s.system.gpus_per_node = 8;
    s.system.max_nodes = 1024;
    s.system.network = "test-ib";
    s.system.nics_per_node = nics;
    s.system.nic_gbps = 10;
    s.system.network_latency_us = 0;
    s.software.nccl_efficiency = 1;
    s.software.network_efficiency = 1;
    s.software.collective_base_latency_us = 0;
    s.software.collective_hop_latency_us = 0;
    s.software.newest_compute_capability = 9.0;
    s.sync = SyncStrategy::AllreduceNccl;
    s.nodes = nodes;
    s.gpus_per_node = gpus;
    return s;
}

double perByte(const ExchangeModel& m, AllreduceAlgorithm a) {
    for (int i = 0; i < m.candidate_count; ++i)
        if (m.candidates[static_cast<std::size_t>(i)].algorithm == a)
            return m.candidates[static_cast<std::size_t>(i)].cost.ms_per_byte;
    return -1;
}

bool near(double a, double b) {
    return qAbs(a - b) <= 1e-9 * qMax(qAbs(a), qAbs(b));
}

} // namespace

class Collectives : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void aTreeSendsHalfARingsTrafficBetweenNodes() {
        // 4 nodes of 4 GPUs, 2 NICs of 10 GB/s: 20 GB/s out of a node, 100 inside.
        const ExchangeModel m = exchangeModel(cluster(4, 4, 2));
        // Ring: 2 (N-1)/N of the bucket through the node's 20 GB/s.
        QVERIFY(near(perByte(m, AllreduceAlgorithm::Ring), 2.0 * 15 / 16 / 20 * kMsPerByteAt1Gbps));
        // Tree: the bucket once out of the node (20 GB/s) against twice along the chain
        // inside it (100 GB/s): the network is the slower stage.
        QVERIFY(near(perByte(m, AllreduceAlgorithm::Tree), 1.0 / 20 * kMsPerByteAt1Gbps));
    }

    void insideFastNodesTheChainCanBeTheTreesBottleneck() {
        // 2 GB/s inside, 20 out: the chain's 2 S / 2 GB/s is slower than S / 20 GB/s.
        Scenario s = cluster(2, 4, 2);
        s.system.nvswitch_gbps_per_gpu = 2;
        QVERIFY(
            near(perByte(exchangeModel(s), AllreduceAlgorithm::Tree), 2.0 / 2 * kMsPerByteAt1Gbps));
    }

    void nvlsReducesInTheSwitchAtItsMeasuredGainOverRings() {
        Scenario s = cluster(1, 8, 0);
        s.system.network = "none";
        s.system.nvlink_sharp = true;
        const ExchangeModel m = exchangeModel(s);
        const double ring = perByte(m, AllreduceAlgorithm::Ring);
        QVERIFY(near(ring, 2.0 * 7 / 8 / 100 * kMsPerByteAt1Gbps));
        // 480 against 370 GB/s of bus bandwidth on a DGX H100 (nccl-tests #212, #290).
        QVERIFY(near(perByte(m, AllreduceAlgorithm::Nvls), ring * 370.0 / 480.0));
        // A release that predates Hopper has no NVLS.
        s.software.newest_compute_capability = 8.0;
        QCOMPARE(perByte(exchangeModel(s), AllreduceAlgorithm::Nvls), -1.0);
    }

    void collNetSendsEachNodesShareIntoTheFabricOnce() {
        Scenario s = cluster(8, 4, 4);
        s.system.network_sharp = true;
        s.software.collective_hop_latency_us = 1;
        const ExchangeModel m = exchangeModel(s);
        // max(2 (G-1)/G / 100, 1 / 40) GB/s: the 40 GB/s of the node's NICs.
        QVERIFY(near(perByte(m, AllreduceAlgorithm::CollNet), 1.0 / 40 * kMsPerByteAt1Gbps));
        // Latency: 2 (G-1) hops inside and one switch up and down, whatever the nodes.
        for (int i = 0; i < m.candidate_count; ++i)
            if (m.candidates[static_cast<std::size_t>(i)].algorithm == AllreduceAlgorithm::CollNet)
                QVERIFY(near(m.candidates[static_cast<std::size_t>(i)].cost.latency_ms,
                             (2.0 * 3 + 2) * 1e-3));
        // Without SHARP switches there is no CollNet.
        QCOMPARE(perByte(exchangeModel(cluster(8, 4, 4)), AllreduceAlgorithm::CollNet), -1.0);
    }

    void moreRailsNeverSlowAnAllReduce_data() {
        QTest::addColumn<QString>("system");
        QTest::newRow("dgx-h100") << "dgx-h100";
        QTest::newRow("dgx-a100") << "dgx-a100";
        QTest::newRow("dgx1-v100") << "dgx1-v100";
        QTest::newRow("cluster-100gbe") << "cluster-100gbe";
    }
    void moreRailsNeverSlowAnAllReduce() {
        QFETCH(QString, system);
        Scenario s;
        s.system = loadSystemProfile(system.toStdString());
        s.gpu = loadGpuProfile(s.system.default_gpu.empty() ? "a100-pcie" : s.system.default_gpu);
        s.software = loadSoftwareProfile("pytorch");
        s.sync = SyncStrategy::AllreduceNccl;
        s.gpus_per_node = s.system.gpus_per_node;
        for (int nodes : {2, 4, 16, 128})
            for (double mb : {0.1, 4.0, 25.0, 400.0}) {
                s.nodes = nodes;
                double before = -1;
                for (int nics = 1; nics <= 8; ++nics) {
                    s.system.nics_per_node = nics;
                    const double ms = exchangeMs(exchangeModel(s), mb * 1e6);
                    if (before >= 0)
                        QVERIFY2(ms <= before * (1 + 1e-12),
                                 qPrintable(QStringLiteral("%1 nodes, %2 MB, %3 NICs")
                                                .arg(nodes)
                                                .arg(mb)
                                                .arg(nics)));
                    before = ms;
                }
            }
    }

    void parameterServersAcrossNodesMoveTheirShareThroughGrpc() {
        // Two nodes of 4 GPUs, a server on each, every link far faster than the RPC: each
        // server takes in 2 nodes x 4 pushes / 2 servers of every byte, each worker sends its
        // 4; at 1 GB/s per process that is 4 us per byte of the bucket each way.
        Scenario s = cluster(2, 4, 1);
        s.sync = SyncStrategy::PsCpu;
        s.ps_count = 2;
        s.system.intra_node = "pcie";
        s.system.nvswitch_gbps_per_gpu = 0;
        s.system.nic_gbps = 1e6;
        s.system.pcie_gbps = 1e6;
        s.system.host_pcie_gbps = 1e6;
        s.system.cpu_memory_bandwidth_gbps = 1e9;
        s.system.gpus_per_pcie_switch = 1;
        s.software.memcpy_efficiency = 1;
        s.software.rpc_gbps_per_process = 1;
        const ExchangeModel m = exchangeModel(s);
        QCOMPARE(m.candidate_count, 1);
        const double push_and_pull = 2 * 4.0 * kMsPerByteAt1Gbps;
        QVERIFY(qAbs(m.candidates[0].cost.ms_per_byte - push_and_pull) < 1e-3 * push_and_pull);
        // One node keeps its variables in the worker's own memory: no RPC.
        Scenario local = s;
        local.nodes = 1;
        QVERIFY(exchangeModel(local).candidates[0].cost.ms_per_byte < 1e-3 * push_and_pull);
        // Without RPC (frameworks that exchange by collectives) the links set the pace.
        s.software.rpc_gbps_per_process = 0;
        QVERIFY(exchangeModel(s).candidates[0].cost.ms_per_byte < 1e-3 * push_and_pull);
    }
};

QTEST_APPLESS_MAIN(Collectives)
#include "tst_collectives.moc"
