#include "fitting/fit_evaluator.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace iterscope {

namespace {

// Parameters move in log space; a bound at zero is taken as this fraction of the upper one.
constexpr double kLogFloorShare = 1e-4;
constexpr double kJacobianStep = 0.01; // 1% of a parameter, in log space
constexpr int kMaxIterations = 40;
// Log errors beyond this weigh linearly, not quadratically (Huber): a row the model cannot
// describe must not drag every parameter toward it.
constexpr double kHuberLog = 0.08;

double logFloor(const FitParameter& p) {
    return p.min > 0 ? p.min : std::max(p.max * kLogFloorShare, 1e-12);
}

// Solves (A + lambda diag(A)) x = b by Gaussian elimination with partial pivoting; false
// for a singular system.
bool solveDamped(std::vector<std::vector<double>> a, std::vector<double> b, double lambda,
                 std::vector<double>& x) {
    const std::size_t n = b.size();
    for (std::size_t i = 0; i < n; ++i)
        a[i][i] += lambda * std::max(a[i][i], 1e-12);
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c]))
                pivot = r;
        if (std::abs(a[pivot][c]) < 1e-300)
            return false;
        std::swap(a[c], a[pivot]);
        std::swap(b[c], b[pivot]);
        for (std::size_t r = c + 1; r < n; ++r) {
            const double f = a[r][c] / a[c][c];
            for (std::size_t k = c; k < n; ++k)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    x.assign(n, 0.0);
    for (std::size_t c = n; c-- > 0;) {
        double s = b[c];
        for (std::size_t k = c + 1; k < n; ++k)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return true;
}

double huberWeight(double r) {
    return std::abs(r) <= kHuberLog ? 1.0 : kHuberLog / std::abs(r);
}

double robustCost(const std::vector<double>& r) {
    double s = 0;
    for (double v : r)
        s += std::abs(v) <= kHuberLog ? 0.5 * v * v : kHuberLog * (std::abs(v) - 0.5 * kHuberLog);
    return s;
}

} // namespace

FitEvaluator::FitEvaluator(const FitSpec& spec, const FitProblem& problem,
                           const std::vector<std::size_t>& train, const std::vector<double>& values)
    : m_spec(spec)
    , m_problem(problem)
    , m_train(train)
    , m_values(values) {
    for (std::size_t k = 0; k < train.size(); ++k)
        m_train_of_profile[problem.rows[train[k]].software].push_back(k);
    m_predicted = predictRows(problem, train, applyFit(spec, values, problem.baseline));
    ++m_evaluations;
}

const std::vector<double>& FitEvaluator::predict(const std::vector<double>& values) {
    ++m_evaluations;
    const std::vector<double> before = effectiveValues(m_spec, m_values);
    const std::vector<double> after = effectiveValues(m_spec, values);
    std::set<std::string> touched;
    for (std::size_t i = 0; i < m_spec.parameters.size(); ++i)
        if (before[i] != after[i])
            touched.insert(m_spec.parameters[i].profiles.begin(),
                           m_spec.parameters[i].profiles.end());
    const auto profiles = applyFit(m_spec, values, m_problem.baseline);
    m_candidate = m_predicted;
    for (const std::string& id : touched) {
        const auto it = m_train_of_profile.find(id);
        if (it == m_train_of_profile.end())
            continue;
        std::vector<std::size_t> rows;
        for (std::size_t k : it->second)
            rows.push_back(m_train[k]);
        const std::vector<double> again = predictRows(m_problem, rows, profiles);
        for (std::size_t j = 0; j < it->second.size(); ++j)
            m_candidate[it->second[j]] = again[j];
    }
    return m_candidate;
}

void FitEvaluator::accept(const std::vector<double>& values, const std::vector<double>& predicted) {
    m_values = values;
    m_predicted = predicted;
}

namespace {
// How the prior's deviation moves with the parameter's logarithm (priorDeviation): 1 in
// log space, value / prior_scale when it is linear.
double deviationSlope(const FitParameter& p, double value) {
    return p.prior_scale > 0 ? value / p.prior_scale : 1.0;
}
} // namespace

std::vector<double> logErrors(const FitProblem& problem, const std::vector<std::size_t>& train,
                              const std::vector<double>& predicted) {
    std::vector<double> r(train.size());
    for (std::size_t k = 0; k < train.size(); ++k)
        r[k] = std::log(std::max(predicted[k], 1e-300) / problem.rows[train[k]].measured);
    return r;
}

std::vector<double> leastSquaresStart(const FitSpec& spec, const FitProblem& problem,
                                      const std::vector<std::size_t>& train,
                                      const std::vector<std::size_t>& free,
                                      FitEvaluator& evaluator) {
    std::vector<double> values = evaluator.acceptedValues();
    if (free.empty() || train.empty())
        return values;
    const std::size_t n = free.size();
    auto toLog = [&](std::size_t j, double v) {
        return std::log(std::max(v, logFloor(spec.parameters[free[j]])));
    };
    auto clampToBounds = [&](std::size_t j, double log_v) {
        const FitParameter& p = spec.parameters[free[j]];
        return std::clamp(std::exp(log_v), p.min, p.max);
    };
    // The prior penalty in the robust cost's units: near the Huber corner a row costs
    // kHuberLog x |r|, which is 100 |r| / rows percentage points of the objective.
    const double kappa =
        2 * spec.prior_weight * kHuberLog * static_cast<double>(train.size()) / 100.0;
    auto priorCost = [&](const std::vector<double>& v) {
        double c = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double d = priorDeviation(spec.parameters[free[j]], v[free[j]]);
            c += 0.5 * kappa * d * d;
        }
        return c;
    };
    std::vector<double> r = logErrors(problem, train, evaluator.acceptedPredictions());
    double cost = robustCost(r) + priorCost(values);
    double lambda = 1e-2;
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
        // The Jacobian of the log errors in the parameters' logarithms, by forward steps.
        std::vector<std::vector<double>> jac(n, std::vector<double>(r.size(), 0.0));
        for (std::size_t j = 0; j < n; ++j) {
            std::vector<double> moved = values;
            const double log_v = toLog(j, values[free[j]]);
            const FitParameter& p = spec.parameters[free[j]];
            double step = kJacobianStep;
            double next = clampToBounds(j, log_v + step);
            if (next == values[free[j]]) { // at the upper bound: step down instead
                step = -kJacobianStep;
                next = clampToBounds(j, log_v + step);
            }
            if (next == values[free[j]] || next < p.min || next > p.max)
                continue;
            moved[free[j]] = next;
            std::vector<double> rj;
            try {
                rj = logErrors(problem, train, evaluator.predict(moved));
            } catch (const InputError&) {
                continue;
            }
            const double actual_step = toLog(j, next) - log_v;
            for (std::size_t k = 0; k < r.size(); ++k)
                jac[j][k] = (rj[k] - r[k]) / actual_step;
        }
        // Normal equations of the Huber-weighted problem.
        std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
        std::vector<double> g(n, 0.0);
        for (std::size_t k = 0; k < r.size(); ++k) {
            const double w = huberWeight(r[k]);
            for (std::size_t i = 0; i < n; ++i) {
                if (jac[i][k] == 0)
                    continue;
                g[i] -= w * jac[i][k] * r[k];
                for (std::size_t j = i; j < n; ++j)
                    a[i][j] += w * jac[i][k] * jac[j][k];
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < i; ++j)
                a[i][j] = a[j][i];
        for (std::size_t j = 0; j < n; ++j) { // the prior's residual, one per parameter
            const FitParameter& p = spec.parameters[free[j]];
            const double slope = deviationSlope(p, values[free[j]]);
            a[j][j] += kappa * slope * slope;
            g[j] -= kappa * slope * priorDeviation(p, values[free[j]]);
        }
        bool improved = false;
        for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
            std::vector<double> delta;
            if (!solveDamped(a, g, lambda, delta)) {
                lambda *= 10;
                continue;
            }
            std::vector<double> trial = values;
            for (std::size_t j = 0; j < n; ++j)
                trial[free[j]] = clampToBounds(j, toLog(j, values[free[j]]) + delta[j]);
            std::vector<double> predicted;
            try {
                predicted = evaluator.predict(trial);
            } catch (const InputError&) {
                lambda *= 10;
                continue;
            }
            const std::vector<double> rt = logErrors(problem, train, predicted);
            const double c = robustCost(rt) + priorCost(trial);
            if (c < cost - 1e-12) {
                evaluator.accept(trial, predicted);
                values = trial;
                r = rt;
                improved = c > cost * (1 - 1e-6) ? false : true;
                cost = c;
                lambda = std::max(lambda / 3, 1e-7);
                if (!improved)
                    return values; // converged: no meaningful gain
            } else {
                lambda *= 4;
            }
        }
        if (!improved)
            break;
    }
    return values;
}

} // namespace iterscope
