// Each CLI command lives in its own file and registers itself here, so adding a command
// never touches main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace iterscope::cli {

// A command adds its subcommand to the app; the subcommand's callback does the work and
// throws InputError on bad input (main prints it on one line and exits 1).
using CommandSetup = std::function<void(CLI::App& app)>;

struct CommandRegistration {
    CommandRegistration(int order, CommandSetup setup);
};

// Registered commands in their order (the order --help lists them in).
void setUpCommands(CLI::App& app);

} // namespace iterscope::cli
