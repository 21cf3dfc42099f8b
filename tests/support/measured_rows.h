// A measurement row as a person's own CSV would give it, for the fitting tests: ResNet-style
// images, PyTorch, images per second, all-reduce when there are several GPUs.
#pragma once

#include "validation/validation.h"

#include <cstdint>
#include <string>

namespace iterscope::test {

inline ValidationRow measuredRow(const std::string& id, const std::string& network,
                                 const std::string& gpu, const std::string& system,
                                 const std::string& precision, int64_t batch, int gpus = 1) {
    ValidationRow r;
    r.id = id;
    r.source = "mine";
    r.network = network;
    r.image = 224;
    r.batch_per_gpu = batch;
    r.gpu = gpu;
    r.system = system;
    r.gpus_per_node = gpus;
    r.precision = precision;
    r.software = "pytorch";
    r.sync = gpus > 1 ? "allreduce-nccl" : "none";
    r.metric = "images_per_second";
    return r;
}

} // namespace iterscope::test
