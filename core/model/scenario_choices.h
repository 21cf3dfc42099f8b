// A scenario as a person states it: ids, paths and numbers as text, before anything is
// loaded. The CLI binds its flags to one (app/options), the GUI turns one into its own
// settings (ui/scenario/settings_from_choices.h); neither needs to know the other.
#pragma once

#include <cstdint>
#include <string>

namespace iterscope {

struct ScenarioChoices {
    std::string network = "resnet50"; // zoo id or file path
    std::string gpu = "v100-sxm2-16gb";
    std::string system = "dgx1-v100";
    std::string software = "pytorch";
    // Text, since sweep accepts comma lists for these three.
    std::string nodes = "1";
    std::string gpus_per_node; // empty: as many as one node of the system holds
    std::string batch = "64";
    int64_t image = 0;
    std::string precision = "fp32";
    std::string sync; // empty: the software profile's default
    std::string allreduce = "auto";
    std::string overlap = "on";
    double bucket_mb = 25;
    int ps_count = 0;
    std::string layout = "auto"; // activations on tensor cores: auto (the software's), nchw, nhwc
    std::string data = "auto";   // auto (the software's benchmark), real or synthetic
    std::string augmentation = "auto"; // auto (the network's recipe), standard, autoaugment, ...
    std::string parallel = "data";     // data, hybrid, pipeline, zero1, zero2, zero3
    int pipeline_stages = 2;
    int micro_batches = 0; // 0: four per stage, or the most below that dividing the batch
    std::string schedule = "1f1b";
    // Hardware and loader what-ifs on top of the profiles (0: the profile's own): the
    // advisor's suggestions reproduce from flags through these.
    int nics_per_node = 0;
    double nic_gbps = 0;       // GB/s per NIC per direction
    double loader_workers = 0; // data-loader processes per GPU
};

} // namespace iterscope
