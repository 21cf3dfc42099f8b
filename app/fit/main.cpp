// iterscope-fit: fits the software profiles' free parameters on the published measurements
// as a whole and cross-validates the fit (docs/validation.md "How the fit is made").
//
//   iterscope-fit [--spec tests/data/fit-spec.json] [--cv source,gpu,architecture|none]
//                 [--jobs N] [--write] [--write-pin-variance] [--pin-table]
//                 [--report FILE.md]
//
// Prints each parameter's prior and fitted value, the in-sample error and the
// leave-one-out errors. --write puts the fitted values into profiles/software/*.json and the
// cross-validated residuals into profiles/error-bands.json (both written atomically);
// without it nothing is changed. --write-pin-variance writes only
// profiles/pin-variance.json: the variance components of the leave-one-source-out residuals
// by (source, GPU) and the harness share iterscope-cli fit carries to other GPUs
// (core/fitting/variance_components.h; needs source in --cv), with the factor a pin leaves
// on the other GPUs' band, from the leave-one-GPU-in table it runs. --pin-table adds the
// leave-one-GPU-in table (core/fitting/pin_table.h): each GPU of a source fitted with
// iterscope-cli fit's own function, from the fit with that source left out, and the source's
// other GPUs predicted. A developer tool: the shipped model never reads measurements.
#include "fitting/pin_table.h"
#include "fitting/published_fit.h"
#include "fitting/published_outputs.h"
#include "fitting/variance_components.h"
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/number_text.h"
#include "util/text_file.h"
#include "validation/error_band.h"
#include "validation/ratio_band.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

using namespace iterscope;

namespace {

struct Options {
    std::string spec = "tests/data/fit-spec.json";
    std::string cv = "source,gpu,architecture";
    int jobs = 0;
    bool write = false;
    bool write_pin_variance = false;
    bool write_ratio_bands = false;
    bool ratio_bands_in_sample = false;
    bool pin_table = false;
    std::vector<double> pin_shares;
    std::string report;
    std::string rows_csv;
};

void printRatioBands(const RatioBands& ratio) {
    for (const RatioClass& c : ratio.kinds)
        std::printf("ratio band %-10s %4d pairs  +-%.1f%%\n", c.kind.c_str(), c.pairs,
                    (std::exp(c.half_width_log) - 1) * 100);
}

double ape(double predicted, double measured) {
    return std::abs(predicted - measured) / measured * 100.0;
}

struct GroupLine {
    std::string source, gpu, sync;
    int rows = 0;
    double in_sample = 0, by_source = 0, by_gpu = 0;
};

std::string fixed(double v, int digits) {
    return fixedDecimals(v, digits);
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Coverage of the 80% band on the rows' own leave-one-source-out predictions, with the
// band itself made without that source's residuals (so no row judges its own band).
std::string coverageReport(const FitProblem& problem, const std::vector<double>& by_source,
                           const ErrorBands& shipped) {
    const auto& rows = problem.rows;
    std::map<std::string, std::pair<int, int>> per_class; // held, rows
    std::vector<double> widths;
    int held = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<ErrorBandRow> others;
        for (std::size_t j = 0; j < rows.size(); ++j)
            if (rows[j].source != rows[i].source) {
                const Scenario& s = problem.scenarios[j];
                others.push_back({s.gpu.architecture, bandPrecisionOf(s.precision), bandScaleOf(s),
                                  throughputLogRatio(rows[j], by_source[j])});
            }
        ErrorBands bands = shipped;
        bands.classes = errorClasses(others, shipped.coverage);
        const Scenario& s = problem.scenarios[i];
        const ErrorBand band = errorBandFor(bands, s);
        const double r = throughputLogRatio(rows[i], by_source[i]);
        const bool in = r >= std::log(band.low) && r <= std::log(band.high);
        held += in;
        widths.push_back(band.abovePercent());
        const std::string key = bandPrecisionOf(s.precision) + " " + bandScaleName(bandScaleOf(s));
        per_class[key].first += in;
        ++per_class[key].second;
    }
    std::sort(widths.begin(), widths.end());
    std::ostringstream md;
    md << "| class | rows | held by the 80% band | \n|---|---|---|\n";
    for (const auto& [key, c] : per_class)
        md << "| " << key << " | " << c.second << " | " << fixed(100.0 * c.first / c.second, 0)
           << "% |\n";
    md << "| **all** | **" << rows.size() << "** | **"
       << fixed(100.0 * held / static_cast<double>(rows.size()), 1) << "%** |\n\n"
       << "Median half-width (upper side): " << fixed(widths[widths.size() / 2], 1) << "%.\n";
    std::printf("80%% band, leave one source out: holds %.1f%% of %zu rows, median +%.1f%%\n",
                100.0 * held / static_cast<double>(rows.size()), rows.size(),
                widths[widths.size() / 2]);
    return md.str();
}

std::string pinVarianceReport(const VarianceComponents& v) {
    std::ostringstream md;
    md << "### Variance components of the leave-one-source-out residuals\n\n"
       << "| component | sigma (log) | variance |\n|---|---|---|\n"
       << "| between sources (harness) | " << fixed(std::sqrt(v.sigma_h2), 4) << " | "
       << fixed(v.sigma_h2, 5) << " |\n"
       << "| between GPUs within a source | " << fixed(std::sqrt(v.sigma_g2), 4) << " | "
       << fixed(v.sigma_g2, 5) << " |\n"
       << "| between rows within a (source, GPU) | " << fixed(std::sqrt(v.sigma_e2), 4) << " | "
       << fixed(v.sigma_e2, 5) << " |\n"
       << "| between rows within a (source, GPU, precision), the GPU factor's noise | "
       << fixed(std::sqrt(v.sigma_w2), 4) << " | " << fixed(v.sigma_w2, 5) << " |\n\n"
       << "Harness share sigma_h^2 / (sigma_h^2 + sigma_g^2): **" << fixed(v.harness_share, 3)
       << "** (" << v.rows << " rows, " << v.sources << " sources, " << v.cells
       << " cells; grand mean " << fixed(v.mean, 4) << ").\n";
    return md.str();
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"Fit the software profiles on the published measurements and cross-validate"};
    Options o;
    app.add_option("--spec", o.spec, "Fit spec (JSON)");
    app.add_option("--cv", o.cv, "Leave-one-out keys: source, gpu, architecture, or none");
    app.add_option("--jobs", o.jobs, "Folds fitted at once (default: every core)")
        ->check(CLI::Range(0, 256));
    app.add_flag("--write", o.write, "Write fitted values and error bands into profiles/");
    app.add_flag("--write-pin-variance", o.write_pin_variance,
                 "Write profiles/pin-variance.json (the harness share of a pin, and what a pin "
                 "does to the other GPUs' band) from the leave-one-source-out residuals and "
                 "the leave-one-GPU-in table, and nothing else");
    app.add_flag("--write-ratio-bands", o.write_ratio_bands,
                 "Write profiles/ratio-bands.json (how sure a predicted speed-up is) from the "
                 "leave-one-source-out residuals, and nothing else");
    app.add_flag("--ratio-bands-in-sample", o.ratio_bands_in_sample,
                 "Write profiles/ratio-bands.json from the rows predicted with the shipped "
                 "profiles as they are (in sample, no fit: seconds instead of the "
                 "cross-validation's minutes; says so in its basis), and nothing else");
    app.add_flag("--pin-table", o.pin_table,
                 "Add the leave-one-GPU-in table: each GPU's rows fitted as iterscope-cli fit "
                 "--measurements does, from the fit with its source left out, and the "
                 "source's other GPUs predicted (fits every source's fold)");
    app.add_option("--pin-shares", o.pin_shares,
                   "Harness shares the pin table compares, the first one summarised; -1: the "
                   "shipped estimate for each pin's rows, as fit --measurements uses (default: "
                   "-1, 0 and 1)")
        ->delimiter(',')
        ->check(CLI::Range(-1.0, 1.0));
    app.add_option("--report", o.report, "Write the tables as Markdown to this file");
    app.add_option("--rows-csv", o.rows_csv,
                   "Write every row's measured value with its in-sample and held-out "
                   "predictions (one column per --cv key) as CSV to this file");
    CLI11_PARSE(app, argc, argv);
    try {
        const auto start = std::chrono::steady_clock::now();
        const int jobs = o.jobs > 0
                             ? o.jobs
                             : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        const FitSpec spec = readFitSpec(o.spec);
        std::vector<ValidationRow> rows;
        for (const std::string& csv : spec.measurements)
            for (ValidationRow& r : readValidationCsv(csv))
                rows.push_back(std::move(r));
        const FitProblem problem = makeFitProblem(rows, defaultResolver());
        std::vector<std::size_t> all(rows.size());
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = i;

        if (o.ratio_bands_in_sample) {
            // The shipped profiles are the fit to every row, so these are its in-sample
            // residuals: narrower than held-out ones would be, and the basis says so.
            const RatioBands ratio = ratioBandsFromPredictions(
                problem, predictRows(problem, all, problem.baseline),
                "|ln(measured ratio / predicted ratio)| of pairs of rows of one source "
                "that differ in one factor alone, each row predicted with the shipped "
                "profiles (in sample: the rows were in their fit; iterscope-fit --cv "
                "source --write-ratio-bands gives held-out ones); conformal quantiles "
                "at the coverage");
            printRatioBands(ratio);
            std::cout << "wrote " << writeRatioBands(ratio) << "\n";
            return 0;
        }

        const FitResult fit = fitParameters(spec, problem, all);
        const auto profiles = applyFit(spec, fit.values, problem.baseline);
        const std::vector<double> in_sample = predictRows(problem, all, profiles);
        std::ostringstream md;
        const std::vector<double> effective = effectiveValues(spec, fit.values);
        std::cout
            << "parameter                                 prior     fitted   in the profiles\n";
        md << "| parameter | profiles | prior | fitted | in the profiles "
              "|\n|---|---|---|---|---|\n";
        for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
            const FitParameter& p = spec.parameters[i];
            const std::string name =
                p.relative_to.empty() ? p.name : p.name + " (x " + p.relative_to + ")";
            std::printf("%-40s %8.4g %10.4g %10.4g\n", name.c_str(), p.prior, fit.values[i],
                        effective[i]);
            std::string ids;
            for (const auto& id : p.profiles)
                ids += (ids.empty() ? "" : ", ") + id;
            md << "| " << name << " | " << ids << " | " << p.prior << " | "
               << fixed(fit.values[i], 4) << " | " << fixed(effective[i], 4) << " |\n";
        }
        std::printf("in-sample: MAPE %.2f%%, worst group %.2f%% (%d evaluations)\n", fit.score.mape,
                    fit.score.worst_group, fit.evaluations);

        std::map<std::string, std::vector<double>> cv;
        std::vector<std::pair<std::string, FoldKey>> keys;
        if (o.cv != "none") {
            std::stringstream list(o.cv);
            std::string k;
            while (std::getline(list, k, ',')) {
                if (k == "source")
                    keys.emplace_back(k, FoldKey::Source);
                else if (k == "gpu")
                    keys.emplace_back(k, FoldKey::Gpu);
                else if (k == "architecture")
                    keys.emplace_back(k, FoldKey::Architecture);
                else
                    throw InputError("--cv: unknown key '" + k +
                                     "' (source, gpu, architecture or none)");
            }
        }
        // The leave-one-source-out folds are fitted once: their held-out rows are the
        // cross-validation's, and every pin of the leave-one-GPU-in table starts from its
        // source's fold.
        std::vector<CrossValidationFold> source_folds;
        const auto sourceFolds = [&]() -> const std::vector<CrossValidationFold>& {
            if (source_folds.empty())
                source_folds = fitFolds(spec, problem, FoldKey::Source, jobs);
            return source_folds;
        };
        for (const auto& [name, key] : keys) {
            cv[name] = key == FoldKey::Source ? heldOutPredictions(spec, problem, sourceFolds())
                                              : crossValidate(spec, problem, key, jobs);
            std::vector<double> errors;
            for (std::size_t i = 0; i < rows.size(); ++i)
                errors.push_back(ape(cv[name][i], rows[i].measured));
            std::printf("leave one %s out: MAPE %.2f%%\n", name.c_str(), mean(errors));
            std::map<std::string, std::vector<double>> per_fold;
            for (std::size_t i = 0; i < rows.size(); ++i)
                per_fold[foldKeyOf(problem, i, key)].push_back(errors[i]);
            md << "\n### Leave one " << name << " out: " << fixed(mean(errors), 2)
               << "% over all rows\n\n| " << name << " left out | rows | MAPE % when left out "
               << "|\n|---|---|---|\n";
            for (const auto& [fold, e] : per_fold) {
                std::printf("    %-44s %3zu rows  %6.2f%%\n", fold.c_str(), e.size(), mean(e));
                md << "| " << fold << " | " << e.size() << " | " << fixed(mean(e), 2) << " |\n";
            }
        }
        // Each measurement file on its own, in-sample and held out.
        {
            std::map<std::string, std::vector<std::size_t>> by_file;
            for (std::size_t i = 0; i < rows.size(); ++i)
                by_file[rows[i].file].push_back(i);
            md << "\n| measurements | rows | in-sample MAPE %";
            for (const auto& [name, key] : keys)
                md << " | " << name << " left out %";
            md << " |\n|---|---|---";
            for (std::size_t k = 0; k < keys.size(); ++k)
                md << "|---";
            md << "|\n";
            auto line = [&](const std::string& label, const std::vector<std::size_t>& idx) {
                std::vector<double> e;
                for (std::size_t i : idx)
                    e.push_back(ape(in_sample[i], rows[i].measured));
                md << "| " << label << " | " << idx.size() << " | " << fixed(mean(e), 2);
                for (const auto& [name, key] : keys) {
                    std::vector<double> h;
                    for (std::size_t i : idx)
                        h.push_back(ape(cv[name][i], rows[i].measured));
                    md << " | " << fixed(mean(h), 2);
                }
                md << " |\n";
            };
            std::vector<std::size_t> every;
            for (const auto& [file, idx] : by_file) {
                line("`" + std::filesystem::path(file).filename().string() + "`", idx);
                every.insert(every.end(), idx.begin(), idx.end());
            }
            line("**all**", every);
        }
        if (!o.rows_csv.empty()) {
            // For looking into the residuals (which rows a source or a GPU gets wrong together)
            // with any spreadsheet, without rerunning the cross-validation.
            std::ostringstream csv;
            csv << "id,source,network,batch_per_gpu,gpu,system,nodes,gpus_per_node,precision,"
                   "software,measured,in_sample";
            for (const auto& [name, key] : keys)
                csv << "," << name << "_left_out";
            csv << "\n";
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const ValidationRow& r = rows[i];
                csv << r.id << "," << r.source << "," << r.network << "," << r.batch_per_gpu << ","
                    << r.gpu << "," << r.system << "," << r.nodes << "," << r.gpus_per_node << ","
                    << r.precision << "," << r.software << "," << r.measured << ","
                    << fixed(in_sample[i], 4);
                for (const auto& [name, key] : keys)
                    csv << "," << fixed(cv[name][i], 4);
                csv << "\n";
            }
            writeFileAtomically(o.rows_csv, csv.str());
            std::cout << "wrote " << o.rows_csv << "\n";
        }

        // Per (source, gpu, sync) group: in-sample and held-out.
        std::vector<GroupLine> groups;
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::string k = rows[i].source + "|" + rows[i].gpu + "|" + rows[i].sync;
            auto it = index.find(k);
            if (it == index.end()) {
                it = index.emplace(k, groups.size()).first;
                groups.push_back({rows[i].source, rows[i].gpu, rows[i].sync});
            }
            GroupLine& g = groups[it->second];
            ++g.rows;
            g.in_sample += ape(in_sample[i], rows[i].measured);
            if (cv.count("source"))
                g.by_source += ape(cv["source"][i], rows[i].measured);
            if (cv.count("gpu"))
                g.by_gpu += ape(cv["gpu"][i], rows[i].measured);
        }
        md << "\n| source | gpu | sync | rows | in-sample MAPE % | source left out % | GPU "
              "left out % |\n|---|---|---|---|---|---|---|\n";
        std::printf("\n%-40s %-16s %-16s %4s %8s %8s %8s\n", "source", "gpu", "sync", "rows",
                    "fit %", "-src %", "-gpu %");
        for (const GroupLine& g : groups) {
            const double n = g.rows;
            std::printf("%-40s %-16s %-16s %4d %8.1f %8.1f %8.1f\n", g.source.c_str(),
                        g.gpu.c_str(), g.sync.c_str(), g.rows, g.in_sample / n, g.by_source / n,
                        g.by_gpu / n);
            md << "| " << g.source << " | " << g.gpu << " | " << g.sync << " | " << g.rows << " | "
               << fixed(g.in_sample / n, 1) << " | " << fixed(g.by_source / n, 1) << " | "
               << fixed(g.by_gpu / n, 1) << " |\n";
        }
        std::vector<double> fit_errors;
        for (std::size_t i = 0; i < rows.size(); ++i)
            fit_errors.push_back(ape(in_sample[i], rows[i].measured));
        md << "| **all** | | | **" << rows.size() << "** | **" << fixed(mean(fit_errors), 2)
           << "** | ";
        for (const char* k : {"source", "gpu"}) {
            std::vector<double> e;
            if (cv.count(k))
                for (std::size_t i = 0; i < rows.size(); ++i)
                    e.push_back(ape(cv[k][i], rows[i].measured));
            md << "**" << (e.empty() ? std::string("-") : fixed(mean(e), 2)) << "** | ";
        }
        md << "\n";

        // Written once the leave-one-GPU-in table has measured the pinned band too.
        std::optional<PinVariance> pin_variance;
        if (cv.count("source")) {
            PinVariance pin;
            pin.basis = pinVarianceBasis(spec);
            pin.components = pinVarianceFromHeldOut(problem, cv["source"]);
            const VarianceComponents& v = pin.components;
            std::printf("pin variance, leave one source out: sigma_h %.4f (between sources), "
                        "sigma_g %.4f (GPUs within a source), sigma_e %.4f (rows within a "
                        "GPU), sigma_w %.4f (rows within a GPU and precision), harness share "
                        "%.3f; %d rows, %d sources, %d (source, GPU) cells\n",
                        std::sqrt(v.sigma_h2), std::sqrt(v.sigma_g2), std::sqrt(v.sigma_e2),
                        std::sqrt(v.sigma_w2), v.harness_share, v.rows, v.sources, v.cells);
            md << "\n" << pinVarianceReport(pin.components);
            pin_variance = pin;
        } else if (o.write_pin_variance) {
            std::cout << "pin variance not written: it needs --cv source\n";
        }

        // Ratio errors of pairs that differ in one factor (core/validation/ratio_band.h):
        // held out by source, since both rows of a pair come from one source.
        if (cv.count("source")) {
            const RatioBands ratio = ratioBandsFromPredictions(
                problem, cv["source"],
                "|ln(measured ratio / predicted ratio)| of pairs of rows of one source "
                "that differ in one factor alone, each row predicted with its whole "
                "source left out of the fit; conformal quantiles at the coverage");
            printRatioBands(ratio);
            md << "\n| change | pairs | 80% half-width | rms |\n|---|---|---|---|\n";
            for (const RatioClass& c : ratio.kinds)
                md << "| " << c.kind << " | " << c.pairs << " | "
                   << fixed((std::exp(c.half_width_log) - 1) * 100, 1) << "% | "
                   << fixed(c.rms_log, 3) << " |\n";
            if (o.write || o.write_ratio_bands)
                std::cout << "wrote " << writeRatioBands(ratio) << "\n";
        } else if (o.write_ratio_bands) {
            std::cout << "ratio bands not written: they need --cv source\n";
        }

        if (o.pin_table || (o.write_pin_variance && pin_variance)) {
            PinTableOptions pin_options;
            pin_options.jobs = jobs;
            // The pin variance's band is the one fit --measurements makes: the estimated share,
            // measured too when the table compares only given shares.
            pin_options.harness_shares = o.pin_table ? o.pin_shares : std::vector<double>{-1};
            if (o.write_pin_variance && pin_variance && !pin_options.harness_shares.empty() &&
                std::find(pin_options.harness_shares.begin(), pin_options.harness_shares.end(),
                          -1.0) == pin_options.harness_shares.end())
                pin_options.harness_shares.push_back(-1);
            const PinTable table =
                leaveOneGpuIn(spec, problem, sourceFolds(), defaultResolver(), pin_options);
            char given[32];
            std::snprintf(given, sizeof given, "%.3g", table.harness_shares[0]);
            std::printf("\nleave one GPU in, harness share %s: the other GPUs' MAPE "
                        "unpinned and pinned, the pinned GPU's with a row left out\n",
                        table.harness_shares[0] < 0 ? "estimated for each pin's rows" : given);
            std::printf("    %-40s %-16s %4s %8s %8s %8s\n", "source", "gpu", "rows", "others %",
                        "pinned %", "own %");
            for (const PinTableRow& r : table.rows) {
                if (r.outcomes.empty())
                    std::printf("    %-40s %-16s %4d  %s\n", r.source.c_str(), r.gpu.c_str(),
                                r.rows, r.skipped.substr(0, 120).c_str());
                else
                    std::printf("    %-40s %-16s %4d %8.1f %8.1f %8.1f\n", r.source.c_str(),
                                r.gpu.c_str(), r.rows, r.others_unpinned,
                                r.outcomes[0].others_pinned, r.outcomes[0].own_held_out);
            }
            for (const PinTableSummary& s : table.summaries)
                std::printf("%s\n", pinTableSummaryLine(s).c_str());
            for (const PinTableSummary& s : table.summaries)
                std::printf("%s\n", pinTableBandLine(s).c_str());
            md << "\n" << pinTableMarkdown(table);
            for (const PinTableSummary& s : table.summaries)
                if (pin_variance && s.harness_share < 0 && s.others_band_unpinned_log > 0) {
                    pin_variance->other_gpus_band_scale =
                        s.others_band_pinned_log / s.others_band_unpinned_log;
                    pin_variance->other_gpus_band_basis =
                        "the 80% conformal half-width of ln(measured / predicted throughput) "
                        "of the other GPUs' rows, pinned (" +
                        fixed(s.others_band_pinned_log, 4) + ") over unpinned (" +
                        fixed(s.others_band_unpinned_log, 4) + "), over the " +
                        std::to_string(s.pins) +
                        " pins of the leave-one-GPU-in table (iterscope-fit --pin-table), "
                        "each fitted as fit --measurements does with the shipped share "
                        "estimate and prior";
                    break;
                }
        }
        if (o.write_pin_variance && pin_variance)
            std::cout << "wrote " << writePinVariance(*pin_variance) << "\n";

        const bool can_band = cv.count("source") && cv.count("architecture");
        if (can_band) {
            const ErrorBands bands =
                errorBandsFromHeldOut(problem, cv["source"], cv["architecture"], profiles);
            md << "\n" << coverageReport(problem, cv["source"], bands);
            if (o.write)
                std::cout << "wrote " << writeErrorBands(bands) << "\n";
        }
        if (o.write) {
            for (const std::string& file : writeFittedSoftwareProfiles(spec, fit.values))
                std::cout << "wrote " << file << "\n";
            if (!can_band)
                std::cout << "error bands not written: they need --cv source,architecture\n";
        }
        if (!o.report.empty()) {
            writeFileAtomically(o.report, md.str());
            std::cout << "wrote " << o.report << "\n";
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("done in %.0f s\n", seconds);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "iterscope-fit: " << e.what() << "\n";
        return 1;
    }
}
