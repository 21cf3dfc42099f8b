// What a report shows, computed in one go from a session's choices: the current scenario
// with its curves, every pin, the plan where constraints are set, the measured runs and the
// trace the user loaded. The GUI's File › Export Report and `iterscope-cli report` both
// gather through here, so the two can never report different numbers.
#pragma once

#include "planner/plan_choices.h"
#include "planner/plan_model.h"
#include "prediction/measured_run.h"
#include "prediction/predictor.h"

#include "validation/validation.h"

#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace iterscope::ui {

struct ReportRequest {
    ScenarioSettings current;
    QList<ScenarioSettings> pins;
    // The plan's training length and constraints; none: the report has no plan section.
    std::optional<PlanChoices> plan;
    QString prices_file; // empty: the shipped prices
    std::vector<ValidationRow> measurements;
    QString measurements_file;
    TracePtr trace;
};

struct ReportData {
    ResultPtr current;
    QList<ResultPtr> pins; // with their curves, parallel to the request's pins
    PlanDataPtr plan;      // null when the request had no plan
    PlanChoices plan_choices;
    std::vector<ValidationRow> measurements;
    QString measurements_file;
};

// Whether choices set any constraint of their own: a deadline, a budget, or GPU or batch
// bounds other than the Plan tab's defaults. A report plans only then: the plan is the one
// costly part, and without constraints it answers a question nobody asked.
bool planConstrained(const PlanChoices& choices);

// Predicts everything synchronously. Throws InputError naming the choice that failed.
ReportData gatherReport(const ReportRequest& request, ComputeCache& cache);

} // namespace iterscope::ui
