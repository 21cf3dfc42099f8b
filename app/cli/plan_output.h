// How iterscope-cli plan shows a plan: JSON with DESIGN.md's keys, CSV, and a table with
// the Pareto front, the fastest and the cheapest for people.
#pragma once

#include "plan/plan.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace iterscope::cli {

struct PlanReport {
    const PlanRequest& request;
    const PlanResult& result;
    std::vector<std::string> notes; // caveats, one sentence each
};

// One point: gpu, system, nodes, gpus_per_node, batch_per_gpu, precision, sync,
// images_per_second, hours, cost_usd (null without a price), energy_kwh, and more.
nlohmann::ordered_json planPointJson(const PlanRequest& request, const PlanPoint& point);
// {"candidates", "pareto", "fastest", "cheapest", ..., "all" when with_all}.
nlohmann::ordered_json planJson(const PlanReport& report, bool with_all);
// The front with the fastest and the cheapest (every candidate when with_all).
std::string planCsv(const PlanReport& report, bool with_all);
std::string planTable(const PlanReport& report, bool with_all);

// The caveats a reader needs: GPUs left out of the cost ranking for want of a price, host
// power not known, the global batch bounded by default (`max_global_batch_flag` unset), or
// a large global batch chosen once --max-global-batch 0 lifted the bound.
std::vector<std::string> planNotes(const PlanRequest& request, const PlanResult& result,
                                   const std::optional<int64_t>& max_global_batch_flag);

} // namespace iterscope::cli
