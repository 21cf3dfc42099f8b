// iterscope-cli networks: the built-in network ids, one a line (DESIGN.md).
#include "cli/command.h"
#include "network/zoo.h"

#include <iostream>

namespace iterscope::cli {
namespace {

const CommandRegistration registration{
    10, [](CLI::App& app) {
        auto* cmd = app.add_subcommand("networks", "List the built-in network ids, one a line");
        cmd->callback([] {
            for (const std::string& id : zooIds())
                std::cout << id << "\n";
        });
    }};

} // namespace
} // namespace iterscope::cli
