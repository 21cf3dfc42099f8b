#include "model/communication_model.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace iterscope {

namespace {

constexpr double kBytesPerMsPerGbps = 1e6;
constexpr double kMsPerUs = 1e-3;
constexpr double kUnlimited = std::numeric_limits<double>::infinity();
// PCIe 3.0 x16 moves 15.75 GB/s per direction before protocol overhead (128b/130b); each
// generation doubles it. Used only when a system profile leaves pcie_gbps at 0.
constexpr double kPcie3X16Gbps = 15.75;
// The ring search below is exhaustive; NVLink meshes are 8-GPU boards, NVSwitch and PCIe
// systems need no search.
constexpr int kMaxSearchGpus = 16;
// NVLS against rings on one DGX H100: 480 against 370 GB/s of NCCL bus bandwidth
// (NVIDIA/nccl-tests#212 and #290, shared/reference/hardware.md section 5).
constexpr double kNvlsGainOverRing = 480.0 / 370.0;

double msPerByte(double gbps) {
    return gbps > 0 && std::isfinite(gbps) ? 1.0 / (gbps * kBytesPerMsPerGbps) : 0.0;
}

double linkPcieGbps(const SystemProfile& s) {
    if (s.pcie_gbps > 0)
        return s.pcie_gbps;
    return kPcie3X16Gbps * std::pow(2.0, std::clamp(s.pcie_gen, 1, 6) - 3);
}

int gpusPerSocket(const SystemProfile& s) {
    const int sockets = std::max(s.cpu_sockets, 1);
    return std::max(1, (std::max(s.gpus_per_node, 1) + sockets - 1) / sockets);
}

int nvlinks(const SystemProfile& s, int a, int b) {
    int links = 0;
    for (const auto& p : s.nvlink_pairs)
        if ((p.a == a && p.b == b) || (p.a == b && p.b == a))
            links += p.links;
    return links;
}

// What the NVLink between GPUs a and b carries per direction: the system's links between
// them (a mesh's wiring or a bridge on two PCIe cards), at the GPU's per-link rate, and no
// more links than the GPU has. 0 where they share none or the GPU has no NVLink: a bridge
// on a card without a connector joins nothing.
double nvlinkGbps(const SystemProfile& s, const GpuProfile& gpu, int a, int b) {
    const int links = std::min(nvlinks(s, a, b), std::max(gpu.nvlink_links, 0));
    return links > 0 && gpu.nvlink_gbps_per_link > 0 ? links * gpu.nvlink_gbps_per_link : 0.0;
}

int pcieSwitches(const SystemProfile& s) {
    const int per_switch = std::max(s.gpus_per_pcie_switch, 1);
    return (std::max(s.gpus_per_node, 1) + per_switch - 1) / per_switch;
}

double hostAggregateGbps(const SystemProfile& s) {
    if (s.host_pcie_gbps > 0)
        return s.host_pcie_gbps;
    return linkPcieGbps(s) * pcieSwitches(s);
}

double cpuMemoryGbps(const SystemProfile& s) {
    // Unknown host memory bandwidth: the CPU is taken to update no faster than the PCIe
    // tree delivers gradients, a conservative floor for any 2-socket server.
    return s.cpu_memory_bandwidth_gbps > 0 ? s.cpu_memory_bandwidth_gbps : hostAggregateGbps(s);
}

// A GPU-to-GPU copy between GPUs without PCIe peer-to-peer (GpuProfile::pcie_p2p): NCCL's
// shared-memory transport writes it to host memory and the receiver reads it back, so it
// climbs the sender's switch uplink, is written and read once in host memory, and comes down
// the receiver's uplink. `gpus` GPUs copy at once, in device order, so the first switch's
// uplink carries as many of them as it holds in each direction.
double stagedHopGbps(const SystemProfile& s, int gpus) {
    gpus = std::max(gpus, 1);
    const int sharing = std::min(gpus, std::max(s.gpus_per_pcie_switch, 1));
    double gbps = std::min(linkPcieGbps(s), hostAggregateGbps(s) / pcieSwitches(s) / sharing);
    if (s.cpu_memory_bandwidth_gbps > 0)
        gbps = std::min(gbps, s.cpu_memory_bandwidth_gbps / (2.0 * gpus));
    return gbps;
}

// Does the NVLink graph over GPUs 0..n-1 hold a cycle through all of them?
bool hamiltonian(const int (&adj)[kMaxSearchGpus][kMaxSearchGpus], int n) {
    if (n <= 1)
        return true;
    if (n == 2)
        return adj[0][1] > 0;
    int path[kMaxSearchGpus] = {0};
    bool used[kMaxSearchGpus] = {true};
    int depth = 1;
    int next[kMaxSearchGpus] = {0};
    next[1] = 1;
    while (depth > 0) {
        if (depth == n) {
            if (adj[path[n - 1]][0] > 0)
                return true;
            --depth;
            used[path[depth]] = false;
            continue;
        }
        int& candidate = next[depth];
        bool advanced = false;
        while (candidate < n) {
            const int c = candidate++;
            if (!used[c] && adj[path[depth - 1]][c] > 0) {
                path[depth] = c;
                used[c] = true;
                ++depth;
                if (depth < n)
                    next[depth] = 1;
                advanced = true;
                break;
            }
        }
        if (!advanced) {
            --depth;
            if (depth >= 1)
                used[path[depth]] = false;
        }
    }
    return false;
}

double deviceOrderRingGbps(const SystemProfile& s, const GpuProfile& gpu, int gpus) {
    // Without peer-to-peer every hop of the ring is staged through host memory at once: a
    // switch's uplink carries the hops of all its GPUs in the ring.
    const double staged = gpu.pcie_p2p ? kUnlimited : stagedHopGbps(s, gpus);
    double slowest = kUnlimited;
    for (int i = 0; i < gpus; ++i) {
        const int j = (i + 1) % gpus;
        const double nvlink = nvlinkGbps(s, gpu, i, j);
        slowest = std::min(slowest, nvlink > 0 ? nvlink : std::min(pcieHopGbps(s, i, j), staged));
    }
    return slowest;
}

struct Fabric {
    double node_gbps = 0; // achieved, all NICs a node uses
    double inter_latency_ms = 0;
    double intra_latency_ms = 0;
    double base_ms = 0;
};

// `nodes` nodes of the scenario's system with `gpus` GPUs each taking part.
Fabric fabricOf(const Scenario& s, int nodes, int gpus) {
    Fabric n;
    const SoftwareProfile& sw = s.software;
    n.base_ms = sw.collective_base_latency_us * kMsPerUs;
    n.intra_latency_ms = sw.collective_hop_latency_us * kMsPerUs;
    n.inter_latency_ms = (sw.collective_hop_latency_us + s.system.network_latency_us) * kMsPerUs;
    if (nodes > 1) {
        // validateScenario has made sure the system has a network between nodes.
        // A node's traffic leaves through the NICs its GPUs sit next to: at most one NIC per
        // GPU in use.
        const int nics = std::min(s.system.nics_per_node, gpus);
        n.node_gbps = nics * s.system.nic_gbps * sw.network_efficiency;
    }
    return n;
}

// allreduce-copy: reduce to the owners, then broadcast back; across nodes the owners'
// shards also cross the network both ways.
LinearCost shardedCopyCost(const Scenario& s, const Fabric& net, int m, int g) {
    constexpr double kProbeBytes = 1e6;
    const double phase =
        allToAllPhaseMs(s.system, s.gpu, g, kProbeBytes, s.software.memcpy_efficiency) /
        kProbeBytes;
    LinearCost c;
    c.latency_ms = net.base_ms;
    c.ms_per_byte = 2 * phase;
    if (m > 1) {
        c.ms_per_byte += 2.0 * g * (m - 1) / m * msPerByte(net.node_gbps);
        c.latency_ms += 2 * net.inter_latency_ms;
    }
    return c;
}

// One of those two phases alone (ps-gpu: the reduce overlaps backward, the broadcast of
// the updated shards follows the update).
LinearCost shardedPhaseCost(const Scenario& s, const Fabric& net, int m, int g) {
    constexpr double kProbeBytes = 1e6;
    LinearCost c;
    c.latency_ms = net.base_ms;
    c.ms_per_byte = allToAllPhaseMs(s.system, s.gpu, g, kProbeBytes, s.software.memcpy_efficiency) /
                    kProbeBytes;
    if (m > 1) {
        c.ms_per_byte += double(g) * (m - 1) / m * msPerByte(net.node_gbps);
        c.latency_ms += net.inter_latency_ms;
    }
    return c;
}

// Parameter servers on the hosts' CPUs (ps-cpu, distributed-replicated, ps-async): p of
// them on the first p nodes, each holding 1/p of the parameters. Unless ps_count says
// otherwise, distributed-replicated runs one per node (as TensorFlow's benchmarks did),
// ps-cpu and ps-async one, on the first node's host: the parameters live in one host's
// memory. Per byte of a bucket of gradients:
struct ServerPath {
    double push_ms_per_byte = 0; // the gradients to the servers
    double pull_ms_per_byte = 0; // the parameters back to every GPU
    double cpu_ms_per_byte = 0;  // the servers' update, on the busiest server
    double latency_ms = 0;
    double sent_per_byte = 0; // bytes one GPU sends
};

// `aggregate`: each node first sums its GPUs' gradients (distributed-replicated), so it
// pushes one gradient (each GPU its 1/G shard of the sum) instead of one per GPU.
// A node's GPUs to its host: over the PCIe tree, or each over its own NVLink-C2C link to
// the CPU of its superchip.
double hostLinkMs(const Scenario& s, int gpus, double bytes, double efficiency) {
    if (s.gpu.cpu_link == "nvlink-c2c" && s.gpu.cpu_link_gbps > 0)
        return gpus >= 1 && bytes > 0 ? bytes * msPerByte(s.gpu.cpu_link_gbps) / efficiency : 0.0;
    return hostPcieMs(s.system, gpus, bytes, efficiency);
}

ServerPath serverPath(const Scenario& s, int m, int g, bool aggregate) {
    const SoftwareProfile& sw = s.software;
    const Fabric net = fabricOf(s, m, g);
    const int p = s.ps_count > 0 ? std::min(s.ps_count, m) : (aggregate ? m : 1);
    const double pushes = aggregate ? 1.0 : double(g); // gradients a node sends to the servers
    constexpr double kProbeBytes = 1e6;
    ServerPath path;
    // Over PCIe to the host, all of the node's GPUs at once.
    path.push_ms_per_byte =
        hostLinkMs(s, g, aggregate ? kProbeBytes / g : kProbeBytes, sw.memcpy_efficiency) /
        kProbeBytes;
    path.latency_ms = net.base_ms;
    if (m > 1) {
        // Shards for servers on other nodes leave through the network, and shards for this
        // node's server arrive from every other node: out of a node without a server goes
        // all of it, into a server node (m-1)/p of every node's pushes. Parameter servers
        // talk gRPC over TCP, which leaves a host through one network interface, and the
        // NIC's traffic passes through host memory and the host's PCIe links like the GPUs'.
        const double out_share = p < m ? 1.0 : double(p - 1) / p;
        const double in_share = double(m - 1) / p;
        const double ps_gbps = s.system.nic_gbps * sw.network_efficiency;
        // What arrives from the network shares the PCIe switch uplink of the NIC, which sits
        // beside some of the node's GPUs, with those GPUs' own pushes.
        const int on_switch = std::min(g, std::max(s.system.gpus_per_pcie_switch, 1));
        const double uplink = on_switch * (aggregate ? 1.0 / g : 1.0) + pushes * in_share;
        path.push_ms_per_byte = std::max(
            {path.push_ms_per_byte, pushes * std::max(out_share, in_share) * msPerByte(ps_gbps),
             uplink * msPerByte(linkPcieGbps(s.system)) / sw.memcpy_efficiency,
             pushes * (1 + in_share) * msPerByte(hostAggregateGbps(s.system)) /
                 sw.memcpy_efficiency});
        path.latency_ms += 2 * net.inter_latency_ms;
    }
    // TensorFlow's parameter servers are processes of their own that talk gRPC, even to a
    // worker on their own host, and gRPC serializes and copies every tensor on the CPU: one
    // process moves about 0.9 GB/s (a Xeon E5-2630 v3 in tensorflow/tensorflow#6116;
    // sharding over more server processes is the remedy it names). In a phase, each server
    // takes in its 1/p share of every node's pushes (the fan-in of all workers at once), and
    // each node's worker process sends all of its own.
    if (sw.rpc_gbps_per_process > 0 && (m > 1 || aggregate)) {
        const double server_share = double(m) * pushes / p;
        path.push_ms_per_byte =
            std::max(path.push_ms_per_byte,
                     std::max(server_share, pushes) * msPerByte(sw.rpc_gbps_per_process));
    }
    // The pull mirrors the push, except that with local aggregation every GPU still reads
    // the whole of the parameters from its host: TensorFlow's distributed_replicated assigns
    // each GPU's copy from the host's updated value (VariableMgrDistributedReplicated).
    path.pull_ms_per_byte = path.push_ms_per_byte;
    if (aggregate)
        path.pull_ms_per_byte =
            std::max(path.pull_ms_per_byte,
                     hostLinkMs(s, g, kProbeBytes, sw.memcpy_efficiency) / kProbeBytes);
    // A server reads every gradient pushed to it, then reads and writes its parameters and
    // their optimizer state.
    const double update_passes = m * pushes + 2.0 + 2.0 * sw.optimizer_state_bytes_per_param / 4.0;
    path.cpu_ms_per_byte = update_passes / p * msPerByte(cpuMemoryGbps(s.system));
    path.sent_per_byte = aggregate ? 1.0 / g : 1.0;
    return path;
}

} // namespace

double pcieHopGbps(const SystemProfile& s, int a, int b) {
    const double link = linkPcieGbps(s);
    const int per_socket = gpusPerSocket(s);
    if (a / per_socket != b / per_socket && s.inter_socket_gbps > 0)
        return std::min(link, s.inter_socket_gbps);
    return link;
}

double ringAllreduceMs(double bytes, int ranks, double bus_gbps, double hop_latency_us,
                       double base_latency_us) {
    if (ranks <= 1)
        return 0;
    const double steps = 2.0 * (ranks - 1);
    return (base_latency_us + steps * hop_latency_us) * kMsPerUs +
           steps / ranks * bytes * msPerByte(bus_gbps);
}

double intraNodeRingGbps(const SystemProfile& s, const GpuProfile& gpu, int gpus,
                         bool topology_aware) {
    if (gpus <= 1)
        return kUnlimited;
    if (s.intra_node == "nvswitch" && s.nvswitch_gbps_per_gpu > 0)
        return s.nvswitch_gbps_per_gpu;
    const double link_gbps = gpu.nvlink_gbps_per_link;
    if (s.intra_node == "nvlink-cube-mesh" && link_gbps > 0 && !s.nvlink_pairs.empty()) {
        if (topology_aware && gpus <= kMaxSearchGpus) {
            int adj[kMaxSearchGpus][kMaxSearchGpus] = {};
            for (const auto& p : s.nvlink_pairs)
                if (p.a < gpus && p.b < gpus && p.a >= 0 && p.b >= 0) {
                    adj[p.a][p.b] += p.links;
                    adj[p.b][p.a] += p.links;
                }
            if (hamiltonian(adj, gpus)) {
                // Every ring leaves each GPU on one link direction and enters on another, so
                // the GPU with the fewest links in the set bounds how many rings run at once.
                int min_links = std::numeric_limits<int>::max();
                for (int i = 0; i < gpus; ++i) {
                    int links = 0;
                    for (int j = 0; j < gpus; ++j)
                        links += adj[i][j];
                    min_links = std::min(min_links, links);
                }
                if (gpus == 2)
                    min_links = adj[0][1]; // both directions of the same links
                return min_links * link_gbps;
            }
        }
        return deviceOrderRingGbps(s, gpu, gpus);
    }
    // PCIe, where bridged pairs ride their bridge: NCCL's search puts a bridged pair side by
    // side in the ring (device order does, as bridges join neighbours), and the PCIe hops
    // between pairs still bound the ring; only two bridged GPUs run at the bridge's rate.
    return deviceOrderRingGbps(s, gpu, gpus);
}

double allToAllPhaseMs(const SystemProfile& s, const GpuProfile& gpu, int gpus, double bytes,
                       double efficiency) {
    if (gpus <= 1 || bytes <= 0)
        return 0;
    const double share = bytes / gpus; // what each GPU sends to each peer
    const double pcie = linkPcieGbps(s);
    double worst_ms = 0;
    if (s.intra_node == "nvswitch" && s.nvswitch_gbps_per_gpu > 0) {
        worst_ms = (gpus - 1) * share * msPerByte(s.nvswitch_gbps_per_gpu);
    } else if (s.intra_node == "nvlink-cube-mesh" && gpu.nvlink_gbps_per_link > 0) {
        // NVLink peers in parallel on their own links; the rest share the GPU's PCIe link.
        for (int i = 0; i < gpus; ++i) {
            double nvlink_ms = 0;
            int pcie_peers = 0;
            for (int j = 0; j < gpus; ++j) {
                if (j == i)
                    continue;
                const int links = nvlinks(s, i, j);
                if (links > 0)
                    nvlink_ms =
                        std::max(nvlink_ms, share * msPerByte(links * gpu.nvlink_gbps_per_link));
                else
                    ++pcie_peers;
            }
            worst_ms = std::max({worst_ms, nvlink_ms, pcie_peers * share * msPerByte(pcie)});
        }
    } else {
        const int per_switch = std::max(s.gpus_per_pcie_switch, 1);
        const int per_socket = gpusPerSocket(s);
        // Each GPU's own link (less what a bridge carries to its partner), then each switch
        // uplink (traffic between its GPUs and the others), then the link between the
        // sockets, then the host's aggregate.
        for (int i = 0; i < gpus; ++i) {
            int pcie_peers = gpus - 1;
            for (int j = 0; j < gpus; ++j)
                if (const double bridge = j != i ? nvlinkGbps(s, gpu, i, j) : 0.0; bridge > 0) {
                    worst_ms = std::max(worst_ms, share * msPerByte(bridge));
                    --pcie_peers;
                }
            worst_ms = std::max(worst_ms, pcie_peers * share * msPerByte(pcie));
        }
        double crossing_total = 0;
        for (int first = 0; first < gpus; first += per_switch) {
            const int in_switch = std::min(per_switch, gpus - first);
            const double crossing = double(in_switch) * (gpus - in_switch) * share;
            crossing_total += crossing;
            worst_ms = std::max(worst_ms, crossing * msPerByte(pcie));
        }
        const int socket0 = std::min(per_socket, gpus);
        const int socket1 = gpus - socket0;
        if (socket1 > 0 && s.inter_socket_gbps > 0)
            worst_ms = std::max(worst_ms,
                                double(socket0) * socket1 * share * msPerByte(s.inter_socket_gbps));
        worst_ms = std::max(worst_ms, crossing_total / 2 * msPerByte(hostAggregateGbps(s)));
        if (!gpu.pcie_p2p) {
            // Staged through host memory: every copy, not only those between switches,
            // climbs its sender's uplink and comes down its receiver's.
            worst_ms = std::max(worst_ms, (gpus - 1) * share * msPerByte(stagedHopGbps(s, gpus)));
        }
    }
    return worst_ms / efficiency;
}

double hostPcieMs(const SystemProfile& s, int gpus, double bytes, double efficiency) {
    if (gpus < 1 || bytes <= 0)
        return 0;
    const double pcie = linkPcieGbps(s);
    const int on_switch = std::min(gpus, std::max(s.gpus_per_pcie_switch, 1));
    const double ms = bytes * std::max({msPerByte(pcie), on_switch * msPerByte(pcie),
                                        gpus * msPerByte(hostAggregateGbps(s))});
    return ms / efficiency;
}

double doubleBinaryTreeNodeSends(int nodes) {
    // The busiest node's edges over both trees, each edge carrying S/2 each way. With 2
    // nodes each is the root of one tree with one child and that child in the other: S.
    // With 3, the middle of a chain in one tree and a leaf in the other: 1.5 S. From 4 on,
    // some node is an inner vertex with two children and a parent in one tree and a leaf
    // in the other (NCCL's ncclGetDtree mirrors or shifts the first tree so that the
    // inner vertices of one are the leaves of the other): 4 x S/2. tst_collectives builds
    // NCCL's trees and checks these against their degrees.
    if (nodes <= 1)
        return 0;
    if (nodes == 2)
        return 1;
    if (nodes == 3)
        return 1.5;
    return 2;
}

ExchangeModel exchangeModel(const Scenario& s) {
    return exchangeModel(s, s.nodes, s.gpus_per_node);
}

ExchangeModel exchangeModel(const Scenario& s, int m, int g) {
    ExchangeModel model;
    const int n = m * g;
    const SoftwareProfile& sw = s.software;
    auto add = [&](AllreduceAlgorithm a, LinearCost c, double sent) {
        model.candidates[static_cast<std::size_t>(model.candidate_count++)] = {a, c, sent};
    };

    switch (s.sync) {
    case SyncStrategy::None:
        return model;
    case SyncStrategy::AllreduceNccl: {
        if (n <= 1)
            return model;
        const Fabric net = fabricOf(s, m, g);
        const double intra_gbps =
            g > 1
                ? intraNodeRingGbps(s.system, s.gpu, g, sw.nccl_topology_aware) * sw.nccl_efficiency
                : kUnlimited;
        const double ring_gbps = m > 1 ? std::min(intra_gbps, net.node_gbps) : intra_gbps;
        const int inter_hops = m > 1 ? m : 0;
        const int intra_hops = n - inter_hops;
        LinearCost ring;
        ring.latency_ms = net.base_ms + 2.0 * (n - 1) / n *
                                            (intra_hops * net.intra_latency_ms +
                                             inter_hops * net.inter_latency_ms);
        ring.ms_per_byte = 2.0 * (n - 1) / n * msPerByte(ring_gbps);

        // NCCL's double binary tree: a chain inside each node, in which every GPU sends the
        // bucket up (reduce) and down (broadcast), and two complementary trees across the
        // nodes, each carrying half the bucket. A node sends S/2 on each of its tree edges
        // (up in the reduce, down in the broadcast): an inner vertex of one tree and a leaf of
        // the other sends 2 S in all, what a ring sends; only 2 and 3 nodes, where no node
        // has two children and a parent, send less (doubleBinaryTreeNodeSends). NCCL's tuner
        // says the same: a tree's algorithm bandwidth is half its bus bandwidth, a ring's
        // N / 2(N-1) of it (src/graph/tuning.cc). The chunks are pipelined: the slower
        // stage sets the pace.
        const double tree_log = std::ceil(std::log2(std::max(m, 1)));
        LinearCost tree;
        tree.latency_ms =
            net.base_ms + 2 * ((g - 1) * net.intra_latency_ms + tree_log * net.inter_latency_ms);
        tree.ms_per_byte = std::max(g > 1 ? 2.0 * msPerByte(intra_gbps) : 0.0,
                                    doubleBinaryTreeNodeSends(m) * msPerByte(net.node_gbps));

        LinearCost hier;
        hier.latency_ms = 2 * net.base_ms + 2.0 * (g - 1) * net.intra_latency_ms +
                          2.0 * (m - 1) * net.inter_latency_ms;
        hier.ms_per_byte = 2.0 * (g - 1) / g * msPerByte(intra_gbps) +
                           (m > 1 ? 2.0 * (m - 1) / m * msPerByte(net.node_gbps) : 0.0);

        // NVLS: the NVSwitch (third generation, DGX H100) adds what the GPUs write to it and
        // multicasts the sum, so a GPU moves each byte once each way instead of around a
        // ring. NCCL's tests measure 480 GB/s of bus bandwidth with NVLS against 370 with
        // rings on eight H100s (NVIDIA/nccl-tests#212, #290): that ratio is its gain. Across
        // nodes NCCL pairs it with trees (NVLS-tree). It needs a release that knows Hopper,
        // the only generation with such switches (NCCL 2.17 and later).
        constexpr double kHopper = 9.0;
        const bool nvls = s.system.nvlink_sharp && g > 1 && sw.newest_compute_capability >= kHopper;
        LinearCost nvls_cost;
        if (nvls) {
            const double intra = 2.0 * (g - 1) / g * msPerByte(intra_gbps) / kNvlsGainOverRing;
            nvls_cost.latency_ms =
                net.base_ms + 2 * net.intra_latency_ms + 2 * tree_log * net.inter_latency_ms;
            // Across nodes the same double binary tree as above carries the node's sum.
            nvls_cost.ms_per_byte =
                std::max(intra, doubleBinaryTreeNodeSends(m) * msPerByte(net.node_gbps));
        }
        // CollNet: SHARP InfiniBand switches reduce what the nodes send them, so each node's
        // bucket crosses its NICs once each way (no node forwards another's data, unlike a
        // tree or a ring: the half of their traffic that SHARP saves) and the latency is one
        // switch up and down, whatever the node count; inside the node a reduce-scatter and
        // an all-gather.
        const bool collnet = s.system.network_sharp && m > 1;
        LinearCost collnet_cost;
        if (collnet) {
            collnet_cost.latency_ms =
                2 * net.base_ms + 2.0 * (g - 1) * net.intra_latency_ms + 2 * net.inter_latency_ms;
            collnet_cost.ms_per_byte = std::max(
                g > 1 ? 2.0 * (g - 1) / g * msPerByte(intra_gbps) : 0.0, msPerByte(net.node_gbps));
        }

        // Bytes a GPU sends: a ring passes 2(N-1)/N of the bucket on; in a tree a GPU sends
        // the bucket up once and down to its children, about twice on average; the
        // hierarchical all-reduce rings inside the node, and the node's G GPUs share its
        // inter-node ring; NVLS writes the bucket to the switch once; CollNet reduce-scatters
        // inside the node and sends its GPU's share into the fabric.
        const double ring_sent = 2.0 * (n - 1) / n;
        const double hier_sent = 2.0 * (g - 1) / g + 2.0 * (m - 1) / m / g;
        const double nvls_sent = 1.0 + (m > 1 ? 1.0 / g : 0.0);
        const double collnet_sent = 2.0 * (g - 1) / g + 1.0 / g;
        switch (s.allreduce) {
        case AllreduceAlgorithm::Ring:
            add(AllreduceAlgorithm::Ring, ring, ring_sent);
            break;
        case AllreduceAlgorithm::Tree:
            add(AllreduceAlgorithm::Tree, tree, 2.0);
            break;
        case AllreduceAlgorithm::Hierarchical:
            add(AllreduceAlgorithm::Hierarchical, hier, hier_sent);
            break;
        case AllreduceAlgorithm::Nvls:
            // Without an NVLink SHARP switch NCCL falls back to its rings.
            if (nvls)
                add(AllreduceAlgorithm::Nvls, nvls_cost, nvls_sent);
            else
                add(AllreduceAlgorithm::Ring, ring, ring_sent);
            break;
        case AllreduceAlgorithm::CollNet:
            if (collnet)
                add(AllreduceAlgorithm::CollNet, collnet_cost, collnet_sent);
            else
                add(AllreduceAlgorithm::Ring, ring, ring_sent);
            break;
        case AllreduceAlgorithm::Auto:
            add(AllreduceAlgorithm::Ring, ring, ring_sent);
            if (m > 1) {
                add(AllreduceAlgorithm::Tree, tree, 2.0);
                if (g > 1)
                    add(AllreduceAlgorithm::Hierarchical, hier, hier_sent);
            }
            if (nvls)
                add(AllreduceAlgorithm::Nvls, nvls_cost, nvls_sent);
            if (collnet)
                add(AllreduceAlgorithm::CollNet, collnet_cost, collnet_sent);
            break;
        }
        model.active = true;
        return model;
    }
    case SyncStrategy::AllreduceCopy: {
        if (n <= 1)
            return model;
        const Fabric net = fabricOf(s, m, g);
        add(AllreduceAlgorithm::Auto, shardedCopyCost(s, net, m, g),
            2.0 * (g - 1) / g + 2.0 * (m - 1) / m);
        model.active = true;
        return model;
    }
    case SyncStrategy::PsGpu: {
        if (n <= 1)
            return model;
        // Each GPU owns 1/N of the variables: the gradients reach their owners while
        // backward runs; each owner updates its shard; then the updated shards must go back
        // out to every GPU before the next forward pass reads them.
        const Fabric net = fabricOf(s, m, g);
        const LinearCost phase = shardedPhaseCost(s, net, m, g);
        const double sent = double(g - 1) / g + double(m - 1) / m;
        add(AllreduceAlgorithm::Auto, phase, sent);
        model.broadcast_after_update = true;
        model.after_update = phase;
        model.after_update_sent_per_byte = sent;
        model.gpu_update_share = 1.0 / n;
        model.active = true;
        return model;
    }
    case SyncStrategy::PsCpu:
    case SyncStrategy::PsAsync: {
        // Every GPU pushes its gradient to the servers and pulls the parameters back; the
        // servers update them.
        const ServerPath path = serverPath(s, m, g, false);
        LinearCost c;
        c.latency_ms = path.latency_ms;
        if (s.sync == SyncStrategy::PsCpu) {
            c.ms_per_byte = path.push_ms_per_byte + path.pull_ms_per_byte + path.cpu_ms_per_byte;
        } else {
            // Without a barrier a worker waits only for its own push and pull; the servers'
            // updates of every worker's gradients bound how fast they all go together.
            c.ms_per_byte = path.push_ms_per_byte + path.pull_ms_per_byte;
            model.barrier = false;
            model.server_round.latency_ms = path.latency_ms;
            model.server_round.ms_per_byte = path.cpu_ms_per_byte;
        }
        add(AllreduceAlgorithm::Auto, c, path.sent_per_byte);
        model.gpu_update_share = 0;
        model.active = true;
        return model;
    }
    case SyncStrategy::DistributedReplicated: {
        // Each node sums its GPUs' gradients (a reduce phase: each GPU ends with 1/G of the
        // sum), pushes the sum to the parameter servers, which update; every GPU then copies
        // the updated parameters from its host into its own replica. With one node the
        // server is its own host, and with one GPU too: TensorFlow runs a parameter-server
        // task there all the same.
        constexpr double kProbeBytes = 1e6;
        const double local =
            allToAllPhaseMs(s.system, s.gpu, g, kProbeBytes, sw.memcpy_efficiency) / kProbeBytes;
        const ServerPath path = serverPath(s, m, g, true);
        LinearCost c;
        c.latency_ms = path.latency_ms;
        c.ms_per_byte =
            local + path.push_ms_per_byte + path.cpu_ms_per_byte + path.pull_ms_per_byte;
        add(AllreduceAlgorithm::Auto, c, double(g - 1) / g + path.sent_per_byte);
        model.gpu_update_share = 0;
        model.refresh_replicas = true;
        model.active = true;
        return model;
    }
    }
    return model;
}

double exchangeMs(const ExchangeModel& model, double bytes, AllreduceAlgorithm* chosen) {
    if (!model.active || model.candidate_count == 0)
        return 0;
    double best = kUnlimited;
    AllreduceAlgorithm best_algorithm = model.candidates[0].algorithm;
    for (int i = 0; i < model.candidate_count; ++i) {
        const auto& c = model.candidates[static_cast<std::size_t>(i)];
        const double t = c.cost.at(bytes);
        if (t < best) {
            best = t;
            best_algorithm = c.algorithm;
        }
    }
    if (chosen)
        *chosen = best_algorithm;
    return best;
}

} // namespace iterscope

namespace iterscope {

double exchangeSentBytes(const ExchangeModel& model, double bytes, AllreduceAlgorithm chosen) {
    if (!model.active || model.candidate_count == 0)
        return 0;
    for (int i = 0; i < model.candidate_count; ++i) {
        const auto& c = model.candidates[static_cast<std::size_t>(i)];
        if (c.algorithm == chosen)
            return c.sent_per_byte * bytes;
    }
    return model.candidates[0].sent_per_byte * bytes;
}

double collectiveMs(const ExchangeModel& model, Collective kind, double bytes) {
    const double all_reduce = exchangeMs(model, bytes);
    return kind == Collective::AllReduce ? all_reduce : all_reduce / 2;
}

double collectiveSentBytes(Collective kind, double bytes, int ranks) {
    if (ranks <= 1)
        return 0;
    const double half = double(ranks - 1) / ranks * bytes;
    return kind == Collective::AllReduce ? 2 * half : half;
}

double peerGbps(const SystemProfile& s, const GpuProfile& gpu, int a, int b) {
    if (a == b)
        return kUnlimited;
    if (s.intra_node == "nvswitch" && s.nvswitch_gbps_per_gpu > 0)
        return s.nvswitch_gbps_per_gpu;
    if (const double nvlink = nvlinkGbps(s, gpu, a, b); nvlink > 0)
        return nvlink;
    return gpu.pcie_p2p ? pcieHopGbps(s, a, b)
                        : std::min(pcieHopGbps(s, a, b), stagedHopGbps(s, 1));
}

} // namespace iterscope

namespace iterscope {

std::vector<int> chainOrder(const SystemProfile& s, const GpuProfile& gpu, int gpus) {
    std::vector<int> order(static_cast<std::size_t>(std::max(gpus, 0)));
    for (int i = 0; i < gpus; ++i)
        order[static_cast<std::size_t>(i)] = i;
    if (s.intra_node != "nvlink-cube-mesh" || gpus <= 2 || gpus > kMaxSearchGpus)
        return order;
    // Depth-first over the paths from GPU 0, keeping the one whose slowest hop is fastest;
    // a branch that cannot beat the best so far is cut. Meshes have at most 16 GPUs.
    double hop[kMaxSearchGpus][kMaxSearchGpus] = {};
    for (int a = 0; a < gpus; ++a)
        for (int b = 0; b < gpus; ++b)
            hop[a][b] = peerGbps(s, gpu, a, b);
    std::vector<int> best = order, path{0};
    double best_min = kUnlimited;
    for (int i = 0; i + 1 < gpus; ++i)
        best_min = std::min(best_min, hop[i][i + 1]);
    std::vector<char> used(static_cast<std::size_t>(gpus), 0);
    used[0] = 1;
    const auto search = [&](const auto& self, double slowest) -> void {
        if (slowest <= best_min)
            return;
        if (static_cast<int>(path.size()) == gpus) {
            best_min = slowest;
            best = path;
            return;
        }
        for (int next = 0; next < gpus; ++next) {
            if (used[static_cast<std::size_t>(next)])
                continue;
            used[static_cast<std::size_t>(next)] = 1;
            path.push_back(next);
            self(self, std::min(slowest, hop[path[path.size() - 2]][next]));
            path.pop_back();
            used[static_cast<std::size_t>(next)] = 0;
        }
    };
    search(search, kUnlimited);
    return best;
}

} // namespace iterscope
