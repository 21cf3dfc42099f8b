// The fitting engine: the searches every path from a measurement to a profile runs. A
// coordinate descent over a spec's parameters on any objective (the published fit, a
// person's rows, a trace), and one-parameter searches in log space (the calibrator's
// per-layer efficiencies, a pinned GPU's kernel-rate factor). A fit says what it measures
// the error by; the engine only moves the values.
#pragma once

#include "fitting/fit_spec.h"

#include <functional>
#include <vector>

namespace iterscope {

struct FitScore {
    double mape = 0, worst_group = 0, objective = 0;
};

struct FitResult {
    std::vector<double> values; // one per spec parameter
    FitScore score;
    int evaluations = 0;
};

// The descent fitParameters() runs, on any objective: from the priors, over the parameters
// `free` (indices into spec.parameters), within their bounds; `evaluate` scores a vector of
// values (an InputError from it rejects that step). The objective is evaluate's.
FitResult descendFromPriors(const FitSpec& spec, const std::vector<std::size_t>& free,
                            const std::function<FitScore(const std::vector<double>&)>& evaluate,
                            const std::function<void(const FitResult&)>& progress = {});
// The same descent from `start`; `accepted` (optional) hears every step it takes.
FitResult descend(const FitSpec& spec, const std::vector<std::size_t>& free,
                  const std::vector<double>& start,
                  const std::function<FitScore(const std::vector<double>&)>& evaluate,
                  const std::function<void(const std::vector<double>&)>& accepted,
                  const std::function<void(const FitResult&)>& progress = {});

// The x in [lo, hi] where `root_above(x)` turns false, by bisection in log space (a time
// goes as 1/efficiency, a rate as a factor): halves [ln lo, ln hi] toward the side the root
// lies on until it is narrower than `log_tolerance` or `max_steps` halvings are done, and
// returns the middle of what is left. The caller checks the ends first.
double bisectInLogSpace(double lo, double hi, double log_tolerance, int max_steps,
                        const std::function<bool(double x)>& root_above);

// The x in [lo, hi] with the smallest `error(x)`, by golden section in log space down to
// `log_tolerance`: the middle of the last bracket, for an error with one minimum there.
double goldenSectionInLogSpace(double lo, double hi, double log_tolerance,
                               const std::function<double(double x)>& error);

} // namespace iterscope
