// iterscope-fit: fits the software profiles' free parameters on the published measurements
// as a whole and cross-validates the fit (docs/validation.md "How the fit is made").
//
//   iterscope-fit [--spec tests/data/fit-spec.json] [--cv source,gpu,architecture|none]
//                 [--jobs N] [--write] [--report FILE.md]
//
// Prints each parameter's prior and fitted value, the in-sample error and the
// leave-one-out errors. --write puts the fitted values into profiles/software/*.json and the
// cross-validated residuals into profiles/error-bands.json (both written atomically);
// without it nothing is changed. A developer tool: the shipped model never reads
// measurements.
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/text_file.h"
#include "validation/error_band.h"
#include "validation/measurement_fit.h"
#include "validation/profile_fit.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

using namespace iterscope;

namespace {

struct Options {
    std::string spec = "tests/data/fit-spec.json";
    std::string cv = "source,gpu,architecture";
    int jobs = 0;
    bool write = false;
    std::string report;
};

double ape(double predicted, double measured) {
    return std::abs(predicted - measured) / measured * 100.0;
}

// Throughput is what every error is stated in: time metrics invert.
double logRatio(const ValidationRow& row, double predicted) {
    const double r = std::log(row.measured / predicted);
    return row.metric == "images_per_second" ? r : -r;
}

struct GroupLine {
    std::string source, gpu, sync;
    int rows = 0;
    double in_sample = 0, by_source = 0, by_gpu = 0;
};

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Rewrites the fitted fields of each profile file, keeping everything else as it was.
void writeProfiles(const FitSpec& spec, const std::vector<double>& values) {
    std::map<std::string, std::vector<std::pair<std::string, double>>> by_profile;
    const std::vector<double> effective = effectiveValues(spec, values);
    for (std::size_t i = 0; i < spec.parameters.size(); ++i)
        for (const std::string& id : spec.parameters[i].profiles)
            by_profile[id].emplace_back(spec.parameters[i].field, effective[i]);
    for (const auto& [id, fields] : by_profile) {
        const std::string file = profile_json::resolve(id, "software", "software");
        nlohmann::ordered_json doc =
            nlohmann::ordered_json::parse(readBoundedFile(file, 1 << 20, "a profile"));
        for (const auto& [field, value] : fields) {
            // Four significant digits: more would claim a precision the fit does not have.
            doc[field] = roundToSignificant(value, 4);
        }
        writeFileAtomically(file, doc.dump(2) + "\n");
        loadSoftwareProfile(file); // what was written must load back
        std::cout << "wrote " << file << "\n";
    }
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
    app.add_option("--report", o.report, "Write the tables as Markdown to this file");
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
        for (const auto& [name, key] : keys) {
            cv[name] = crossValidate(spec, problem, key, jobs);
            std::vector<double> errors;
            for (std::size_t i = 0; i < rows.size(); ++i)
                errors.push_back(ape(cv[name][i], rows[i].measured));
            std::printf("leave one %s out: MAPE %.2f%%\n", name.c_str(), mean(errors));
            std::map<std::string, std::vector<double>> per_fold;
            for (std::size_t i = 0; i < rows.size(); ++i)
                per_fold[foldKeyOf(problem, i, key)].push_back(errors[i]);
            for (const auto& [fold, e] : per_fold)
                std::printf("    %-44s %3zu rows  %6.2f%%\n", fold.c_str(), e.size(), mean(e));
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

        if (o.write) {
            writeProfiles(spec, fit.values);
            if (cv.count("gpu") && cv.count("architecture")) {
                ErrorBands bands;
                bands.basis = "ln(measured / predicted throughput) of each row when its GPU "
                              "(classes) or its architecture (unseen_architecture) was left "
                              "out of the fit";
                std::vector<ErrorBandRow> by_gpu, by_arch;
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    const Scenario& s = problem.scenarios[i];
                    ErrorBandRow r{s.gpu.architecture, rows[i].precision, s.totalGpus() > 1,
                                   logRatio(rows[i], cv["gpu"][i])};
                    by_gpu.push_back(r);
                    r.log_ratio = logRatio(rows[i], cv["architecture"][i]);
                    by_arch.push_back(r);
                }
                bands.classes = errorClasses(by_gpu);
                bands.unseen_architecture = errorClasses(by_arch);
                const std::string file =
                    (std::filesystem::path(profilesDir()) / "error-bands.json").string();
                writeFileAtomically(file, errorBandsToJson(bands));
                std::cout << "wrote " << file << "\n";
            } else {
                std::cout << "error bands not written: they need --cv gpu,architecture\n";
            }
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
