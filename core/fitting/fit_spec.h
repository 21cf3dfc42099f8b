// What a fit fits: the spec of its free parameters (the software-profile field each one sets,
// the profiles it applies to, its documented prior and bounds) and the pull toward those
// priors. iterscope-fit reads one from tests/data/fit-spec.json; a fit to a person's rows
// or a trace makes one from the base profile (measurement_fit.h, softwareFitSpec).
#pragma once

#include "hardware/hardware.h"

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

// What a row's miss costs the fit. Ape, |predicted / measured - 1|, is the error the tables
// report, but as a loss it charges a prediction too fast more than one too slow by the same
// factor, so its optimum sits on the slow side (Tofallis, "A better measure of relative
// prediction accuracy for model selection and model estimation", J. Oper. Res. Soc. 66,
// 2015). LogRatio, |ln(predicted / measured)|, charges both alike.
enum class FitLoss { Ape, LogRatio };

struct FitSpec {
    std::string file;                      // where it was read from
    std::vector<std::string> measurements; // CSV paths, resolved against the spec's folder
    FitLoss loss = FitLoss::Ape;
    // Each group (source, GPU, sync) whose mean loss, in percent, passes this limit costs
    // the fit the square of its excess.
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

// The value each parameter gives its field: its own, or its factor times the value of the
// parameter it is relative to; efficiencies are capped at 1.
std::vector<double> effectiveValues(const FitSpec& spec, const std::vector<double>& values);

// The pull toward the priors of `values` (0 when spec.prior_weight is 0), and one
// parameter's deviation it squares.
double priorPenalty(const FitSpec& spec, const std::vector<double>& values);
double priorDeviation(const FitParameter& p, double value);

} // namespace iterscope
