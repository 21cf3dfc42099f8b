// What would help most (issue 32): from one scenario, every single change in reach is
// predicted and ranked by its speed-up in images per second (a fixed number of images
// trains sooner; a larger batch may lengthen the iteration and still win). A loop around
// predict(), as the planner is; but where the planner searches the whole space for the
// cheapest run, this starts where the user stands and names the next step. Each suggestion
// carries the flags that reproduce it with `iterscope-cli predict`, its band (from the
// published ratios of that kind of change, core/validation/ratio_band.h), whether it fits,
// what it costs and why it helps. docs/advisor.md says how to read it.
#pragma once

#include "model/prediction.h"
#include "model/scenario.h"
#include "validation/ratio_band.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

struct AdviceOptions {
    bool software = true;  // harness and software changes: free to try
    bool hardware = false; // more GPUs or nodes, a faster network, another GPU
    // The global batch a change may reach (kDefaultMaxGlobalBatch, as the planner); 0: no
    // bound. A change that raises the global batch says so in its cost.
    int64_t max_global_batch = 8192;
    // Combinations are made of the best this many single changes (of distinct kinds).
    int combination_pool = 5;
    int max_combinations = 5;
    // GPUs to try in the system (hardware); empty: every shipped GPU profile that fits it.
    std::vector<GpuProfile> gpus;
};

// One edit of the scenario, as a person would make it.
struct Change {
    std::string kind;  // "precision", "layout", "batch", ... (docs/advisor.md)
    std::string words; // "AMP: FP16 tensor cores with loss scaling"
    std::vector<std::string>
        flags; // predict flags on top of the scenario's: {"--precision", "amp"}
    // The ratio-band kinds it changes (ratio_band.h); a kind no published pair backs falls
    // back to the band of every one-factor pair, and says so.
    std::vector<std::string> band_kinds;
    std::function<void(Scenario&)> apply;
};

struct Suggestion {
    std::string kind;   // the change's kind; "a+b" for a combination
    std::string change; // in words; "; " between the parts of a combination
    std::vector<std::string> flags;
    double iteration_ms = 0;
    double images_per_second = 0;
    double speedup = 1; // of images per second, against the scenario's
    RatioBand band;     // of the speed-up
    bool fits_in_memory = true;
    int64_t global_batch = 0;
    std::optional<std::string> cost; // what it costs beyond trying it; none for free changes
    std::string why;                 // one line
    std::string reason;              // why it is not suggested (not_suggested only)
    std::vector<Change> parts;       // the changes it is made of, to apply it again
};

struct Advice {
    double iteration_ms = 0;
    double images_per_second = 0;
    int64_t global_batch = 0;
    std::string diagnosis; // one sentence: what bounds the iteration and by how much
    std::vector<std::string> kinds_considered;
    std::vector<Suggestion> suggestions;   // sorted by speed-up, best first
    std::vector<Suggestion> combinations;  // two and three changes, predicted together
    std::vector<Suggestion> not_suggested; // does not fit, does not apply, band holds 1x,
                                           // slower or no effect; `reason` says which
};

// Throws InputError for an invalid scenario. Pure: reads only its arguments (and the
// shipped ratio bands and GPU profiles, read once).
Advice advise(const Scenario& scenario, const AdviceOptions& options = {});

// The scenario with a suggestion's changes applied (the GUI applies it as one undo step).
Scenario applySuggestion(const Scenario& scenario, const Suggestion& suggestion);

// The diagnosis line alone, from a full prediction of the scenario.
std::string diagnose(const Scenario& scenario, const Prediction& prediction);

} // namespace iterscope
