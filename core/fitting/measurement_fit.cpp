#include "fitting/measurement_fit.h"

#include "fitting/search.h"
#include "fitting/variance_components.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/parallel_for.h"
#include "validation/error_band.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

namespace iterscope {

namespace {

// Rows or items up to this many are each left out in turn; more are split into this many
// folds, so that a large file costs 20 fits, not one per row.
constexpr std::size_t kMaxHeldOutFolds = 20;

// A push 5% past a bound must bring the predictions this much closer to the measurements
// (mean |ln(measured / predicted)|, 0.005: half a percent) to say they want what the bound
// forbids, rather than a parameter they barely depend on.
constexpr double kBoundPressure = 0.005;

struct BoundsEntry {
    const char* field;
    FitFieldBounds bounds;
};

// Ranges a real framework and cuDNN generation lie in (docs/calibrating.md gives them),
// well inside what the profile loader accepts.
constexpr BoundsEntry kBounds[] = {
    {"per_layer_overhead_us", {0, 500, 2}},      {"kernel_gap_us", {0, 100, 1}},
    {"optimizer_ops_per_tensor", {0, 20, 1}},    {"conv_efficiency", {0.02, 1, 0.05}},
    {"fc_efficiency", {0.02, 1, 0.05}},          {"tensor_core_efficiency", {0.02, 1, 0.05}},
    {"tf32_efficiency", {0.02, 1, 0.05}},        {"gemm_k_half", {0, 1024, 4}},
    {"winograd_speedup", {1, 4, 0.25}},          {"memory_efficiency", {0.05, 1, 0.05}},
    {"depthwise_efficiency", {0.01, 1, 0.02}},   {"input_gpu_us_per_image", {0, 100, 0.1}},
    {"host_images_per_core_s", {10, 10000, 50}}, {"policy_augment_cost", {0, 20, 0.25}},
    {"nccl_efficiency", {0.05, 1, 0.05}},        {"sync_jitter", {0, 0.5, 0.01}},
    {"network_efficiency", {0.05, 1, 0.05}},     {"memcpy_efficiency", {0.05, 1, 0.05}},
    {"collective_hop_latency_us", {0, 1000, 1}}, {"collective_base_latency_us", {0, 1000, 2}},
};

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

} // namespace

const std::vector<std::string>& defaultMeasurementFitFields() {
    static const std::vector<std::string> fields{"conv_efficiency", "tf32_efficiency",
                                                 "tensor_core_efficiency", "memory_efficiency",
                                                 "per_layer_overhead_us"};
    return fields;
}

const std::vector<std::string>& defaultTraceFitFields() {
    static const std::vector<std::string> fields{"conv_efficiency", "fc_efficiency",
                                                 "tf32_efficiency", "tensor_core_efficiency",
                                                 "memory_efficiency"};
    return fields;
}

FitFieldBounds fitFieldBounds(const std::string& field) {
    for (const BoundsEntry& e : kBounds)
        if (field == e.field)
            return e.bounds;
    std::string known;
    for (const std::string& f : fitParameterFields())
        known += (known.empty() ? "" : ", ") + f;
    throw InputError("'" + field.substr(0, 64) + "' is not a fittable software field (" + known +
                     ")");
}

HarnessShareChoice chooseHarnessShare(double given, int rows, int gpus) {
    if (given >= 0)
        return {std::min(given, 1.0), "given"};
    const PinVariance* shipped = shippedPinVariance();
    if (!shipped)
        return {1.0, "no estimate shipped: all of it"};
    return {harnessShareFor(shipped->components, rows, gpus),
            "estimated for " + std::to_string(rows) + (rows == 1 ? " row" : " rows") + " on " +
                std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") + " from " +
                std::to_string(shipped->components.sources) + " published sources"};
}

double fitGpuRateFactor(const std::function<double(double factor)>& mean_log_error) {
    // A GPU's own deviation from the shared parameters stays within 4x either way (what the
    // profile loader accepts); past that the rows say something the model does not hold.
    constexpr double kMaxFactor = 4;
    const double lo = std::log(1 / kMaxFactor), hi = std::log(kMaxFactor);
    const double at_lo = mean_log_error(std::exp(lo)), at_hi = mean_log_error(std::exp(hi));
    if (!(std::abs(at_lo - at_hi) > 1e-9))
        return 1; // nothing these items predict runs on the GPU's kernels
    if (at_hi >= 0)
        return kMaxFactor;
    if (at_lo <= 0)
        return 1 / kMaxFactor;
    // 1e-5 in log space: far below a percent, and 20 steps.
    return roundToSignificant(
        bisectInLogSpace(1 / kMaxFactor, kMaxFactor, 1e-5, 64,
                         [&](double factor) { return mean_log_error(factor) > 0; }),
        5);
}

double fitGpuRateFactor(const std::function<std::vector<double>(double factor)>& log_errors,
                        const GpuFactorPrior& prior) {
    const auto mean = [&](double f) {
        const std::vector<double> r = log_errors(f);
        double sum = 0;
        for (double v : r)
            sum += v;
        return r.empty() ? 0.0 : sum / static_cast<double>(r.size());
    };
    if (!(prior.prior_sigma > 0 && prior.noise_sigma > 0))
        return fitGpuRateFactor(mean);
    if (!(std::abs(mean(0.25) - mean(4.0)) > 1e-9))
        return 1; // nothing these items predict runs on the GPU's kernels
    const double noise2 = prior.noise_sigma * prior.noise_sigma;
    const double prior2 = prior.prior_sigma * prior.prior_sigma;
    return minimizeGpuRateFactor([&](double f) {
        double sum = 0;
        for (double v : log_errors(f))
            sum += v * v;
        const double x = std::log(f);
        return sum / noise2 + x * x / prior2;
    });
}

GpuFactorPrior shippedGpuFactorPrior() {
    const PinVariance* shipped = shippedPinVariance();
    if (!shipped)
        return {};
    // The GPU part is there to reproduce the user's rows, not the model's own spread within a
    // GPU and precision (sigma_w, 0.12): a row's noise is the measurement's, a throughput
    // benchmark's run-to-run 2 %. The prior then only holds a factor the rows hardly move.
    constexpr double kMeasurementNoise = 0.02;
    return {std::sqrt(shipped->components.sigma_g2), kMeasurementNoise};
}

double minimizeGpuRateFactor(const std::function<double(double factor)>& error) {
    const double best = roundToSignificant(goldenSectionInLogSpace(0.25, 4.0, 1e-4, error), 5);
    return error(best) < error(1.0) ? best : 1.0;
}

FitSpec softwareFitSpec(const SoftwareProfile& base, const std::string& key,
                        const std::vector<std::string>& fields, double prior_weight) {
    FitSpec spec;
    spec.file = "(iterscope-cli fit)";
    spec.prior_weight = prior_weight;
    spec.group_limit_percent = 1e9; // the mean error alone: a person's rows are one group
    spec.loss = FitLoss::LogRatio;
    std::set<std::string> seen;
    for (const std::string& field : fields) {
        const FitFieldBounds b = fitFieldBounds(field);
        if (!seen.insert(field).second)
            continue;
        FitParameter p;
        p.name = field;
        p.field = field;
        p.profiles = {key};
        getFitParameterField(base, field, p.prior);
        p.min = std::min(b.min, p.prior);
        p.max = std::max(b.max, p.prior);
        p.prior_scale = std::max(std::abs(p.prior) / 2, b.floor);
        spec.parameters.push_back(p);
    }
    return spec;
}

SoftwareProfile withFitValues(SoftwareProfile profile, const FitSpec& spec,
                              const std::vector<double>& values) {
    for (std::size_t i = 0; i < spec.parameters.size() && i < values.size(); ++i)
        setFitParameterField(profile, spec.parameters[i].field, values[i]);
    return profile;
}

SoftwareFitReport runSoftwareFit(const SoftwareProfile& base, FitSpec spec,
                                 const SoftwareFitHooks& hooks, const std::string& file) {
    const std::size_t n = hooks.ids.size();
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i)
        all[i] = i;
    SoftwareFitReport report;
    report.error_measure = hooks.error_measure;
    const std::vector<double> before = hooks.predict(base, all);

    // A field no item's prediction moves with would only drift with the penalty's whim.
    std::vector<FitParameter> kept;
    for (const FitParameter& p : spec.parameters) {
        SoftwareProfile moved = base;
        const double up = p.prior > 0 ? p.prior * 1.1 : p.prior + p.prior_scale;
        setFitParameterField(moved, p.field, up <= p.max ? up : p.prior / 1.1);
        const std::vector<double> after = hooks.predict(moved, all);
        bool moves = false;
        for (std::size_t i = 0; i < n; ++i)
            moves = moves || std::abs(after[i] - before[i]) > 1e-9 * std::abs(before[i]);
        if (moves)
            kept.push_back(p);
        else
            report.undetermined.push_back(p.field);
    }
    if (kept.empty())
        throw InputError(file + ": no parameter asked for changes the prediction of these " +
                         "measurements; nothing to fit");
    spec.parameters = kept;

    const FitResult fit = hooks.descend(spec, all);
    // The pull toward the base keeps a fit inside the bounds even when the measurements
    // cannot be reached there; so each parameter is asked on its own whether the
    // measurements keep getting closer all the way to its bound and past it. Closeness is
    // the mean |ln(measured / predicted)|, which does not flatten far from the data as a
    // percentage error does.
    const auto logError = [&](const std::vector<double>& values) {
        const std::vector<double> p = hooks.predict(withFitValues(base, spec, values), all);
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += p[i] > 0 ? std::abs(std::log(hooks.measured[i] / p[i])) : 1e3;
        return sum / static_cast<double>(n);
    };
    const double at_fit = logError(fit.values);
    for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
        const FitParameter& p = spec.parameters[i];
        for (const bool up : {true, false}) {
            const double bound = up ? p.max : p.min;
            if (!up && bound <= 0)
                continue; // nothing lies below zero
            std::vector<double> at = fit.values, past = fit.values;
            at[i] = bound;
            past[i] = up ? bound * 1.05 : bound / 1.05;
            const double at_bound = logError(at);
            if (at_bound <= at_fit + 1e-12 && logError(past) < at_bound - kBoundPressure)
                throw InputError(file + ": these measurements need " + p.field + " " +
                                 (up ? "above " : "below ") + number(bound) +
                                 ", past the bound a real stack lies within (the base has " +
                                 number(p.prior) + "): the model cannot reach them by this " +
                                 "parameter; check the rows, or fit other --parameters");
        }
    }
    // What is reported and predicted is what the profile will hold: six significant digits.
    std::vector<double> written = fit.values;
    for (double& v : written)
        v = roundToSignificant(v, 6);
    // The pin's split: other GPUs carry the shared change shrunk toward the base by the
    // harness share; the measured GPUs' own factors are fitted after it, on the same items.
    const double share = std::clamp(hooks.harness_share, 0.0, 1.0);
    report.harness_share = share;
    report.harness_share_basis = hooks.harness_share_basis;
    report.gpus = hooks.gpus;
    const auto carriedValues = [&](const std::vector<double>& values) {
        std::vector<double> carried(values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            carried[i] = roundToSignificant(
                spec.parameters[i].prior + share * (values[i] - spec.parameters[i].prior), 6);
        return carried;
    };
    const auto pinned = [&](const std::vector<double>& values,
                            const std::vector<std::size_t>& train,
                            std::vector<GpuCorrectionFit>* found) {
        SoftwareProfile shrunk = withFitValues(base, spec, carriedValues(values));
        return hooks.gpu_part ? hooks.gpu_part(std::move(shrunk), train, found) : shrunk;
    };
    const std::vector<double> carried = carriedValues(written);
    report.fitted = pinned(written, all, &report.gpu_corrections);
    for (std::size_t i = 0; i < spec.parameters.size(); ++i)
        report.fields.push_back(
            {spec.parameters[i].field, spec.parameters[i].prior, written[i], carried[i]});
    const std::vector<double> after = hooks.predict(report.fitted, all);

    const std::size_t folds = std::min(n, n <= 30 ? n : kMaxHeldOutFolds);
    report.held_out_by =
        folds == n ? "leaving one row out" : "in " + std::to_string(folds) + " folds";
    std::vector<double> held_out(n, 0.0);
    // Several folds at once, each a whole fit; the first error stops the others' results.
    parallelFor(folds, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
                [&](std::size_t f) {
                    std::vector<std::size_t> train, test;
                    for (std::size_t i = 0; i < n; ++i)
                        (i % folds == f ? test : train).push_back(i);
                    const FitResult part = hooks.descend(spec, train);
                    const std::vector<double> predicted =
                        hooks.predict(pinned(part.values, train, nullptr), test);
                    for (std::size_t k = 0; k < test.size(); ++k)
                        held_out[test[k]] = predicted[k];
                });

    for (std::size_t i = 0; i < n; ++i)
        report.rows.push_back({hooks.ids[i], hooks.measured[i], before[i], after[i], held_out[i]});
    report.error_before = hooks.error(before, all);
    report.error_after = hooks.error(after, all);
    report.error_held_out = hooks.error(held_out, all);

    if (hooks.log_ratio) {
        std::vector<double> r;
        for (std::size_t i = 0; i < n; ++i)
            r.push_back(hooks.log_ratio(i, held_out[i]));
        // The shipped bands' rule: the conformal quantile of the held-out log errors.
        report.band.rows = static_cast<int>(n);
        report.band.half_width_log = conformalHalfWidth(r, kBandCoverage);
        report.band.architectures = hooks.architectures;
        report.band.basis = "ln(measured / predicted throughput) of " + std::to_string(n) +
                            " rows of " + file + ", each predicted by a fit " + report.held_out_by;
    }
    return report;
}

SoftwareFitReport fitToMeasurements(const std::vector<ValidationRow>& rows,
                                    const ValidationResolver& resolver, const SoftwareProfile& base,
                                    const SoftwareFitOptions& options, const std::string& file) {
    if (rows.empty())
        throw InputError(file + ": no measurement rows");
    const std::string key = base.id.empty() ? std::string("base") : base.id;
    std::vector<ValidationRow> own = rows;
    for (ValidationRow& r : own)
        r.software = key;
    ValidationResolver with_base = resolver;
    with_base.software = [base](const std::string&) { return base; };
    FitProblem problem;
    try {
        problem = makeFitProblem(own, with_base);
    } catch (const InputError& e) {
        throw InputError(file + ": " + e.what());
    }
    std::set<std::string> architectures;
    for (std::size_t i = 0; i < own.size(); ++i) {
        Prediction p;
        try {
            p = predict(problem.scenarios[i], PredictDetail::Totals);
        } catch (const InputError& e) {
            throw InputError(file + ": row " + own[i].id + ": " + e.what());
        }
        if (!p.fits_in_memory)
            throw InputError(file + ": row " + own[i].id + ": batch " +
                             std::to_string(own[i].batch_per_gpu) + " of " + own[i].network +
                             " does not fit in the memory of " + own[i].gpu + " (the model needs " +
                             number(static_cast<double>(p.memory_per_gpu_bytes) / (1 << 30)) +
                             " GiB)");
        architectures.insert(problem.scenarios[i].gpu.architecture);
    }
    SoftwareFitHooks hooks;
    for (const ValidationRow& r : own) {
        hooks.ids.push_back(r.id);
        hooks.measured.push_back(r.measured);
    }
    hooks.predict = [&](const SoftwareProfile& profile, const std::vector<std::size_t>& subset) {
        return predictRows(problem, subset, {{key, profile}});
    };
    hooks.error = [&](const std::vector<double>& predicted,
                      const std::vector<std::size_t>& subset) {
        return scoreRows(problem, subset, predicted, 1e9).mape;
    };
    hooks.descend = [&](const FitSpec& spec, const std::vector<std::size_t>& train) {
        return fitParameters(spec, problem, train);
    };
    hooks.log_ratio = [&](std::size_t i, double predicted) {
        return throughputLogRatio(own[i], predicted);
    };
    hooks.architectures.assign(architectures.begin(), architectures.end());
    std::set<std::string> gpus;
    for (const Scenario& s : problem.scenarios)
        gpus.insert(s.gpu.id);
    hooks.gpus.assign(gpus.begin(), gpus.end());
    const HarnessShareChoice share = chooseHarnessShare(
        options.harness_share, static_cast<int>(own.size()), static_cast<int>(gpus.size()));
    hooks.harness_share = share.share;
    hooks.harness_share_basis = share.basis;
    const GpuFactorPrior factor_prior =
        options.gpu_prior.prior_sigma < 0 || options.gpu_prior.noise_sigma < 0
            ? shippedGpuFactorPrior()
            : options.gpu_prior;
    if (options.gpu_part)
        hooks.gpu_part = [&](SoftwareProfile profile, const std::vector<std::size_t>& train,
                             std::vector<GpuCorrectionFit>* found) {
            // One factor per (GPU, precision) of the training rows, each fitted with the
            // others' already in place (they touch other scenarios only).
            std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;
            for (std::size_t i : train)
                groups[{problem.scenarios[i].gpu.id, precisionName(problem.scenarios[i].precision)}]
                    .push_back(i);
            // Named references, not structured bindings: clang 14 (the fuzz build) cannot
            // capture a binding in the lambda below.
            for (const auto& group : groups) {
                const std::string& gpu = group.first.first;
                const std::string& precision = group.first.second;
                const std::vector<std::size_t>& items = group.second;
                const double factor = fitGpuRateFactor(
                    [&](double f) {
                        SoftwareProfile trial = profile;
                        trial.gpu_corrections[gpu][precision] = f;
                        const std::vector<double> p = predictRows(problem, items, {{key, trial}});
                        std::vector<double> r(items.size());
                        for (std::size_t k = 0; k < items.size(); ++k)
                            r[k] = hooks.log_ratio(items[k], p[k]);
                        return r;
                    },
                    factor_prior);
                profile.gpu_corrections[gpu][precision] = factor;
                if (found)
                    found->push_back({gpu, precision, static_cast<int>(items.size()), factor});
            }
            return profile;
        };
    const double per_row =
        options.prior_weight < 0 ? kDefaultPriorWeightPerRow : options.prior_weight;
    const std::vector<std::string>& fields =
        options.fields.empty() ? defaultMeasurementFitFields() : options.fields;
    // The table measured pins of kMinPinRows rows or more, fitted as by default: the default
    // fields, the estimated share, the default prior and each GPU's own part. Any other pin
    // moves other GPUs differently and has not been measured, so it keeps the shipped band.
    const std::vector<std::string>& default_fields = defaultMeasurementFitFields();
    const bool as_measured = options.harness_share < 0 && options.prior_weight < 0 &&
                             options.gpu_part &&
                             std::is_permutation(fields.begin(), fields.end(),
                                                 default_fields.begin(), default_fields.end()) &&
                             own.size() >= static_cast<std::size_t>(kMinPinRows);
    const PinVariance* shipped = shippedPinVariance();
    const double band_scale = as_measured && shipped ? shipped->other_gpus_band_scale : 1.0;
    const FitSpec spec =
        softwareFitSpec(base, key, fields, per_row / static_cast<double>(own.size()));
    SoftwareFitReport report = runSoftwareFit(base, spec, hooks, file);
    report.other_gpus_band_scale = band_scale;
    return report;
}

std::string fittedProfileJson(const std::string& base_text, const std::string& base_file,
                              const SoftwareFitReport& fit, const std::string& id,
                              const std::string& name, const std::string& source) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(base_text);
    const std::string base_id = doc.value("id", std::string());
    doc["id"] = id;
    doc["name"] = name;
    doc["source"] = source;
    for (const FittedField& f : fit.fields)
        doc[f.field] = roundToSignificant(f.carried, 6);
    // Every GPU's own part: the base's, with this fit's GPUs replaced.
    const auto writeCorrections =
        [&](const char* key, const std::map<std::string, std::map<std::string, double>>& by_gpu) {
            doc.erase(key);
            if (by_gpu.empty())
                return;
            nlohmann::ordered_json corrections = nlohmann::ordered_json::object();
            for (const auto& [gpu, by_precision] : by_gpu)
                for (const auto& [precision, factor] : by_precision)
                    corrections[gpu][precision] = factor;
            doc[key] = corrections;
        };
    writeCorrections("gpu_corrections", fit.fitted.gpu_corrections);
    writeCorrections("gpu_memory_corrections", fit.fitted.gpu_memory_corrections);
    // What the fit was made of, for the front ends to say (a GUI line, a comparison with
    // the profile it started from).
    doc["fitted_to"] = {{"base", base_id},
                        {"rows", static_cast<int>(fit.rows.size())},
                        {"gpus", fit.gpus},
                        {"harness_share", roundToSignificant(fit.harness_share, 4)}};
    if (fit.other_gpus_band_scale != 1)
        doc["fitted_to"]["other_gpus_band_scale"] =
            roundToSignificant(fit.other_gpus_band_scale, 4);
    // A band the base carried was about the base's rows, not these.
    doc.erase("error_band");
    if (fit.band.rows > 0)
        doc["error_band"] = {{"rows", fit.band.rows},
                             {"half_width_log", roundToSignificant(fit.band.half_width_log, 4)},
                             {"architectures", fit.band.architectures},
                             {"basis", fit.band.basis.substr(0, 2000)}};
    const std::string text = doc.dump(2) + "\n";
    parseSoftwareProfile(text, base_file + " (fitted)"); // what is written must load back
    return text;
}

double roundToSignificant(double v, int digits) {
    if (v == 0 || !std::isfinite(v))
        return v;
    // Printed and read back, so that a file shows 2.28, not 2.2800000000000002.
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", std::clamp(digits, 1, 17), v);
    return std::strtod(text, nullptr);
}

} // namespace iterscope
