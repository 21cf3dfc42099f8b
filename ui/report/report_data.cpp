#include "report/report_data.h"

namespace iterscope::ui {

bool planConstrained(const PlanChoices& choices) {
    const PlanChoices defaults;
    return choices.constraints.deadline_hours.has_value() ||
           choices.constraints.budget_usd.has_value() ||
           choices.constraints.max_gpus != defaults.constraints.max_gpus ||
           choices.constraints.max_global_batch != defaults.constraints.max_global_batch;
}

ReportData gatherReport(const ReportRequest& request, ComputeCache& cache) {
    ReportData data;
    // The trace is compared with the current scenario only: that is what the window shows.
    {
        auto result = computePrediction(request.current, cache, 0, request.trace);
        addScalingCurves(
            *result, [] { return false; }, &cache);
        data.current = std::move(result);
    }
    for (const ScenarioSettings& pin : request.pins)
        data.pins.append(computeResult(pin, cache));
    if (request.plan && planConstrained(*request.plan)) {
        PlanInputs inputs;
        inputs.network = request.current.network;
        inputs.image = request.current.image;
        inputs.software = request.current.software;
        inputs.prices_file = request.prices_file;
        data.plan = computePlan(inputs, cache);
        data.plan_choices = *request.plan;
    }
    data.measurements = request.measurements;
    data.measurements_file = request.measurements_file;
    return data;
}

} // namespace iterscope::ui
