#include "fitting/published_fit.h"

#include "fitting/fit_evaluator.h"

#include "util/error.h"
#include "util/parallel_for.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace iterscope {

namespace {

std::string groupKey(const ValidationRow& r) {
    return r.source + '\n' + r.gpu + '\n' + r.sync;
}

} // namespace

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
                   const std::vector<double>& predicted, double group_limit_percent, FitLoss loss) {
    FitScore score;
    if (rows.empty())
        return score;
    struct Group {
        double ape = 0, loss = 0;
        int rows = 0;
    };
    std::map<std::string, Group> groups;
    double total_ape = 0, total_loss = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const ValidationRow& row = problem.rows[rows[k]];
        const double ape = std::abs(predicted[k] - row.measured) / row.measured * 100.0;
        // A prediction of nothing is as far off as a log ratio can say: charge it its APE
        // (100) rather than infinity, so that a descent step into it is refused, not fatal.
        const double miss = loss == FitLoss::LogRatio && predicted[k] > 0
                                ? std::abs(std::log(predicted[k] / row.measured)) * 100.0
                                : ape;
        total_ape += ape;
        total_loss += miss;
        Group& g = groups[groupKey(row)];
        g.ape += ape;
        g.loss += miss;
        ++g.rows;
    }
    const double n = static_cast<double>(rows.size());
    score.mape = total_ape / n;
    // Every group over the limit costs the square of its excess (in percentage points,
    // per 10 points): a group just over it weighs little against the rows as a whole, one
    // far over it a lot, and no single worst group steers the whole fit.
    double excess = 0;
    for (const auto& [key, g] : groups) {
        score.worst_group = std::max(score.worst_group, g.ape / g.rows);
        const double over = std::max(0.0, g.loss / g.rows - group_limit_percent);
        excess += over * over / 10.0;
    }
    score.objective = total_loss / n + excess;
    return score;
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
            FitScore score =
                scoreRows(problem, train, candidate, spec.group_limit_percent, spec.loss);
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
