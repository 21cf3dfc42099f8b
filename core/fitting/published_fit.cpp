#include "fitting/published_fit.h"

#include "fitting/fit_evaluator.h"

#include "hardware/profile_json.h"
#include "util/error.h"
#include "util/parallel_for.h"
#include "util/text_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace iterscope {

namespace {

constexpr std::uintmax_t kMaxSpecBytes = 1 << 20;
constexpr double kFirstStep = 0.2;
constexpr double kLastStep = 0.005;
constexpr int kMaxRoundsPerStep = 30;

using Field = double SoftwareProfile::*;

const std::vector<std::pair<std::string, Field>>& fieldTable() {
    static const std::vector<std::pair<std::string, Field>> table{
        {"per_layer_overhead_us", &SoftwareProfile::per_layer_overhead_us},
        {"kernel_gap_us", &SoftwareProfile::kernel_gap_us},
        {"optimizer_ops_per_tensor", &SoftwareProfile::optimizer_ops_per_tensor},
        {"conv_efficiency", &SoftwareProfile::conv_efficiency},
        {"fc_efficiency", &SoftwareProfile::fc_efficiency},
        {"tensor_core_efficiency", &SoftwareProfile::tensor_core_efficiency},
        {"tf32_efficiency", &SoftwareProfile::tf32_efficiency},
        {"gemm_k_half", &SoftwareProfile::gemm_k_half},
        {"winograd_speedup", &SoftwareProfile::winograd_speedup},
        {"memory_efficiency", &SoftwareProfile::memory_efficiency},
        {"depthwise_efficiency", &SoftwareProfile::depthwise_efficiency},
        {"input_gpu_us_per_image", &SoftwareProfile::input_gpu_us_per_image},
        {"host_images_per_core_s", &SoftwareProfile::host_images_per_core_s},
        {"policy_augment_cost", &SoftwareProfile::policy_augment_cost},
        {"nccl_efficiency", &SoftwareProfile::nccl_efficiency},
        {"sync_jitter", &SoftwareProfile::sync_jitter},
        {"network_efficiency", &SoftwareProfile::network_efficiency},
        {"memcpy_efficiency", &SoftwareProfile::memcpy_efficiency},
        {"collective_hop_latency_us", &SoftwareProfile::collective_hop_latency_us},
        {"collective_base_latency_us", &SoftwareProfile::collective_base_latency_us},
    };
    return table;
}

Field findField(const std::string& name) {
    for (const auto& [n, f] : fieldTable())
        if (n == name)
            return f;
    return nullptr;
}

std::string groupKey(const ValidationRow& r) {
    return r.source + '\n' + r.gpu + '\n' + r.sync;
}

} // namespace

const std::vector<std::string>& fitParameterFields() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& entry : fieldTable())
            v.push_back(entry.first);
        return v;
    }();
    return names;
}

bool setFitParameterField(SoftwareProfile& profile, const std::string& field, double value) {
    const Field f = findField(field);
    if (!f)
        return false;
    profile.*f = value;
    return true;
}

bool getFitParameterField(const SoftwareProfile& profile, const std::string& field, double& value) {
    const Field f = findField(field);
    if (!f)
        return false;
    value = profile.*f;
    return true;
}

FitSpec parseFitSpec(const std::string& text, const std::string& file) {
    const nlohmann::json doc = profile_json::parseText(text, file);
    profile_json::Fields f(file, doc);
    f.header("iterscope-fit-spec", 1);
    f.text("description", "", 16384);
    FitSpec spec;
    spec.file = file;
    spec.group_limit_percent = f.number("group_limit_percent", 0, 1000, 15);
    spec.least_squares_start = f.boolean("least_squares_start", true);
    spec.prior_weight = f.number("prior_weight", 0, 1000, 0);
    const std::filesystem::path folder = std::filesystem::path(file).parent_path();
    const nlohmann::json* files = f.array("measurements", true);
    for (std::size_t i = 0; i < files->size(); ++i) {
        if (!(*files)[i].is_string())
            f.fail("measurements[" + std::to_string(i) + "]", "must be a file name");
        const std::filesystem::path p((*files)[i].get<std::string>());
        spec.measurements.push_back((p.is_absolute() ? p : folder / p).string());
    }
    if (spec.measurements.empty())
        f.fail("measurements", "names no file");
    const nlohmann::json* params = f.array("parameters", true);
    std::set<std::pair<std::string, std::string>> claimed; // (profile, field)
    for (std::size_t i = 0; i < params->size(); ++i) {
        const std::string where = "parameters[" + std::to_string(i) + "]";
        if (!(*params)[i].is_object())
            f.fail(where, "must be an object");
        profile_json::Fields p(file, (*params)[i], where + ".");
        FitParameter fp;
        fp.field = p.text("field", 64);
        if (!findField(fp.field))
            p.fail("field", "not a fittable software field: " + profile_json::quoted(fp.field));
        const nlohmann::json* profiles = p.array("profiles", true);
        for (const auto& id : *profiles) {
            if (!id.is_string() || !profile_json::isValidId(id.get<std::string>()))
                p.fail("profiles", "must list software profile ids");
            fp.profiles.push_back(id.get<std::string>());
            if (!claimed.insert({fp.profiles.back(), fp.field}).second)
                p.fail("profiles", "'" + fp.profiles.back() + "' already fits " + fp.field +
                                       " in an earlier parameter");
        }
        if (fp.profiles.empty())
            p.fail("profiles", "names no profile");
        fp.name = p.text("name", fp.field + " of " + fp.profiles.front(), 200);
        fp.relative_to = p.text("relative_to", "", 200);
        if (!fp.relative_to.empty()) {
            for (std::size_t j = 0; j < spec.parameters.size(); ++j)
                if (spec.parameters[j].name == fp.relative_to)
                    fp.relative_index = static_cast<int>(j);
            if (fp.relative_index < 0)
                p.fail("relative_to",
                       "names no earlier parameter: " + profile_json::quoted(fp.relative_to));
        }
        fp.min = p.number("min", 0, 1e6);
        fp.max = p.number("max", fp.min, 1e6);
        fp.prior = p.number("prior", fp.min, fp.max);
        p.text("why", "", 4096);
        p.finish();
        spec.parameters.push_back(std::move(fp));
    }
    f.finish();
    return spec;
}

FitSpec readFitSpec(const std::string& path) {
    return parseFitSpec(readBoundedFile(path, kMaxSpecBytes, "a fit spec"), path);
}

FitProblem makeFitProblem(const std::vector<ValidationRow>& rows,
                          const ValidationResolver& resolver) {
    FitProblem problem;
    problem.rows = rows;
    problem.scenarios.reserve(rows.size());
    for (const ValidationRow& row : rows) {
        try {
            problem.scenarios.push_back(scenarioForRow(row, resolver));
        } catch (const InputError& e) {
            throw InputError("row " + row.id + ": " + e.what());
        }
        problem.baseline.emplace(row.software, problem.scenarios.back().software);
    }
    return problem;
}

std::vector<double> effectiveValues(const FitSpec& spec, const std::vector<double>& values) {
    std::vector<double> out(values);
    for (std::size_t i = 0; i < spec.parameters.size() && i < values.size(); ++i) {
        const FitParameter& p = spec.parameters[i];
        if (p.relative_index >= 0)
            out[i] = values[i] * out[static_cast<std::size_t>(p.relative_index)];
        if (p.field.find("efficiency") != std::string::npos)
            out[i] = std::min(out[i], 1.0);
    }
    return out;
}

std::map<std::string, SoftwareProfile>
applyFit(const FitSpec& spec, const std::vector<double>& values,
         const std::map<std::string, SoftwareProfile>& base) {
    std::map<std::string, SoftwareProfile> out = base;
    const std::vector<double> effective = effectiveValues(spec, values);
    for (std::size_t i = 0; i < spec.parameters.size() && i < effective.size(); ++i)
        for (const std::string& id : spec.parameters[i].profiles) {
            auto it = out.find(id);
            if (it != out.end())
                setFitParameterField(it->second, spec.parameters[i].field, effective[i]);
        }
    return out;
}

std::vector<double> predictRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                                const std::map<std::string, SoftwareProfile>& profiles) {
    std::vector<double> predicted(rows.size(), 0.0);
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const std::size_t i = rows[k];
        Scenario s = problem.scenarios[i];
        s.software = profiles.at(problem.rows[i].software);
        predicted[k] = metricValue(predict(s, PredictDetail::Totals), problem.rows[i].metric);
    }
    return predicted;
}

FitScore scoreRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                   const std::vector<double>& predicted, double group_limit_percent) {
    FitScore score;
    if (rows.empty())
        return score;
    std::map<std::string, std::pair<double, int>> groups;
    double total = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const ValidationRow& row = problem.rows[rows[k]];
        const double ape = std::abs(predicted[k] - row.measured) / row.measured * 100.0;
        total += ape;
        auto& g = groups[groupKey(row)];
        g.first += ape;
        ++g.second;
    }
    score.mape = total / static_cast<double>(rows.size());
    // Every group over the limit costs the square of its excess (in percentage points,
    // per 10 points): a group just over it weighs little against the rows as a whole, one
    // far over it a lot, and no single worst group steers the whole fit.
    double excess = 0;
    for (const auto& [key, g] : groups) {
        const double mape = g.first / g.second;
        score.worst_group = std::max(score.worst_group, mape);
        const double over = std::max(0.0, mape - group_limit_percent);
        excess += over * over / 10.0;
    }
    score.objective = score.mape + excess;
    return score;
}

double priorDeviation(const FitParameter& p, double value) {
    if (p.prior_scale > 0)
        return (value - p.prior) / p.prior_scale;
    // In log space; a zero takes a small fraction of the upper bound in its place.
    const double floor = p.min > 0 ? p.min : std::max(p.max * 1e-4, 1e-12);
    return std::log(std::max(value, floor) / std::max(p.prior, floor));
}

double priorPenalty(const FitSpec& spec, const std::vector<double>& values) {
    if (spec.prior_weight <= 0)
        return 0;
    double sum = 0;
    for (std::size_t i = 0; i < spec.parameters.size() && i < values.size(); ++i) {
        const double d = priorDeviation(spec.parameters[i], values[i]);
        sum += d * d;
    }
    return spec.prior_weight * sum;
}

FitResult descend(const FitSpec& spec, const std::vector<std::size_t>& free,
                  const std::vector<double>& start,
                  const std::function<FitScore(const std::vector<double>&)>& evaluate,
                  const std::function<void(const std::vector<double>&)>& accepted,
                  const std::function<void(const FitResult&)>& progress) {
    FitResult result;
    result.values = start;
    auto count = [&](const std::vector<double>& values) {
        ++result.evaluations;
        return evaluate(values);
    };
    result.score = count(result.values);
    for (double step = kFirstStep; step >= kLastStep; step /= 2) {
        bool improved = true;
        for (int round = 0; improved && round < kMaxRoundsPerStep; ++round) {
            improved = false;
            for (std::size_t i : free) {
                const FitParameter& p = spec.parameters[i];
                for (double factor : {1 + step, 1 / (1 + step)}) {
                    const double old = result.values[i];
                    // A parameter at zero moves by its step in absolute terms.
                    double next = old > 0 ? old * factor : (factor > 1 ? step : 0.0);
                    next = std::clamp(next, p.min, p.max);
                    if (next == old)
                        continue;
                    result.values[i] = next;
                    FitScore s;
                    try {
                        s = count(result.values);
                    } catch (const InputError&) {
                        result.values[i] = old;
                        continue;
                    }
                    if (s.objective < result.score.objective - 1e-9) {
                        result.score = s;
                        if (accepted)
                            accepted(result.values);
                        improved = true;
                        if (progress)
                            progress(result);
                        break;
                    }
                    result.values[i] = old;
                }
            }
        }
    }
    return result;
}

FitResult descendFromPriors(const FitSpec& spec, const std::vector<std::size_t>& free,
                            const std::function<FitScore(const std::vector<double>&)>& evaluate,
                            const std::function<void(const FitResult&)>& progress) {
    std::vector<double> priors;
    for (const FitParameter& p : spec.parameters)
        priors.push_back(p.prior);
    return descend(spec, free, priors, evaluate, {}, progress);
}

FitResult fitParameters(const FitSpec& spec, const FitProblem& problem,
                        const std::vector<std::size_t>& train,
                        const std::function<void(const FitResult&)>& progress) {
    // A parameter is free only when a training row runs on one of its profiles.
    std::set<std::string> trained;
    for (std::size_t i : train)
        trained.insert(problem.rows[i].software);
    std::vector<std::size_t> free;
    for (std::size_t i = 0; i < spec.parameters.size(); ++i)
        for (const std::string& id : spec.parameters[i].profiles)
            if (trained.count(id)) {
                free.push_back(i);
                break;
            }
    std::vector<double> start;
    for (const FitParameter& p : spec.parameters)
        start.push_back(p.prior);
    // Least squares first, to move the parameters that trade off together into the right
    // valley; then coordinate descent on the objective itself from there. Only the rows of
    // the profiles a step touches are predicted again.
    FitEvaluator evaluator(spec, problem, train, start);
    if (spec.least_squares_start)
        start = leastSquaresStart(spec, problem, train, free, evaluator);
    std::vector<double> candidate;
    FitResult result = descend(
        spec, free, start,
        [&](const std::vector<double>& values) {
            candidate = evaluator.predict(values);
            FitScore score = scoreRows(problem, train, candidate, spec.group_limit_percent);
            score.objective += priorPenalty(spec, values);
            return score;
        },
        [&](const std::vector<double>& values) { evaluator.accept(values, candidate); }, progress);
    result.evaluations = evaluator.evaluations();
    return result;
}

std::string foldKeyOf(const FitProblem& problem, std::size_t row, FoldKey key) {
    switch (key) {
    case FoldKey::Source:
        return problem.rows[row].source;
    case FoldKey::Gpu:
        return problem.rows[row].gpu;
    case FoldKey::Architecture:
        return problem.scenarios[row].gpu.architecture;
    }
    return {};
}

std::vector<CrossValidationFold> fitFolds(const FitSpec& spec, const FitProblem& problem,
                                          FoldKey key, int jobs) {
    std::vector<CrossValidationFold> folds;
    for (std::size_t i = 0; i < problem.rows.size(); ++i) {
        const std::string k = foldKeyOf(problem, i, key);
        if (std::none_of(folds.begin(), folds.end(),
                         [&](const CrossValidationFold& f) { return f.key == k; }))
            folds.push_back({k, {}, {}, {}});
    }
    for (CrossValidationFold& f : folds)
        for (std::size_t i = 0; i < problem.rows.size(); ++i)
            (foldKeyOf(problem, i, key) == f.key ? f.test : f.train).push_back(i);
    // Each fold writes only its own result: the answer does not depend on `jobs`.
    parallelFor(folds.size(), jobs, [&](std::size_t f) {
        folds[f].fit = fitParameters(spec, problem, folds[f].train);
    });
    return folds;
}

std::vector<double> heldOutPredictions(const FitSpec& spec, const FitProblem& problem,
                                       const std::vector<CrossValidationFold>& folds) {
    std::vector<double> held_out(problem.rows.size(), 0.0);
    for (const CrossValidationFold& f : folds) {
        const auto predicted =
            predictRows(problem, f.test, applyFit(spec, f.fit.values, problem.baseline));
        for (std::size_t k = 0; k < f.test.size(); ++k)
            held_out[f.test[k]] = predicted[k];
    }
    return held_out;
}

std::vector<double> crossValidate(const FitSpec& spec, const FitProblem& problem, FoldKey key,
                                  int jobs) {
    return heldOutPredictions(spec, problem, fitFolds(spec, problem, key, jobs));
}

} // namespace iterscope
