#include "fitting/published_outputs.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/text_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace iterscope {

namespace {

// Writes `text` atomically as profilesDir()/`name` and reads it back through `parse`.
template <class Parse>
std::string writeProfilesFile(const char* name, const std::string& text, const char* what,
                              Parse parse) {
    const std::string file = (std::filesystem::path(profilesDir()) / name).string();
    writeFileAtomically(file, text);
    parse(readBoundedFile(file, 1 << 20, what), file);
    return file;
}

bool sameSeries(const ValidationRow& a, const ValidationRow& b) {
    return a.source == b.source && a.network == b.network && a.image == b.image &&
           a.batch_per_gpu == b.batch_per_gpu && a.gpu == b.gpu && a.system == b.system &&
           a.precision == b.precision && a.software == b.software && a.layout == b.layout &&
           a.data == b.data && a.metric == b.metric;
}

} // namespace

// The bands of docs/model.md section 9 from the held-out residuals: sources left out for
// the architectures some row covers, architectures left out for the others. The growth
// beyond the data is the held-out error of a scaling step: within one series (the same
// run on 1, 8, 16, ... GPUs), how far the error moves per doubling of the GPU count.
ErrorBands errorBandsFromHeldOut(const FitProblem& problem, const std::vector<double>& by_source,
                                 const std::vector<double>& by_architecture,
                                 const std::map<std::string, SoftwareProfile>& fitted) {
    ErrorBands bands;
    bands.basis = "|ln(measured / predicted throughput)| of each row when its whole source "
                  "(classes) or its whole architecture (unseen_architecture) was left out of "
                  "the fit; conformal quantiles at the coverage";
    std::vector<ErrorBandRow> src, arch;
    std::vector<double> steps;
    const auto& rows = problem.rows;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Scenario& s = problem.scenarios[i];
        ErrorBandRow r{s.gpu.architecture, bandPrecisionOf(s.precision), bandScaleOf(s),
                       throughputLogRatio(rows[i], by_source[i])};
        src.push_back(r);
        r.log_ratio = throughputLogRatio(rows[i], by_architecture[i]);
        arch.push_back(r);
        bands.largest_measured_gpus = std::max(bands.largest_measured_gpus, s.totalGpus());
        if (s.nodes > 1 && std::find(bands.measured_networks.begin(), bands.measured_networks.end(),
                                     s.system.network) == bands.measured_networks.end())
            bands.measured_networks.push_back(s.system.network);
        // The next larger run of the same series.
        std::size_t next = rows.size();
        for (std::size_t j = 0; j < rows.size(); ++j)
            if (sameSeries(rows[i], rows[j]) && problem.scenarios[j].totalGpus() > s.totalGpus() &&
                (next == rows.size() ||
                 problem.scenarios[j].totalGpus() < problem.scenarios[next].totalGpus()))
                next = j;
        if (next < rows.size() && s.totalGpus() > 1) {
            const double doublings =
                std::log2(double(problem.scenarios[next].totalGpus()) / s.totalGpus());
            steps.push_back((throughputLogRatio(rows[next], by_source[next]) -
                             throughputLogRatio(rows[i], by_source[i])) /
                            doublings);
        }
    }
    bands.classes = errorClasses(src, bands.coverage);
    bands.unseen_architecture = errorClasses(arch, bands.coverage);
    bands.growth_per_doubling_log = conformalHalfWidth(steps, bands.coverage);
    // The floor: two runs of one benchmark differ by a few percent; the fitted run-to-run
    // spread of one GPU's iteration (sync_jitter, about 3.5%) at the band's coverage.
    double jitter = 0;
    for (const auto& [id, sw] : fitted)
        jitter = std::max(jitter, sw.sync_jitter);
    bands.floor_log = 1.2816 * jitter;
    return bands;
}

// The residual of each row with its whole source left out, labelled by (source, GPU): what
// an unseen harness gets wrong, split into what it shares across its GPUs and what one GPU
// adds (variance_components.h).
VarianceComponents pinVarianceFromHeldOut(const FitProblem& problem,
                                          const std::vector<double>& by_source) {
    std::vector<LabelledResidual> residuals;
    for (std::size_t i = 0; i < problem.rows.size(); ++i)
        residuals.push_back({problem.rows[i].source, problem.rows[i].gpu,
                             throughputLogRatio(problem.rows[i], by_source[i]),
                             problem.rows[i].precision});
    return estimateVarianceComponents(residuals);
}

std::string pinVarianceBasis(const FitSpec& spec) {
    std::string files;
    for (const std::string& m : spec.measurements)
        files += (files.empty() ? "" : ", ") + std::filesystem::path(m).filename().string();
    return "ln(measured / predicted throughput) of every row of " + files +
           " predicted by the fit with its whole source left out (iterscope-fit --cv source), "
           "labelled by (source, gpu); nested random-effects model r = mu + h[source] + "
           "g[source, gpu] + e, method of moments on the hierarchical sums of squares with "
           "unbalanced-cell coefficients, negative components set to 0; harness_share = "
           "sigma_h^2 / (sigma_h^2 + sigma_g^2)";
}

RatioBands ratioBandsFromPredictions(const FitProblem& problem,
                                     const std::vector<double>& predicted, std::string basis) {
    RatioBands ratio;
    ratio.basis = std::move(basis);
    std::vector<double> residuals(problem.rows.size());
    for (std::size_t i = 0; i < problem.rows.size(); ++i)
        residuals[i] = throughputLogRatio(problem.rows[i], predicted[i]);
    ratio.kinds = ratioClasses(problem.rows, residuals, ratio.coverage);
    return ratio;
}

std::string writeRatioBands(const RatioBands& bands) {
    return writeProfilesFile("ratio-bands.json", ratioBandsToJson(bands), "ratio bands",
                             parseRatioBands);
}

std::string writePinVariance(const PinVariance& pin) {
    return writeProfilesFile("pin-variance.json", pinVarianceToJson(pin), "pin variance",
                             parsePinVariance);
}

std::string writeErrorBands(const ErrorBands& bands) {
    return writeProfilesFile("error-bands.json", errorBandsToJson(bands), "error bands",
                             parseErrorBands);
}

std::string fittedSummary(const FitSpec& spec, const std::string& id) {
    std::string files;
    for (std::size_t i = 0; i < spec.measurements.size(); ++i)
        files += (i == 0                              ? ""
                  : i + 1 == spec.measurements.size() ? " and "
                                                      : ", ") +
                 std::filesystem::path(spec.measurements[i]).filename().string();
    std::string fields;
    for (const FitParameter& p : spec.parameters) {
        if (std::find(p.profiles.begin(), p.profiles.end(), id) == p.profiles.end())
            continue;
        std::string others;
        for (const std::string& other : p.profiles)
            if (other != id)
                others += (others.empty() ? "" : ", ") + other;
        fields += (fields.empty() ? "" : "; ") + p.field +
                  (others.empty() ? " (own" : " (shared with " + others) +
                  (p.relative_to.empty() ? ")" : "; a factor on " + p.relative_to + ")");
    }
    return "FITTED by iterscope-fit on tests/data/" + files +
           " as a whole (tests/data/fit-spec.json lists each parameter, its prior, its bounds "
           "and why; docs/validation.md has the procedure and the cross-validation): " +
           fields + ".";
}

std::vector<std::string> writeFittedSoftwareProfiles(const FitSpec& spec,
                                                     const std::vector<double>& values) {
    std::vector<std::string> written;
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
            // Printed and read back, so that the file shows 2.28, not 2.2800000000000002.
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.4g", value);
            doc[field] = std::stod(digits);
        }
        // The profile says what was fitted, on what and with whom, from the spec itself;
        // what it documents (from "DOCUMENTED:" on) stays as written.
        if (doc.contains("source") && doc["source"].is_string()) {
            const std::string old = doc["source"].get<std::string>();
            const auto documented = old.find("DOCUMENTED:");
            doc["source"] = fittedSummary(spec, id) +
                            (documented == std::string::npos ? "" : " " + old.substr(documented));
        }
        writeFileAtomically(file, doc.dump(2) + "\n");
        loadSoftwareProfile(file); // what was written must load back
        written.push_back(file);
    }
    return written;
}

} // namespace iterscope
