// The Plan tab's inputs: the training length and the constraints, as a session keeps them.
#pragma once

#include "plan/plan.h"

#include <cstdint>

namespace iterscope::ui {

struct PlanChoices {
    int64_t dataset_images = kImageNetTrainImages;
    int epochs = kDefaultEpochs;
    // The global batch starts bounded (plan.h, kDefaultMaxGlobalBatch): the fastest point a
    // plan shows by default is one that trains as well as a small batch would.
    PlanConstraints constraints{kDefaultPlanMaxGpus, kDefaultMaxGlobalBatch, {}, {}};
    bool operator==(const PlanChoices& other) const {
        return dataset_images == other.dataset_images && epochs == other.epochs &&
               constraints.max_gpus == other.constraints.max_gpus &&
               constraints.max_global_batch == other.constraints.max_global_batch &&
               constraints.deadline_hours == other.constraints.deadline_hours &&
               constraints.budget_usd == other.constraints.budget_usd;
    }
};

} // namespace iterscope::ui
