// Fitting a software profile to what a person measured on their own stack (iterscope-cli
// fit, docs/calibrating.md): a few of the base profile's fitted parameters are refitted on
// their rows, starting from the base values and pulled toward them (fit_spec.h's prior
// penalty), so that one to three rows tighten the profile instead of running away. The pin
// then splits what it found: the shared parameters' change is shrunk toward the base by the
// harness share (what a harness's error shares across its GPUs, variance_components.h), and
// each measured GPU gets a kernel-rate factor per precision of its own, keyed by its id, so
// that other GPUs carry only the harness part. Every row is also predicted by a fit (all of
// it, split included) that did not see it; those residuals give the error
// before/after/left out and the new profile's own error band.
#pragma once

#include "fitting/published_fit.h"
#include "validation/validation.h"

#include <functional>
#include <string>
#include <vector>

namespace iterscope {

// Refitted unless told otherwise: what one or two throughput rows can determine (the
// kernel efficiency of each precision, element-wise traffic, the host's per-op cost).
const std::vector<std::string>& defaultMeasurementFitFields();
// For per-layer kernel times (fit --trace), which host costs do not touch.
const std::vector<std::string>& defaultTraceFitFields();

// Where a fitted value may go: a range a real stack lies in, and the smallest distance from
// the base that counts as moving it (for bases at 0). Throws InputError for a field that is
// not fittable (fitParameterFields()).
struct FitFieldBounds {
    double min = 0, max = 0, floor = 0;
};
FitFieldBounds fitFieldBounds(const std::string& field);

// The pull toward the base for a trace's layer kinds: moving a parameter by half its base
// value costs as much as one percentage point of mean error.
inline constexpr double kDefaultPriorWeight = 1.0;
// The same pull for measured rows, per row: moving a parameter by half its base value costs
// as much as this many percentage points of one row's error, so the weight on the mean error
// is this over the rows. The prior's weight stays as the rows' evidence grows with their
// number, so a few rows that disagree (two multi-GPU runs far below the card's own rate)
// move a shared efficiency less than many that agree. Chosen on the leave-one-GPU-in table
// (docs/validation.md) among 12, 24, 48 and 96: 24 and 48 within 0.2 points of each other on
// every measure, 12 and 96 worse (docs/calibrating.md gives the figures).
inline constexpr double kDefaultPriorWeightPerRow = 24.0;

struct FittedField {
    std::string field;
    double base = 0, fitted = 0;
    // What the written profile holds and every other GPU carries: base + harness_share x
    // (fitted - base) (docs/calibrating.md "A pin that knows what it pins").
    double carried = 0;
};

// A factor on one GPU's kernel rates at one precision (SoftwareProfile::gpu_corrections),
// fitted on that GPU's rows of that precision after the carried shared part.
struct GpuCorrectionFit {
    std::string gpu, precision;
    int rows = 0;
    double factor = 1;
    // Which kernels it applies to: every kernel (gpu_corrections), or only the memory-bound
    // ones on top of that (gpu_memory_corrections; a trace's per-kind times tell them apart).
    bool memory_bound_only = false;
};

// The share of a pin's shared-parameter change carried to other GPUs, and where it came
// from: `given` (capped at 1) when it is not negative; else the shipped empirical-Bayes
// estimate (profiles/pin-variance.json, variance_components.h) for a fit on `rows` rows over
// `gpus` GPUs, harnessShareFor; 1 (all of it, as fits did before the estimate shipped) when
// there is none.
struct HarnessShareChoice {
    double share = 1;
    std::string basis; // "given", or what the estimate rests on, for the reader
};
HarnessShareChoice chooseHarnessShare(double given, int rows, int gpus);

// The kernel-rate factor for `items` of one GPU and precision: the one at which the mean of
// `mean_log_error(factor)` (ln(measured / predicted throughput), falling as the factor
// grows) is 0, found by bisection in log space within [0.25, 4] and rounded to 5
// significant digits. 1 when the items do not move with it.
double fitGpuRateFactor(const std::function<double(double factor)>& mean_log_error);

// The same factor as the posterior mode under the pin's variance components: ln(factor) is a
// GPU's own effect, ~ N(0, prior_sigma^2) (sigma_g), and each item's
// `log_errors(factor)[k]` (ln(measured / predicted throughput)) carries noise
// ~ N(0, noise_sigma^2) (the measurement's). Items that
// hardly move with the factor (a run bound by its communication or its input) then leave it near 1
// instead of pushing it to a bound that another scenario of the GPU would pay for. Golden section
// in log space within [0.25, 4], rounded to 5 significant digits; 1 when the items do not move with
// it.
struct GpuFactorPrior {
    double prior_sigma = 0, noise_sigma = 0; // both > 0, else the plain root above
};
double fitGpuRateFactor(const std::function<std::vector<double>(double factor)>& log_errors,
                        const GpuFactorPrior& prior);
// The shipped variance components' (profiles/pin-variance.json) sigma_g, and a throughput
// measurement's noise (2 %); zeros when none shipped.
GpuFactorPrior shippedGpuFactorPrior();
// The same range searched for the factor with the smallest `error(factor)` (golden section
// in log space; 1 unless it is strictly better), for errors that are not a mean log ratio
// (fit --trace's time-weighted error).
double minimizeGpuRateFactor(const std::function<double(double factor)>& error);

struct FitRowResult {
    std::string id;
    double measured = 0;
    double before = 0, after = 0, held_out = 0; // predicted by the base, the fit, a fit without it
};

struct SoftwareFitReport {
    SoftwareProfile fitted; // the base with the fitted values (its id and name unchanged)
    std::vector<FittedField> fields;
    std::vector<std::string> undetermined; // asked for, but no row moves with them
    std::vector<FitRowResult> rows;
    std::string error_measure; // "MAPE", or for traces "time-weighted APE"
    std::string held_out_by;   // "leaving one row out", "in 20 folds"
    double error_before = 0, error_after = 0, error_held_out = 0; // percent
    SoftwareProfile::ErrorBand band;                              // rows 0 where none was made
    // The split of the pin: what other GPUs carry, and each measured GPU's own part.
    double harness_share = 1;
    std::string harness_share_basis; // where the share came from, for the reader
    std::vector<std::string> gpus;   // the GPU profile ids the items measured
    std::vector<GpuCorrectionFit> gpu_corrections;
    // The factor on the shipped band of a GPU the rows did not measure (the shipped
    // leave-one-GPU-in measurement, PinVariance::other_gpus_band_scale); 1 where the share,
    // the prior or other fields were given, the GPU part was off, or fewer than four rows
    // were fitted: the table measured pins of four rows or more fitted as by default.
    double other_gpus_band_scale = 1;
};

struct SoftwareFitOptions {
    std::vector<std::string> fields; // empty: the default for the kind of measurement
    // The pull toward the base (fit_spec.h): for fitToMeasurements per row (the mean error's
    // weight is this over the rows), for a trace on the mean error; negative: the default for
    // the kind (kDefaultPriorWeightPerRow, kDefaultPriorWeight).
    double prior_weight = -1;
    // 0..1: the share of the shared parameters' change the written profile keeps (and so
    // every other GPU carries); negative: chooseHarnessShare's estimate for the rows fitted.
    double harness_share = -1;
    // Fit each measured GPU's per-precision kernel-rate factor after the shared part.
    bool gpu_part = true;
    // Its prior (fitGpuRateFactor); negative sigmas: shippedGpuFactorPrior().
    GpuFactorPrior gpu_prior{-1, -1};
};

// What a fit is made of, whatever was measured: items with measured values, their
// prediction by a profile, the error of a set of them, and the descent itself (for
// validation rows, fitParameters on a FitProblem).
struct SoftwareFitHooks {
    std::vector<std::string> ids;
    std::vector<double> measured;
    std::function<std::vector<double>(const SoftwareProfile&, const std::vector<std::size_t>&)>
        predict;
    std::function<double(const std::vector<double>& predicted, const std::vector<std::size_t>&)>
        error;
    std::function<FitResult(const FitSpec&, const std::vector<std::size_t>& train)> descend;
    std::string error_measure = "MAPE";
    // ln(measured / predicted throughput) of an item, for the band; empty: no band.
    std::function<double(std::size_t item, double predicted)> log_ratio;
    std::vector<std::string> architectures; // of the items' GPUs
    // The pin's split: the fitted shared values are shrunk toward the base by this share
    // (base + share x (fit - base)), then `gpu_part` (optional) adds the measured GPUs' own
    // factors fitted on the items `train` with the shrunk profile, and says what it found.
    double harness_share = 1;
    std::string harness_share_basis;
    std::function<SoftwareProfile(SoftwareProfile shrunk, const std::vector<std::size_t>& train,
                                  std::vector<GpuCorrectionFit>* found)>
        gpu_part;
    std::vector<std::string> gpus; // of the items
};

// `profile` with each spec parameter's field set to its value (no cap: a value past a bound
// is what a bound check tries).
SoftwareProfile withFitValues(SoftwareProfile profile, const FitSpec& spec,
                              const std::vector<double>& values);

// The spec of the fit: one parameter per field on profile `key`, prior the base value.
FitSpec softwareFitSpec(const SoftwareProfile& base, const std::string& key,
                        const std::vector<std::string>& fields, double prior_weight);

// Runs a fit: drops the fields no item depends on, descends, refuses a field that presses
// against its bound (InputError naming `file`), predicts each item held out.
SoftwareFitReport runSoftwareFit(const SoftwareProfile& base, FitSpec spec,
                                 const SoftwareFitHooks& hooks, const std::string& file);

// The rows of a validation CSV (`file`) against `base`, which every row is predicted with.
// Throws InputError naming the file: unknown ids, a row that does not fit in memory, a
// parameter the rows would push past its bound.
SoftwareFitReport fitToMeasurements(const std::vector<ValidationRow>& rows,
                                    const ValidationResolver& resolver, const SoftwareProfile& base,
                                    const SoftwareFitOptions& options, const std::string& file);

// The fitted profile as profiles/software JSON: the base file's document (`base_text`, so
// its documentation and every field survive) with the id, name, source, the fitted values
// and the error band replaced; the fitted values are the carried ones and the measured
// GPUs' factors go to "gpu_corrections". Checked to load back.
std::string fittedProfileJson(const std::string& base_text, const std::string& base_file,
                              const SoftwareFitReport& fit, const std::string& id,
                              const std::string& name, const std::string& source);

// `v` to `digits` significant digits: a written profile claims no precision the fit has not.
double roundToSignificant(double v, int digits);

} // namespace iterscope
