// NCCL's algorithms and the parameter servers' RPC against values computed by hand
// (docs/model.md section 4): trees that send what a ring sends between nodes, NVLS and
// CollNet where the switches reduce, rails that never slow an all-reduce, and gRPC's
// per-process rate on TensorFlow's parameter servers.
#include "hardware/profile_loader.h"
#include "model/communication_model.h"

#include <QtTest>

#include <algorithm>
#include <vector>

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

    void aTreeSendsWhatARingSendsBetweenNodes() {
        // 2 NICs of 10 GB/s: 20 GB/s out of a node, 100 inside.
        // 4 nodes of 4 GPUs. Ring: 2 (N-1)/N of the bucket through the node's 20 GB/s.
        const ExchangeModel four = exchangeModel(cluster(4, 4, 2));
        QVERIFY(
            near(perByte(four, AllreduceAlgorithm::Ring), 2.0 * 15 / 16 / 20 * kMsPerByteAt1Gbps));
        // Tree: node 2 of the first tree has a parent and two children and is a leaf of the
        // second: 4 edges x S/2 = 2 S through 20 GB/s (the chain inside, 2 S at 100, is faster).
        QVERIFY(near(perByte(four, AllreduceAlgorithm::Tree), 2.0 / 20 * kMsPerByteAt1Gbps));
        // 128 nodes: the same 2 S, never less than the ring's 2 x 511/512.
        const ExchangeModel many = exchangeModel(cluster(128, 4, 2));
        QVERIFY(near(perByte(many, AllreduceAlgorithm::Tree), 2.0 / 20 * kMsPerByteAt1Gbps));
        QVERIFY(near(perByte(many, AllreduceAlgorithm::Ring),
                     2.0 * 511 / 512 / 20 * kMsPerByteAt1Gbps));
        // 2 nodes: each is the root of one tree with one child, and that child in the other,
        // so it sends S/2 twice: S, where the ring sends 2 x 7/8 S. NCCL's tuner gives trees
        // on up to 2 nodes the intra-node speed for the same reason (src/graph/tuning.cc:
        // `nNodes <= 2 ? speedIntra : speedInter`), and NVIDIA measured about twice a
        // ring's network bandwidth there ("Massively Scale Your Deep Learning Training with
        // NCCL 2.4", 2019).
        const ExchangeModel two = exchangeModel(cluster(2, 4, 2));
        QVERIFY(near(perByte(two, AllreduceAlgorithm::Tree), 1.0 / 20 * kMsPerByteAt1Gbps));
        QVERIFY(near(perByte(two, AllreduceAlgorithm::Ring), 2.0 * 7 / 8 / 20 * kMsPerByteAt1Gbps));
    }

    void fromFourNodesOnATreeNeverBeatsARingByMoreThanItsLatency() {
        for (const char* id : {"dgx1-v100", "dgx-a100", "dgx-h100", "cluster-100gbe"}) {
            Scenario s;
            s.system = loadSystemProfile(id);
            s.gpu =
                loadGpuProfile(s.system.default_gpu.empty() ? "a100-pcie" : s.system.default_gpu);
            s.software = loadSoftwareProfile("pytorch");
            s.sync = SyncStrategy::AllreduceNccl;
            s.gpus_per_node = s.system.gpus_per_node;
            for (int nodes : {4, 5, 16, 128, 1000}) {
                s.nodes = nodes;
                const ExchangeModel m = exchangeModel(s);
                QVERIFY2(perByte(m, AllreduceAlgorithm::Tree) >=
                             perByte(m, AllreduceAlgorithm::Ring) * (1 - 1e-12),
                         qPrintable(QStringLiteral("%1, %2 nodes").arg(id).arg(nodes)));
            }
        }
    }

    void theTreesTrafficIsThatOfNcclsDoubleBinaryTrees() {
        // NCCL's first tree (src/graph/trees.cc, ncclGetBtree): rank r's parent clears its
        // lowest set bit b and sets 2b, or only clears b when 2b would fall outside. The
        // second tree is the first mirrored (r -> n-1-r) for an even count, shifted by one
        // for an odd one (ncclGetDtree). A node sends S/2 along each of its edges.
        for (int n = 1; n <= 300; ++n) {
            std::vector<int> degree(static_cast<std::size_t>(n), 0);
            for (int r = 1; r < n; ++r) {
                const int bit = r & -r;
                int up = (r ^ bit) | (bit << 1);
                if (up >= n)
                    up = r ^ bit;
                ++degree[static_cast<std::size_t>(r)];
                ++degree[static_cast<std::size_t>(up)];
            }
            int busiest = 0;
            for (int r = 0; r < n; ++r) {
                const int other = n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n;
                busiest = std::max(busiest, degree[static_cast<std::size_t>(r)] +
                                                degree[static_cast<std::size_t>(other)]);
            }
            QVERIFY2(near(doubleBinaryTreeNodeSends(n), busiest * 0.5),
                     qPrintable(QStringLiteral("%1 nodes").arg(n)));
        }
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
        // Across 4 nodes (8 NICs of 10 GB/s each) NVLS pairs with the same trees: 2 S.
        s.nodes = 4;
        s.system.network = "test-ib";
        s.system.nics_per_node = 8;
        QVERIFY(near(perByte(exchangeModel(s), AllreduceAlgorithm::Nvls),
                     2.0 / 80 * kMsPerByteAt1Gbps));
        s.nodes = 1;
        s.system.network = "none";
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
