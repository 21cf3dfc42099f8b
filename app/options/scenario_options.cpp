#include "options/scenario_options.h"

namespace iterscope {

void addScenarioFlags(CLI::App* command, ScenarioFlags& flags) {
    command->add_option("--network", flags.network,
                        "Built-in network id or .onnx/.prototxt/.json file");
    command->add_option("--gpu", flags.gpu, "GPU profile id or JSON file");
    command->add_option("--system", flags.system, "System profile id or JSON file");
    command->add_option("--software", flags.software, "Software platform id or JSON file");
    command->add_option("--nodes", flags.nodes, "Number of nodes");
    command->add_option("--gpus-per-node", flags.gpus_per_node, "GPUs used per node");
    command->add_option("--batch", flags.batch, "Minibatch per GPU");
    command->add_option("--image", flags.image, "Square input size (pixels)");
    command->add_option("--precision", flags.precision, "fp32, tf32 or amp");
    command->add_option("--sync", flags.sync, "Gradient exchange strategy");
    command->add_option("--allreduce", flags.allreduce, "auto, ring, tree or hierarchical");
    command->add_option("--overlap", flags.overlap,
                        "Overlap gradient exchange with backward: on|off");
    command->add_option("--bucket-mb", flags.bucket_mb, "Gradient bucket size in MB");
    command->add_option("--ps-count", flags.ps_count, "Parameter servers (distributed-replicated)");
}

} // namespace iterscope
