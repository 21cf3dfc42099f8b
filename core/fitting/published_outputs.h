// What iterscope-fit makes of the published fit for profiles/: the fitted values written into
// the software profiles, and from the rows' held-out predictions the error bands
// (error-bands.json), the ratio bands (ratio-bands.json) and the pin's variance components
// (pin-variance.json). The shipped model reads these files, never the measurements.
#pragma once

#include "fitting/published_fit.h"
#include "fitting/variance_components.h"
#include "validation/error_band.h"
#include "validation/ratio_band.h"

#include <map>
#include <string>
#include <vector>

namespace iterscope {

// The bands of docs/model.md section 9 from the held-out predictions of every row: sources
// left out for the architectures some row covers, architectures left out for the others.
// The growth beyond the data is the held-out error of a scaling step: within one series (the
// same run on 1, 8, 16, ... GPUs), how far the error moves per doubling of the GPU count.
// The floor is the run-to-run spread of the profiles the bands ship with (`fitted`), not of
// the ones the fit started from.
ErrorBands errorBandsFromHeldOut(const FitProblem& problem, const std::vector<double>& by_source,
                                 const std::vector<double>& by_architecture,
                                 const std::map<std::string, SoftwareProfile>& fitted);

// The residual of each row with its whole source left out, labelled by (source, GPU): what
// an unseen harness gets wrong, split into what it shares across its GPUs and what one GPU
// adds (variance_components.h).
VarianceComponents pinVarianceFromHeldOut(const FitProblem& problem,
                                          const std::vector<double>& by_source);
// How those components were made, for pin-variance.json's "basis".
std::string pinVarianceBasis(const FitSpec& spec);

// The ratio bands (ratio_band.h) of pairs of rows predicted as `predicted` (parallel to
// problem.rows), with `basis` saying how they were predicted.
RatioBands ratioBandsFromPredictions(const FitProblem& problem,
                                     const std::vector<double>& predicted, std::string basis);

// Each written atomically as its file in profilesDir() (ratio-bands.json, pin-variance.json,
// error-bands.json) and read back, so that what is written is what the model loads. Return
// the file written.
std::string writeRatioBands(const RatioBands& bands);
std::string writePinVariance(const PinVariance& pin);
std::string writeErrorBands(const ErrorBands& bands);

// "FITTED by iterscope-fit on <files> as a whole (...): a (own), b (shared with x, y), ...."
std::string fittedSummary(const FitSpec& spec, const std::string& id);

// Rewrites the fitted fields of each profile file the spec names with `values` (four
// significant digits, its "source" saying what was fitted), keeping everything else as it
// was; atomically, and each checked to load back. Returns the files written.
std::vector<std::string> writeFittedSoftwareProfiles(const FitSpec& spec,
                                                     const std::vector<double>& values);

} // namespace iterscope
