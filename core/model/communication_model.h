// Gradient exchange (DESIGN.md "The model" 6). Each strategy's cost for one bucket of S
// bytes is linear, latency + S x seconds-per-byte, with the bandwidth of the bottleneck
// link taken from the system's topology. docs/model.md derives each formula.
#pragma once

#include "model/scenario.h"

#include <array>
#include <cstdint>
#include <vector>

namespace iterscope {

struct LinearCost {
    double latency_ms = 0;
    double ms_per_byte = 0;
    double at(double bytes) const { return latency_ms + ms_per_byte * bytes; }
};

// The exchange of one scenario: up to three candidate algorithms (NCCL picks the fastest
// per message size), or one cost for the copy and parameter-server strategies.
struct ExchangeModel {
    bool active = false; // false: nothing to exchange (one GPU, sync none)
    struct Candidate {
        AllreduceAlgorithm algorithm = AllreduceAlgorithm::Ring;
        LinearCost cost;
        double sent_per_byte = 0; // bytes one GPU sends per byte of the bucket
    };
    std::array<Candidate, 5> candidates{};
    int candidate_count = 0;
    // Fraction of the optimizer step still done on each GPU: 1 when every GPU updates the
    // replicated parameters, 1/N for sharded owners (ps-gpu), 0 when a CPU updates them.
    double gpu_update_share = 1;
    // distributed-replicated: the servers update; each GPU then writes the updated values
    // into its own copy, a pass over its parameters with a kernel per tensor.
    bool refresh_replicas = false;
    // ps-gpu: the owners send their updated shards back out once the step is done, before
    // the next forward pass can read them: a cost per byte of all the gradients.
    bool broadcast_after_update = false;
    LinearCost after_update;
    double after_update_sent_per_byte = 0;
    // ps-async: no barrier between workers. The bucket cost is then a worker's own push and
    // pull; `server_round` is what the parameter servers spend per byte of gradients to take
    // in one step of every worker, the bound on how fast the workers can go together.
    bool barrier = true;
    LinearCost server_round;
};

// Expects a scenario that passed validateScenario (which rejects several nodes without a
// network between them).
ExchangeModel exchangeModel(const Scenario& s);
// The same strategy over another arrangement of GPUs of the scenario's system: `nodes`
// nodes with `gpus_per_node` GPUs each taking part (the stage-s GPUs of pipeline replicas,
// a node's GPUs alone).
ExchangeModel exchangeModel(const Scenario& s, int nodes, int gpus_per_node);

// Time of exchanging one bucket; `chosen` (optional) receives the algorithm used.
// Bytes the busiest node sends (and receives) across the network per byte of the bucket in
// NCCL's double binary tree over `nodes` nodes: 0, 1, 1.5, then 2 (a ring's 2(N-1)/N at
// most), docs/model.md section 4.
double doubleBinaryTreeNodeSends(int nodes);

double exchangeMs(const ExchangeModel& model, double bytes, AllreduceAlgorithm* chosen = nullptr);
// Bytes one GPU sends to exchange a bucket with the given algorithm.
double exchangeSentBytes(const ExchangeModel& model, double bytes, AllreduceAlgorithm chosen);

// Collectives built from an all-reduce model (ZeRO, hybrid, pipeline replicas). A ring
// reduce-scatter or all-gather is the first or the second half of a ring all-reduce
// (N-1 steps of S/N each), and a copy all-reduce is a reduce phase and a broadcast
// phase: either half costs half an all-reduce of the same bytes, latency included.
enum class Collective { AllReduce, ReduceScatter, AllGather };
double collectiveMs(const ExchangeModel& model, Collective kind, double bytes);
// Bytes one GPU sends in that collective over `ranks` GPUs: 2(N-1)/N S for an all-reduce,
// (N-1)/N S for either half.
double collectiveSentBytes(Collective kind, double bytes, int ranks);

// Per-direction bandwidth between two GPUs of one node (a pipeline's stage-to-stage copy):
// their NVLink links, the NVSwitch port, else the PCIe path between them.
double peerGbps(const SystemProfile& system, const GpuProfile& gpu, int a, int b);
// An order of GPUs 0..gpus-1 of one node whose slowest hop from one to the next is as fast
// as it can be: where a pipeline puts its consecutive stages. On an NVLink mesh, a path
// along NVLink links when there is one; elsewhere the device order.
std::vector<int> chainOrder(const SystemProfile& system, const GpuProfile& gpu, int gpus);

// Building blocks, exposed for the unit tests. Bandwidths in GB/s (1e9 B/s), latencies in us.
double ringAllreduceMs(double bytes, int ranks, double bus_gbps, double hop_latency_us,
                       double base_latency_us);
// Effective per-direction ring bandwidth inside one node over its first `gpus` GPUs
// (before NCCL's efficiency), following NCCL 2's ring search or NCCL 1's device order.
double intraNodeRingGbps(const SystemProfile& system, const GpuProfile& gpu, int gpus,
                         bool topology_aware);
// Per-direction bandwidth of a copy between two GPUs of one node without NVLink.
double pcieHopGbps(const SystemProfile& system, int a, int b);
// Time of one phase of an all-to-all exchange in which every GPU sends `bytes`/gpus to every
// other GPU of the node (the reduce or the broadcast of allreduce-copy and ps-gpu).
double allToAllPhaseMs(const SystemProfile& system, const GpuProfile& gpu, int gpus, double bytes,
                       double efficiency);
// Push (or pull) of `bytes` between each of `gpus` GPUs and the host, sharing the PCIe tree.
double hostPcieMs(const SystemProfile& system, int gpus, double bytes, double efficiency);

} // namespace iterscope
