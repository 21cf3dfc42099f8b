// Fitting the software profiles' few free parameters on published measurements as a whole,
// and cross-validating that fit (docs/validation.md "How the fit is made"). One procedure,
// rerunnable with iterscope-fit: a spec file names each fitted scalar, the profiles it
// applies to, its documented prior and its bounds; the fit minimises the mean absolute
// percentage error of every row plus the excess of the worst (source, gpu, sync) group over
// a limit. The shipped model never reads measurements: fitted values are written into the
// profiles' JSON files, where a reviewer sees them change.
#pragma once

#include "validation/validation.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace iterscope {

// One fitted scalar: `field` of every profile in `profiles` takes its value.
struct FitParameter {
    std::string name;  // "cudnn8 tensor_core_efficiency"
    std::string field; // a numeric SoftwareProfile field (fitParameterFields())
    std::vector<std::string> profiles;
    double prior = 0; // where every fit starts: a documented value, never a fitted one
    double min = 0, max = 0;
    // When set, the name of an earlier parameter: this one is then a factor on it (prior 1:
    // no deviation), so a profile with no rows of its own keeps the shared value, and a
    // lower bound of 1 says a newer release is never worse than the one it extends.
    std::string relative_to;
    int relative_index = -1; // index of relative_to in FitSpec::parameters
    // How far from the prior a value may wander for FitSpec::prior_weight: the penalty is
    // prior_weight x ((value - prior) / prior_scale)^2; 0: prior_weight x ln(value/prior)^2,
    // the same for halving as for doubling.
    double prior_scale = 0;
};

struct FitSpec {
    std::string file;                      // where it was read from
    std::vector<std::string> measurements; // CSV paths, resolved against the spec's folder
    double group_limit_percent = 15;
    // Start the coordinate descent from a least-squares descent from the priors (true), or
    // from the priors themselves.
    bool least_squares_start = true;
    std::vector<FitParameter> parameters;
    // A pull toward the priors, in percentage points of the objective per unit of squared
    // deviation (FitParameter::prior_scale), so that a parameter moves far from its
    // documented value only where rows ask for it: a handful of a person's rows
    // (iterscope-cli fit) move what they determine, and a fold that leaves out a profile's
    // only source keeps documented values instead of drifting to a bound. 0: the objective
    // alone.
    double prior_weight = 0;
};

// Throws InputError naming the file and the field.
FitSpec readFitSpec(const std::string& path);
FitSpec parseFitSpec(const std::string& text, const std::string& file);

// The SoftwareProfile fields a spec may fit, by their JSON names.
const std::vector<std::string>& fitParameterFields();
// Sets one of them; false for an unknown name.
bool setFitParameterField(SoftwareProfile& profile, const std::string& field, double value);
bool getFitParameterField(const SoftwareProfile& profile, const std::string& field, double& value);

// Rows with their scenarios resolved once; only the software changes between evaluations.
struct FitProblem {
    std::vector<ValidationRow> rows;
    std::vector<Scenario> scenarios;                 // parallel to rows
    std::map<std::string, SoftwareProfile> baseline; // every software id the rows use
};
FitProblem makeFitProblem(const std::vector<ValidationRow>& rows,
                          const ValidationResolver& resolver);

struct FitScore {
    double mape = 0, worst_group = 0, objective = 0;
};

// The value each parameter gives its field: its own, or its factor times the value of the
// parameter it is relative to; efficiencies are capped at 1.
std::vector<double> effectiveValues(const FitSpec& spec, const std::vector<double>& values);

// The profiles with `values` (one per spec parameter) applied to their baselines.
std::map<std::string, SoftwareProfile> applyFit(const FitSpec& spec,
                                                const std::vector<double>& values,
                                                const std::map<std::string, SoftwareProfile>& base);

// Predicted value of every row (indices into problem.rows) with the given profiles.
std::vector<double> predictRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                                const std::map<std::string, SoftwareProfile>& profiles);

FitScore scoreRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                   const std::vector<double>& predicted, double group_limit_percent);

struct FitResult {
    std::vector<double> values; // one per spec parameter
    FitScore score;
    int evaluations = 0;
};

// The pull toward the priors of `values` (0 when spec.prior_weight is 0), and one
// parameter's deviation it squares.
double priorPenalty(const FitSpec& spec, const std::vector<double>& values);
double priorDeviation(const FitParameter& p, double value);

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

// Coordinate descent over multiplicative steps (20% halving to 0.5%), within each
// parameter's bounds, on the rows `train`, from where a least-squares descent from the
// priors leads (FitSpec::least_squares_start; fit_evaluator.h) or from the priors. A
// parameter whose profiles have no row in `train` keeps its prior. The objective is
// scoreRows' plus priorPenalty().
// `progress` (optional) hears every accepted step.
FitResult fitParameters(const FitSpec& spec, const FitProblem& problem,
                        const std::vector<std::size_t>& train,
                        const std::function<void(const FitResult&)>& progress = {});

// Leave-one-out cross-validation: for each distinct key (a source, a GPU, an architecture)
// fit on the rows without it, predict its rows. Returns every row's held-out prediction
// (parallel to problem.rows). `jobs` folds run at once.
enum class FoldKey { Source, Gpu, Architecture };
std::string foldKeyOf(const FitProblem& problem, std::size_t row, FoldKey key);
std::vector<double> crossValidate(const FitSpec& spec, const FitProblem& problem, FoldKey key,
                                  int jobs);

// One fold of that cross-validation: the rows of one key left out (test), the fit on the
// others (train). Kept so that what starts from a fold (the leave-one-GPU-in table,
// pin_table.h) reuses its fit instead of fitting it again.
struct CrossValidationFold {
    std::string key;
    std::vector<std::size_t> train, test; // indices into problem.rows
    FitResult fit;
};
// Every fold, in the order their keys first appear in the rows; `jobs` fitted at once.
std::vector<CrossValidationFold> fitFolds(const FitSpec& spec, const FitProblem& problem,
                                          FoldKey key, int jobs);
// Every row predicted by its own fold's fit (parallel to problem.rows): crossValidate's answer.
std::vector<double> heldOutPredictions(const FitSpec& spec, const FitProblem& problem,
                                       const std::vector<CrossValidationFold>& folds);

} // namespace iterscope
