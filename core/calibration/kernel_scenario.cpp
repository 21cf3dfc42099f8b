#include "calibration/kernel_scenario.h"

namespace iterscope {

Scenario kernelScenario(std::shared_ptr<const AnalyzedNetwork> network, const GpuProfile& gpu,
                        const SoftwareProfile& software, int64_t batch, Precision precision) {
    Scenario s;
    s.network = std::move(network);
    s.gpu = gpu;
    s.software = software;
    // Isolated kernels carry no framework dispatch; the fitted profile keeps the base's.
    s.software.per_layer_overhead_us = 0;
    s.system.id = "single-gpu";
    s.system.name = "one GPU, no exchange";
    s.system.gpus_per_node = 1;
    s.system.max_nodes = 1;
    s.batch_per_gpu = batch;
    s.nodes = 1;
    s.gpus_per_node = 1;
    s.precision = precision;
    s.sync = SyncStrategy::None;
    s.overlap = false;
    return s;
}

} // namespace iterscope
