#include "fitting/search.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>

namespace iterscope {

namespace {

constexpr double kFirstStep = 0.2;
constexpr double kLastStep = 0.005;
constexpr int kMaxRoundsPerStep = 30;

} // namespace

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

double bisectInLogSpace(double lo, double hi, double log_tolerance, int max_steps,
                        const std::function<bool(double x)>& root_above) {
    double a = std::log(lo), b = std::log(hi);
    for (int i = 0; i < max_steps && b - a > log_tolerance; ++i) {
        const double mid = (a + b) / 2;
        (root_above(std::exp(mid)) ? a : b) = mid;
    }
    return std::exp((a + b) / 2);
}

double goldenSectionInLogSpace(double lo, double hi, double log_tolerance,
                               const std::function<double(double x)>& error) {
    const double golden = (std::sqrt(5.0) - 1) / 2;
    double a = std::log(lo), b = std::log(hi);
    double x1 = b - golden * (b - a), x2 = a + golden * (b - a);
    double f1 = error(std::exp(x1)), f2 = error(std::exp(x2));
    while (b - a > log_tolerance) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - golden * (b - a);
            f1 = error(std::exp(x1));
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + golden * (b - a);
            f2 = error(std::exp(x2));
        }
    }
    return std::exp((a + b) / 2);
}

} // namespace iterscope
