// The leave-one-GPU-in table (docs/validation.md "Leave one GPU in"; issue 29, item 4): what
// a fit to one GPU's runs (iterscope-cli fit --measurements, fitToMeasurements) does to the
// predictions of the other GPUs of the same harness. Each pin starts from the profiles fitted
// with its whole source left out (the user's harness is one the fit has not seen), fits on
// that GPU's rows and predicts the source's other GPUs, against the unpinned base.
#pragma once

#include "fitting/published_fit.h"
#include "fitting/variance_components.h"
#include "validation/validation.h"

#include <string>
#include <vector>

namespace iterscope {

struct PinTableOptions {
    // The harness shares each pin is made with; negative: the shipped estimate for the pin's
    // rows (chooseHarnessShare, what fit --measurements uses); empty: that, 0 and 1.
    std::vector<double> harness_shares;
    // A pin needs this many rows on its GPU, and its source at least two GPUs.
    int min_rows = kMinPinRows;
    int jobs = 1; // pins fitted at once
};

// One pin made with one harness share.
struct PinOutcome {
    double others_pinned = 0; // MAPE % of the other GPUs' rows with the pinned profile
    double own_held_out = 0;  // the pinned GPU's rows, each left out (the fit report's figure)
    // ln(measured / predicted throughput): the other GPUs' rows with the pinned profile, and
    // the pinned GPU's rows each predicted by a fit that did not see it.
    std::vector<double> others_log, own_log;
};

struct PinTableRow {
    std::string source, gpu, software;
    int rows = 0;       // the pinned GPU's
    int other_rows = 0; // the other GPUs' rows it predicts (on the same software)
    std::vector<std::string> other_gpus;
    double others_unpinned = 0;              // their MAPE % from the source-left-out fit
    std::vector<double> others_log_unpinned; // their ln(measured / predicted throughput)
    std::vector<PinOutcome> outcomes; // parallel to PinTable::harness_shares; empty if skipped
    std::string skipped;              // why no figure (the fit refused, no other rows), or ""
};

// Over every pin made with one share: what the targets judge.
struct PinTableSummary {
    double harness_share = 0;
    int pins = 0;
    double mean_relative_change = 0; // mean of (pinned - unpinned) / unpinned, a fraction
    double worst_change_points = 0;  // the largest pinned - unpinned, percentage points
    std::string worst;               // "source / gpu" of that pin
    double mean_own_held_out = 0;    // percent
    // How wide an 80% band must be (the conformal half-width of |ln(measured / predicted
    // throughput)|, the shipped bands' rule) over every pin's rows pooled: the other GPUs'
    // unpinned and pinned, and the pinned GPUs' own, each left out. What a fitted profile's
    // band may claim, on the measured GPU and on the others.
    double others_band_unpinned_log = 0, others_band_pinned_log = 0, own_band_log = 0;
};

struct PinTable {
    std::vector<double> harness_shares;     // the first is the one the table is about
    std::vector<PinTableRow> rows;          // by source, then GPU, in the order of the rows
    std::vector<PinTableSummary> summaries; // parallel to harness_shares
};

// `source_folds`: fitFolds(spec, problem, FoldKey::Source, ...), each source's fold fitted
// once; `resolver`: the one `problem` was made with. Deterministic whatever options.jobs.
// Throws InputError when a source has no fold.
PinTable leaveOneGpuIn(const FitSpec& spec, const FitProblem& problem,
                       const std::vector<CrossValidationFold>& source_folds,
                       const ValidationResolver& resolver, const PinTableOptions& options);

// The table and its summary lines as Markdown, for iterscope-fit --report.
std::string pinTableMarkdown(const PinTable& table);
// One summary line per share, as iterscope-fit prints them.
std::string pinTableSummaryLine(const PinTableSummary& summary);
// The bands of that share's pins, one line.
std::string pinTableBandLine(const PinTableSummary& summary);

} // namespace iterscope
