// How sure a prediction is (DESIGN.md "The model" 9; docs/model.md section 9). The band is
// symmetric around the prediction in log space, so it always holds it, and as wide as the
// errors the model made on published measurements it had not been fitted on: each row
// predicted with its whole source (benchmark harness) left out of the fit, or its whole GPU
// architecture for an architecture no row covers. iterscope-fit writes those residuals'
// quantiles per comparable class to profiles/error-bands.json; this reads them.
#pragma once

#include "model/scenario.h"

#include <string>
#include <vector>

namespace iterscope {

// Which rows are comparable: the same architecture (or "*" for every one), the same kind of
// arithmetic and the same reach of the exchange.
enum class BandScale { OneGpu = 0, OneNode = 1, SeveralNodes = 2 };
const char* bandScaleName(BandScale s); // "one GPU", "one node", "several nodes"
BandScale bandScaleOf(const Scenario& s);
// "fp32", "tf32" or "half" (amp and bf16 share 16-bit tensor-core kernels).
std::string bandPrecisionOf(Precision p);

// The held-out errors of one class of rows, as |ln(measured / predicted)| of throughput.
// The coverage every band is made for: the shipped bands', a fitted profile's own, and the
// pin table's (profiles/error-bands.json).
inline constexpr double kBandCoverage = 0.8;

struct ErrorClass {
    std::string architecture; // "Ampere"; "*" for every architecture
    std::string precision;    // "fp32", "tf32", "half"; "*" for every precision
    int scale = -1;           // a BandScale, or -1 for any
    int rows = 0;
    // The conformal quantile of the rows' absolute log errors: the ceil((n + 1) x coverage)-th
    // smallest, which a new exchangeable row stays under with at least the coverage
    // (split conformal prediction: Vovk, Gammerman and Shafer, "Algorithmic Learning in a
    // Random World", 2005; Lei et al., JASA 113, 2018).
    double half_width_log = 0;
    double rms_log = 0; // root mean square of the log errors, for the report
};

struct ErrorBands {
    std::string basis; // how the residuals were made
    double coverage = kBandCoverage;
    std::vector<ErrorClass> classes;             // whole sources left out (seen architectures)
    std::vector<ErrorClass> unseen_architecture; // whole architectures left out
    // Never narrower than one run differs from the next: the published runs' spread.
    double floor_log = 0.05;
    // Beyond what was measured the band grows: per doubling of the GPU count past the
    // largest measured one (the held-out error of a doubling's throughput ratio).
    double growth_per_doubling_log = 0.05;
    int largest_measured_gpus = 1;
    // Inter-node fabrics some measured row ran on ("edr-ib"); a run across nodes on another
    // fabric is one more step from the data.
    std::vector<std::string> measured_networks;
};

struct ErrorBandRow {
    std::string architecture, precision; // precision as bandPrecisionOf names it
    BandScale scale = BandScale::OneGpu;
    double log_ratio = 0; // ln(measured / predicted throughput)
};

// Groups residuals into classes: (architecture, precision, scale), then every architecture
// at (precision, scale), then every precision at one scale, then all rows.
std::vector<ErrorClass> errorClasses(const std::vector<ErrorBandRow>& rows,
                                     double coverage = kBandCoverage);
// The conformal quantile above, of |values|; 0 for no values.
double conformalHalfWidth(std::vector<double> values, double coverage);
// A band of half-width `half_width_log` in log space as its two sides in percent, one
// decimal: "-13.9% / +16.1%".
std::string bandPercentText(double half_width_log);

std::string errorBandsToJson(const ErrorBands& bands);
// Throws InputError naming the file.
ErrorBands parseErrorBands(const std::string& text, const std::string& file);
// profilesDir()/error-bands.json, read once; empty bands when there is none.
const ErrorBands& shippedErrorBands();

// The band of one prediction: the true throughput lies within [low, high] x the predicted
// one with the stated coverage (and the iteration time within [1/high, 1/low] x). In log
// space it is symmetric: low = 1 / high.
struct ErrorBand {
    double low = 1, high = 1;
    int rows = 0;              // comparable rows behind it; 0: no band known
    std::string basis;         // "32 Volta half one-node rows, 2 doublings past the data", ...
    bool extrapolated = false; // widened beyond what the measured rows cover
    // The band in percent of the predicted throughput: -x % and +y % (x < y).
    double belowPercent() const { return (1 - low) * 100.0; }
    double abovePercent() const { return (high - 1) * 100.0; }
    // Half its width, for a single "± x %" where there is no room for both.
    double plusMinusPercent() const { return (high - low) / 2 * 100.0; }
};

// A class needs this many rows before its own quantile is trusted (the conformal index
// ceil((n + 1) x 0.8) stays within n); fewer fall back to the wider class.
inline constexpr int kMinBandRows = 6;

ErrorBand errorBandFor(const ErrorBands& bands, const Scenario& scenario);
// The same band's half-width in log space alone (0: no band known), without the basis text:
// for the planner, which judges tens of thousands of candidates.
double errorBandHalfWidthLog(const ErrorBands& bands, const Scenario& scenario);
// The class of held-out published rows the scenario's band comes from, for a report's
// "measured accuracy of this kind of prediction"; null where the band is the software
// profile's own (its rows are the user's) or no bands are known.
const ErrorClass* errorClassFor(const ErrorBands& bands, const Scenario& scenario);

} // namespace iterscope
