// iterscope-cli advise [scenario flags]: what would help most, ranked by speed-up in images
// per second, each change with the flags that reproduce it (DESIGN.md "Interfaces",
// docs/advisor.md).
#include "advisor/advisor.h"
#include "advisor/advisor_text.h"
#include "cli/command.h"
#include "cli/table.h"
#include "options/scenario_options.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace iterscope::cli {
namespace {

struct AdviseOptions {
    ScenarioFlags flags;
    int top = 10;
    std::string include = "software";
    int64_t max_global_batch = 8192;
    std::string format = "table";
};

nlohmann::ordered_json suggestionJson(const Suggestion& s, bool with_reason) {
    nlohmann::ordered_json j;
    j["kind"] = s.kind;
    j["change"] = s.change;
    j["flags"] = s.flags;
    j["iteration_ms"] = s.iteration_ms;
    j["images_per_second"] = s.images_per_second;
    j["speedup"] = s.speedup;
    j["speedup_low"] = s.band.low;
    j["speedup_high"] = s.band.high;
    j["band_basis"] = s.band.basis;
    j["band_backed"] = s.band.backed;
    j["fits_in_memory"] = s.fits_in_memory;
    j["global_batch"] = s.global_batch;
    j["cost"] = s.cost ? nlohmann::ordered_json(*s.cost) : nlohmann::ordered_json();
    j["why"] = s.why;
    if (with_reason)
        j["reason"] = s.reason;
    return j;
}

std::string flagsText(const std::vector<std::string>& flags) {
    std::string out;
    for (const std::string& f : flags)
        out += (out.empty() ? "" : " ") + f;
    return out;
}

std::string bandText(const Suggestion& s) {
    if (s.band.pairs == 0)
        return "no band";
    return fixed(s.band.low, 2) + "-" + fixed(s.band.high, 2) + (s.band.backed ? "" : " *");
}

void printTable(const Advice& a, const std::vector<Suggestion>& top) {
    std::cout << "Now: " << fixed(a.iteration_ms, 2) << " ms per iteration, "
              << withThousands(static_cast<int64_t>(a.images_per_second + 0.5))
              << " images/s, global batch " << withThousands(a.global_batch) << "\n"
              << "Diagnosis: " << a.diagnosis << "\n\n";
    bool unbacked = false;
    auto table = [&](const std::vector<Suggestion>& rows, const char* title) {
        if (rows.empty())
            return;
        std::cout << title << "\n";
        TextTable t;
        t.addColumn("#", TextTable::Align::Right);
        t.addColumn("speed-up", TextTable::Align::Right);
        t.addColumn("band", TextTable::Align::Right);
        t.addColumn("ms", TextTable::Align::Right);
        t.addColumn("images/s", TextTable::Align::Right);
        t.addColumn("change", TextTable::Align::Left);
        t.addColumn("flags", TextTable::Align::Left);
        int n = 0;
        for (const Suggestion& s : rows) {
            unbacked = unbacked || !s.band.backed;
            t.addRow({std::to_string(++n), fixed(s.speedup, 2) + "x", bandText(s),
                      fixed(s.iteration_ms, 2),
                      withThousands(static_cast<int64_t>(s.images_per_second + 0.5)), s.change,
                      flagsText(s.flags)});
        }
        std::cout << t.render();
        n = 0;
        for (const Suggestion& s : rows) {
            std::cout << "  " << ++n << ". why: " << s.why << "\n";
            if (s.cost)
                std::cout << "     cost: " << *s.cost << "\n";
        }
        std::cout << "\n";
    };
    table(top, "Suggestions, by speed-up of images per second:");
    if (top.empty())
        std::cout << "No single change in reach helps.\n\n";
    table(a.combinations, "Combinations, predicted together:");
    if (!a.not_suggested.empty()) {
        std::cout << "Not suggested:\n";
        for (const Suggestion& s : a.not_suggested)
            std::cout << "  " << s.change << ": " << s.reason << "\n";
        std::cout << "\n";
    }
    std::cout << "Tried: ";
    for (std::size_t i = 0; i < a.kinds_considered.size(); ++i)
        std::cout << (i ? ", " : "") << a.kinds_considered[i];
    std::cout << ".\n";
    if (unbacked)
        std::cout << "* no published pair changes this factor alone: the band of every "
                     "one-factor pair stands in.\n";
}

CommandRegistration reg{
    48, [](CLI::App& app) {
        auto options = std::make_shared<AdviseOptions>();
        CLI::App* cmd = app.add_subcommand(
            "advise", "What would help most: every single change in reach, ranked by speed-up");
        addScenarioFlags(cmd, options->flags);
        cmd->add_option("--top", options->top, "Suggestions to show (default 10)")
            ->check(CLI::Range(1, 1000));
        cmd->add_option("--include", options->include,
                        "software (free to try: the default), hardware, or software,hardware");
        cmd->add_option("--max-global-batch", options->max_global_batch,
                        "Largest global batch a change may reach (default 8192; 0: no bound)")
            ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->callback([options] {
            AdviceOptions o;
            o.software = o.hardware = false;
            std::size_t start = 0;
            const std::string& inc = options->include;
            while (start <= inc.size()) {
                const std::size_t comma = inc.find(',', start);
                const std::string item = inc.substr(
                    start, comma == std::string::npos ? std::string::npos : comma - start);
                if (item == "software")
                    o.software = true;
                else if (item == "hardware")
                    o.hardware = true;
                else
                    throw InputError("--include: unknown '" + item.substr(0, 40) +
                                     "' (software, hardware or software,hardware)");
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
            o.max_global_batch = options->max_global_batch;
            const Scenario scenario = buildScenario(options->flags);
            const Advice advice = advise(scenario, o);
            std::vector<Suggestion> top = advice.suggestions;
            if (static_cast<int>(top.size()) > options->top)
                top.resize(static_cast<std::size_t>(options->top));
            if (options->format == "json") {
                nlohmann::ordered_json j;
                j["iteration_ms"] = advice.iteration_ms;
                j["images_per_second"] = advice.images_per_second;
                j["global_batch"] = advice.global_batch;
                j["diagnosis"] = advice.diagnosis;
                j["kinds_considered"] = advice.kinds_considered;
                j["suggestions"] = nlohmann::ordered_json::array();
                for (const Suggestion& s : top)
                    j["suggestions"].push_back(suggestionJson(s, false));
                j["combinations"] = nlohmann::ordered_json::array();
                for (const Suggestion& s : advice.combinations)
                    j["combinations"].push_back(suggestionJson(s, false));
                j["not_suggested"] = nlohmann::ordered_json::array();
                for (const Suggestion& s : advice.not_suggested)
                    j["not_suggested"].push_back(suggestionJson(s, true));
                std::cout << j.dump(2) << "\n";
                return;
            }
            printTable(advice, top);
        });
    }};

} // namespace
} // namespace iterscope::cli
