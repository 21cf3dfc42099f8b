// iterscope-cli: the headless front end. Commands are in the other files of this folder.
#include "cli/command.h"
#include "util/error.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

namespace iterscope::cli {
namespace {
std::vector<std::pair<int, CommandSetup>>& registry() {
    static std::vector<std::pair<int, CommandSetup>> commands;
    return commands;
}
} // namespace

CommandRegistration::CommandRegistration(int order, CommandSetup setup) {
    registry().emplace_back(order, std::move(setup));
}

void setUpCommands(CLI::App& app) {
    auto& commands = registry();
    std::stable_sort(commands.begin(), commands.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [order, setup] : commands)
        setup(app);
}

} // namespace iterscope::cli

int main(int argc, char** argv) {
    CLI::App app{"iterscope-cli: predict the training iteration time of a CNN on multi-GPU "
                 "platforms",
                 "iterscope-cli"};
    app.set_version_flag("--version", std::string("iterscope-cli ") + ITERSCOPE_VERSION_STRING);
    app.require_subcommand(1);
    iterscope::cli::setUpCommands(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line, never CLI11's multi-line usage dump: scripts read stderr.
        std::cerr << "iterscope-cli: " << e.what() << " (see --help)\n";
        return 1;
    } catch (const iterscope::InputErrors& e) {
        for (const std::string& line : e.lines())
            std::cerr << "iterscope-cli: " << line << "\n";
        return 1;
    } catch (const iterscope::InputError& e) {
        std::cerr << "iterscope-cli: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "iterscope-cli: out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "iterscope-cli: " << e.what() << "\n";
        return 1;
    }
    std::fflush(stdout);
    return std::ferror(stdout) ? 1 : 0;
}
