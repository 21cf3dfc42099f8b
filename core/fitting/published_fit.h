// Fitting the software profiles' few free parameters on published measurements as a whole,
// and cross-validating that fit (docs/validation.md "How the fit is made"). One procedure,
// rerunnable with iterscope-fit: a spec file names each fitted scalar, the profiles it
// applies to, its documented prior and its bounds; the fit minimises the mean absolute
// percentage error of every row plus the excess of the worst (source, gpu, sync) group over
// a limit. The shipped model never reads measurements: fitted values are written into the
// profiles' JSON files, where a reviewer sees them change.
#pragma once

#include "fitting/search.h"
#include "validation/validation.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace iterscope {

// Rows with their scenarios resolved once; only the software changes between evaluations.
struct FitProblem {
    std::vector<ValidationRow> rows;
    std::vector<Scenario> scenarios;                 // parallel to rows
    std::map<std::string, SoftwareProfile> baseline; // every software id the rows use
};
FitProblem makeFitProblem(const std::vector<ValidationRow>& rows,
                          const ValidationResolver& resolver);

// The profiles with `values` (one per spec parameter) applied to their baselines.
std::map<std::string, SoftwareProfile> applyFit(const FitSpec& spec,
                                                const std::vector<double>& values,
                                                const std::map<std::string, SoftwareProfile>& base);

// Predicted value of every row (indices into problem.rows) with the given profiles.
std::vector<double> predictRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                                const std::map<std::string, SoftwareProfile>& profiles);

// The rows' MAPE and worst group's MAPE, and the objective: the mean `loss` (percent) with
// every (source, GPU, sync) group whose mean loss passes `group_limit_percent` charged the
// square of its excess.
FitScore scoreRows(const FitProblem& problem, const std::vector<std::size_t>& rows,
                   const std::vector<double>& predicted, double group_limit_percent,
                   FitLoss loss = FitLoss::Ape);

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
