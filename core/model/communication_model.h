// Gradient exchange (DESIGN.md "The model" 6). Each strategy's cost for one bucket of S
// bytes is linear, latency + S x seconds-per-byte, with the bandwidth of the bottleneck
// link taken from the system's topology. docs/model.md derives each formula.
#pragma once

#include "model/scenario.h"

#include <array>
#include <cstdint>

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
    };
    std::array<Candidate, 3> candidates{};
    int candidate_count = 0;
    // Fraction of the optimizer step still done on each GPU: 1 when every GPU updates the
    // replicated parameters, 1/N for sharded owners (ps-gpu), 0 when a CPU updates them.
    double gpu_update_share = 1;
};

// Expects a scenario that passed validateScenario (which rejects several nodes without a
// network between them).
ExchangeModel exchangeModel(const Scenario& s);

// Time of exchanging one bucket; `chosen` (optional) receives the algorithm used.
double exchangeMs(const ExchangeModel& model, double bytes, AllreduceAlgorithm* chosen = nullptr);

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
