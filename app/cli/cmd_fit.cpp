// iterscope-cli fit --measurements FILE.csv | --trace TRACE --network N [--software BASE]
// --out FILE.json: a software profile refitted to the person's own measurements (DESIGN.md
// "Interfaces"; docs/calibrating.md). Everything is checked and fitted before anything is
// written; the profile is written atomically and loads back.
#include "calibration/calibrated_profile.h"
#include "cli/command.h"
#include "cli/table.h"
#include "cli/trace_setup.h"
#include "fitting/measurement_fit.h"
#include "fitting/trace_fit.h"
#include "fitting/variance_components.h"
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/text_file.h"
#include "util/utc_time.h"
#include "validation/error_band.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

namespace iterscope::cli {
namespace {

struct FitOptions {
    std::string measurements, trace, out;
    ScenarioFlags flags; // the trace's scenario; --software is the base either way
    std::string parameters;
    double prior_weight = -1;  // negative: the default for --measurements or --trace
    double harness_share = -1; // negative: the shipped estimate
    std::string format = "table";
};

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

std::string pct(double v) {
    return fixed(v, 2) + " %";
}

std::string describeSource(const std::string& what, const SoftwareFitReport& fit,
                           const std::string& base_id, const std::string& base_file) {
    std::ostringstream s;
    s << "FITTED by iterscope-cli fit at " << utcTimestamp() << " on " << what << ", from "
      << base_id << " (" << base_file << "): ";
    for (std::size_t i = 0; i < fit.fields.size(); ++i)
        s << (i ? ", " : "") << fit.fields[i].field << " " << fixed(fit.fields[i].base, 4) << " -> "
          << fixed(fit.fields[i].fitted, 4) << " (carried " << fixed(fit.fields[i].carried, 4)
          << ")";
    s << "; other GPUs carry " << fixed(fit.harness_share * 100, 0)
      << "% of the change (the harness share)";
    for (const GpuCorrectionFit& g : fit.gpu_corrections)
        s << "; " << g.gpu << " " << g.precision
          << (g.memory_bound_only ? " memory-bound kernels x" : " kernels x") << fixed(g.factor, 4);
    s << ". " << fit.error_measure << " before " << fixed(fit.error_before, 2) << "%, after "
      << fixed(fit.error_after, 2) << "%, " << fit.held_out_by << " "
      << fixed(fit.error_held_out, 2) << "%. Every other value is the base's.";
    return s.str().substr(0, 4000);
}

void printTable(const SoftwareFitReport& fit, const std::string& out) {
    TextTable rows;
    rows.addColumn("row", TextTable::Align::Left);
    for (const char* h : {"measured", "base", "fitted", "held out"})
        rows.addColumn(h, TextTable::Align::Right);
    for (const FitRowResult& r : fit.rows)
        rows.addRow({r.id, fixed(r.measured, 3), fixed(r.before, 3), fixed(r.after, 3),
                     fixed(r.held_out, 3)});
    std::cout << rows.render() << "\n";
    TextTable fields;
    fields.addColumn("parameter", TextTable::Align::Left);
    fields.addColumn("base", TextTable::Align::Right);
    fields.addColumn("fitted", TextTable::Align::Right);
    fields.addColumn("carried", TextTable::Align::Right);
    for (const FittedField& f : fit.fields)
        fields.addRow({f.field, fixed(f.base, 4), fixed(f.fitted, 4), fixed(f.carried, 4)});
    std::cout << fields.render() << "\n";
    std::cout << "carried to every GPU: " << fixed(fit.harness_share * 100, 0)
              << "% of the shared change (harness share, " << fit.harness_share_basis << ")\n";
    if (!fit.gpu_corrections.empty()) {
        TextTable own;
        own.addColumn("kept for this GPU only", TextTable::Align::Left);
        own.addColumn("precision", TextTable::Align::Left);
        own.addColumn("rows", TextTable::Align::Right);
        own.addColumn("kernels", TextTable::Align::Left);
        own.addColumn("rate x", TextTable::Align::Right);
        for (const GpuCorrectionFit& g : fit.gpu_corrections)
            own.addRow({g.gpu, g.precision, std::to_string(g.rows),
                        g.memory_bound_only ? "memory-bound" : "all", fixed(g.factor, 4)});
        std::cout << own.render() << "\n";
    }
    if (!fit.undetermined.empty()) {
        std::cout << "not determined by these measurements (kept):";
        for (const std::string& f : fit.undetermined)
            std::cout << " " << f;
        std::cout << "\n";
    }
    std::cout << fit.error_measure << ": base " << pct(fit.error_before) << ", fitted "
              << pct(fit.error_after) << ", " << fit.held_out_by << " " << pct(fit.error_held_out)
              << "\n";
    if (fit.band.rows > 0)
        std::cout << "error band from " << fit.band.rows
                  << " held-out residuals: " << bandPercentText(fit.band.half_width_log) << "\n";
    std::cout << "wrote " << out << "\n";
}

void printJson(const SoftwareFitReport& fit, const std::string& out, const std::string& base_id) {
    nlohmann::ordered_json j;
    j["rows"] = fit.rows.size();
    j["mape_before"] = fit.error_before;
    j["mape_after"] = fit.error_after;
    j["mape_leave_one_out"] = fit.error_held_out;
    j["parameters"] = nlohmann::ordered_json::object();
    j["base_parameters"] = nlohmann::ordered_json::object();
    j["fitted_parameters"] = nlohmann::ordered_json::object();
    for (const FittedField& f : fit.fields) {
        j["parameters"][f.field] = f.carried; // what the written profile holds
        j["base_parameters"][f.field] = f.base;
        j["fitted_parameters"][f.field] = f.fitted; // before the harness share
    }
    j["gpus"] = fit.gpus;
    j["harness_share"] = fit.harness_share;
    j["harness_share_basis"] = fit.harness_share_basis;
    j["gpu_corrections"] = nlohmann::ordered_json::object();
    j["gpu_memory_corrections"] = nlohmann::ordered_json::object();
    for (const GpuCorrectionFit& g : fit.gpu_corrections)
        j[g.memory_bound_only ? "gpu_memory_corrections" : "gpu_corrections"][g.gpu][g.precision] =
            g.factor;
    j["out"] = out;
    j["base"] = base_id;
    j["error_measure"] = fit.error_measure;
    j["held_out_by"] = fit.held_out_by;
    j["undetermined"] = fit.undetermined;
    j["row_results"] = nlohmann::ordered_json::array();
    for (const FitRowResult& r : fit.rows)
        j["row_results"].push_back({{"id", r.id},
                                    {"measured", r.measured},
                                    {"before", r.before},
                                    {"after", r.after},
                                    {"held_out", r.held_out}});
    if (fit.band.rows > 0)
        j["error_band"] = {{"rows", fit.band.rows},
                           {"half_width_log", fit.band.half_width_log},
                           {"architectures", fit.band.architectures}};
    std::cout << j.dump(2) << "\n";
}

void run(const FitOptions& o, const CLI::App& cmd) {
    if (o.measurements.empty() == o.trace.empty())
        throw InputError("fit: give --measurements FILE.csv or --trace TRACE, one of them");
    SoftwareFitOptions options;
    options.fields = splitList(o.parameters);
    for (const std::string& f : options.fields)
        try {
            fitFieldBounds(f);
        } catch (const InputError& e) {
            throw InputError(std::string("--parameters: ") + e.what());
        }
    options.prior_weight = o.prior_weight;
    options.harness_share = o.harness_share;
    const bool base_given = cmd.count("--software") > 0;

    SoftwareFitReport fit;
    std::string base_id_or_path, what;
    if (!o.measurements.empty()) {
        for (const char* flag : {"--network", "--gpu", "--system", "--batch", "--nodes",
                                 "--gpus-per-node", "--precision", "--image"})
            if (cmd.count(flag) > 0)
                throw InputError(std::string(flag) + " applies to --trace; with --measurements " +
                                 "each row names its own scenario");
        const std::vector<ValidationRow> rows = readValidationCsv(o.measurements);
        std::set<std::string> software;
        for (const ValidationRow& r : rows)
            software.insert(r.software);
        if (!base_given && software.size() > 1)
            throw InputError(o.measurements + ": rows on several software profiles (" +
                             *software.begin() + ", " + *std::next(software.begin()) +
                             "): pass --software BASE to fit one");
        base_id_or_path = base_given || rows.empty() ? o.flags.software : *software.begin();
        // A profile the CSV names by a relative path lies beside the CSV.
        if (!base_given && profile_json::looksLikePath(base_id_or_path) &&
            std::filesystem::path(base_id_or_path).is_relative())
            base_id_or_path =
                (std::filesystem::path(o.measurements).parent_path() / base_id_or_path).string();
        const SoftwareProfile base = loadSoftwareProfile(base_id_or_path);
        fit = fitToMeasurements(rows, defaultResolver(), base, options, o.measurements);
        std::set<std::string> gpus;
        for (const ValidationRow& r : rows)
            gpus.insert(r.gpu);
        std::string gpu_list;
        for (const std::string& g : gpus)
            gpu_list += (gpu_list.empty() ? "" : ", ") + g;
        what =
            std::to_string(rows.size()) + " rows of " + o.measurements + " (GPUs " + gpu_list + ")";
    } else {
        if (cmd.count("--network") == 0)
            throw InputError("fit --trace: --network is required");
        const TraceRun trace = setUpTrace(o.trace, o.flags, givenFlags(cmd));
        base_id_or_path = o.flags.software;
        const TraceComparison comparison = compareTrace(trace.analysis, trace.scenario);
        fit = fitToTrace(trace.analysis, comparison, trace.scenario, options);
        what = "the per-layer kernel times of " + std::to_string(comparison.steps) +
               " step(s) of " + o.trace + " (" + trace.setting.gpu_name + ", " +
               trace.scenario.network->source + ", batch " +
               std::to_string(trace.scenario.batch_per_gpu) + ")";
    }

    const std::string base_file = profile_json::resolve(base_id_or_path, "software", "software");
    const std::string base_text =
        readBoundedFile(base_file, profile_json::kMaxFileBytes, "a profile");
    const std::string id = profileIdFromName(std::filesystem::path(o.out).stem().string());
    const std::string name =
        fit.fitted.name + " (fitted to " +
        std::filesystem::path(o.measurements.empty() ? o.trace : o.measurements)
            .filename()
            .string() +
        ")";
    const std::string text = fittedProfileJson(base_text, base_file, fit, id, name.substr(0, 200),
                                               describeSource(what, fit, fit.fitted.id, base_file));
    writeFileAtomically(o.out, text);
    if (o.format == "json")
        printJson(fit, o.out, fit.fitted.id);
    else
        printTable(fit, o.out);
}

CommandRegistration reg{
    62, [](CLI::App& app) {
        auto options = std::make_shared<FitOptions>();
        CLI::App* cmd = app.add_subcommand(
            "fit", "Refit a software profile to your own measurements (a validation CSV) or to "
                   "a profiler trace's per-layer times, and write it");
        cmd->add_option("--measurements", options->measurements,
                        "Measurements in the validation CSV format (one row is enough)");
        cmd->add_option("--trace", options->trace,
                        "A training step's PyTorch profiler trace instead (needs --network)");
        addScenarioFlags(cmd, options->flags);
        cmd->get_option("--software")
            ->description("The base software profile, id or JSON file (default: the rows' own; "
                          "pytorch for --trace)");
        cmd->add_option("--out", options->out, "The fitted software profile to write (JSON)")
            ->required();
        cmd->add_option(
            "--parameters", options->parameters,
            "Fields to refit, comma-separated (default: conv_efficiency, "
            "tf32_efficiency, tensor_core_efficiency, memory_efficiency, "
            "per_layer_overhead_us; for --trace fc_efficiency instead of the host cost)");
        cmd->add_option("--prior-weight", options->prior_weight,
                        "Pull toward the base values, in percentage points of error per half a "
                        "base value of change, squared: of one row's error for --measurements "
                        "(default 24, spread over the rows), of the mean error for --trace "
                        "(default 1); 0: none")
            ->check(CLI::Range(0.0, 1000.0));
        cmd->add_option("--harness-share", options->harness_share,
                        "Share (0 to 1) of the shared parameters' change that the profile "
                        "carries to other GPUs (default: estimated for the rows from the variance "
                        "components in profiles/pin-variance.json); each measured GPU keeps its "
                        "own part")
            ->check(CLI::Range(0.0, 1.0));
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->callback([options, cmd] { run(*options, *cmd); });
    }};

} // namespace
} // namespace iterscope::cli
