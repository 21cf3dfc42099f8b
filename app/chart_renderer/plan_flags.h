// The plan flags of export-chart and report, as the module receives them: one reading for
// both, so a chart of the plan and a report's plan section answer the same question.
#pragma once

#include "chart_renderer/chart_renderer.h"
#include "planner/plan_choices.h"

namespace iterscope {

// Plan flags set (> 0; max_global_batch >= 0) replace the choices'; true when any was given.
bool applyPlanFlags(const PlanChartRequest* p, ui::PlanChoices& c);

} // namespace iterscope
