// The hardware a plan ranges over, loaded by id: the shipped profiles unless lists name
// some, with a user's prices file applied. Shared by iterscope-cli plan and the Plan tab.
#pragma once

#include "plan/plan.h"

#include <string>
#include <vector>

namespace iterscope {

struct PlanHardwareChoice {
    std::vector<std::string> gpus;    // ids or paths; empty: every shipped GPU profile
    std::vector<std::string> systems; // ids or paths; empty: every shipped system profile
    std::string prices_file;          // empty: the shipped prices only
};

// Fills request.gpus and request.systems. Throws InputError for an unknown id, a bad profile
// or a bad prices file, naming it.
void loadPlanHardware(const PlanHardwareChoice& choice, PlanRequest& request);

// Why plan() found no candidate at all (no GPU fits any system, no GPU has a requested
// precision, nothing fits in memory), as one sentence for an error message.
std::string noCandidateReason(const PlanRequest& request);

// "a,b,c" -> {"a", "b", "c"}; empty items are an InputError naming `flag`.
std::vector<std::string> splitList(const std::string& text, const std::string& flag);

} // namespace iterscope
