// iterscope-cli export-network NETWORK: any network (zoo id, ONNX, Caffe, JSON) in the
// project's JSON format (docs/network-format.md), e.g. as a starting point for editing.
#include "cli/command.h"
#include "io/network_json.h"
#include "io/network_loader.h"
#include "util/error.h"
#include "util/text_file.h"

#include <iostream>
#include <memory>
#include <string>

namespace iterscope::cli {
namespace {

struct ExportOptions {
    std::string network;
    int64_t image = 0;
    std::string out;
};

const CommandRegistration registration{
    30, [](CLI::App& app) {
        auto options = std::make_shared<ExportOptions>();
        auto* cmd = app.add_subcommand(
            "export-network",
            "Write a network in Iterscope's JSON format (docs/network-format.md)");
        cmd->add_option("network", options->network, "Built-in id or .onnx/.prototxt/.json file")
            ->required();
        cmd->add_option("--image", options->image, "Square input size in pixels")
            ->check(CLI::Range(int64_t{1}, int64_t{65536}));
        cmd->add_option("--out", options->out, "Output file (default: standard output)");
        cmd->callback([options] {
            LoadOptions load;
            load.image = options->image;
            std::vector<std::string> warnings;
            load.warnings = &warnings;
            // Loading analyses the network too, so nothing that fails to fit gets exported.
            const auto net = loadNetwork(options->network, load);
            for (const std::string& w : warnings)
                std::cerr << "iterscope-cli: warning: " << w << "\n";
            const std::string text = networkToJson(net->network);
            if (options->out.empty())
                std::cout << text;
            else
                writeFileAtomically(options->out, text);
        });
    }};

} // namespace
} // namespace iterscope::cli
