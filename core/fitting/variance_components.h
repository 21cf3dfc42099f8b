// How much of a model error a benchmark harness shares across its GPUs, and how much
// belongs to one GPU (docs/calibrating.md "A pin that knows what it pins"). A person who
// fits a profile to one GPU's runs (iterscope-cli fit --measurements) learns the sum of the
// two; only the harness part is true of their other GPUs. From cross-validated residuals
// labelled by (source, GPU) a nested random-effects model
//
//     r = mu + h[source] + g[source, gpu] + e[row]
//     h ~ (0, sigma_h^2), g ~ (0, sigma_g^2), e ~ (0, sigma_e^2), independent,
//
// is fitted by the method of moments on the hierarchical (Type I) sums of squares, with the
// coefficients for unbalanced cells (Searle, Casella and McCulloch, "Variance Components",
// 1992, section 4.6 for the nested two-way classification). A component whose moment
// estimate is negative is set to 0 (the usual truncation).
//
// The share of one GPU's correction that another GPU of the same harness carries is then
// the empirical-Bayes shrinkage ratio, the regression of h + g' on h + g:
//
//     harness_share = sigma_h^2 / (sigma_h^2 + sigma_g^2)
//
// which is what a fit on very many rows of one GPU carries. A fit on n rows over k GPUs sees
// the harness through k GPUs' own parts and n rows' noise, and carries less (the best linear
// unbiased predictor of h from the mean of those rows, balanced case):
//
//     share(n, k) = sigma_h^2 / (sigma_h^2 + sigma_g^2 / k + sigma_e^2 / n)
//
// iterscope-fit computes the components from the leave-one-source-out residuals and writes
// profiles/pin-variance.json; the fit reads them from there, never the measurements.
#pragma once

#include <string>
#include <vector>

namespace iterscope {

struct LabelledResidual {
    std::string source, gpu;
    double log_ratio = 0;  // ln(measured / predicted throughput)
    std::string precision; // empty: one precision for the whole cell
};

struct VarianceComponents {
    double mean = 0;     // mu: the grand mean of the residuals
    double sigma_h2 = 0; // between sources (the harness), truncated at 0
    double sigma_g2 = 0; // between GPUs within a source, truncated at 0
    double sigma_e2 = 0; // between rows within a (source, GPU) cell
    // Between rows of one precision within a cell: the spread around what one kernel-rate
    // factor of a GPU and precision explains, the noise of that factor's fit
    // (measurement_fit.h, fitGpuRateFactor). sigma_e2 where no group has two rows.
    double sigma_w2 = 0;
    double harness_share = 0; // sigma_h2 / (sigma_h2 + sigma_g2); 0 when both are 0
    int rows = 0, sources = 0, cells = 0;
    // The untruncated moment estimates, for the report.
    double raw_sigma_h2 = 0, raw_sigma_g2 = 0;
};

// Throws InputError for no residuals or a non-finite one. Fewer than two sources leave
// sigma_h2 at 0; no source with two GPUs leaves sigma_g2 at 0.
VarianceComponents estimateVarianceComponents(const std::vector<LabelledResidual>& residuals);

// share(rows, gpus) above; rows or gpus below 1 count as 1. 0 when every component is 0.
double harnessShareFor(const VarianceComponents& v, int rows, int gpus);

// profiles/pin-variance.json: the components with how they were made.
struct PinVariance {
    VarianceComponents components;
    std::string basis; // which residuals, which estimator
    // What a pin with the estimated share does to the width of the other GPUs' 80% band:
    // the conformal half-width of their residuals pinned over unpinned, every pin of the
    // leave-one-GPU-in table pooled (pin_table.h). 1 when not measured.
    double other_gpus_band_scale = 1;
    std::string other_gpus_band_basis;
};
// The fewest rows on its GPU a pin of that table has (PinTableOptions::min_rows' default):
// what other_gpus_band_scale speaks for.
inline constexpr int kMinPinRows = 4;

std::string pinVarianceToJson(const PinVariance& pin);
// Throws InputError naming the file.
PinVariance parsePinVariance(const std::string& text, const std::string& file);
// profilesDir()/pin-variance.json, read once; nullptr when there is none.
const PinVariance* shippedPinVariance();

} // namespace iterscope
