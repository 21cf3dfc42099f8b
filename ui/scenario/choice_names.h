// What the controls, legends and summary call a strategy or an algorithm: words a person
// reads, with the id (what the CLI and session files use) kept for tooltips.
#pragma once

#include "model/scenario.h"

#include <QString>

#include <vector>

namespace iterscope::ui {

QString syncStrategyTitle(SyncStrategy s);             // "NCCL all-reduce"
QString syncStrategyTitle(const QString& id);          // the same by id; the id if unknown
QString allreduceAlgorithmTitle(AllreduceAlgorithm a); // "Ring"
QString parallelStrategyTitle(ParallelStrategy p);     // "Pipeline (stages on GPUs)"
QString pipelineScheduleTitle(PipelineSchedule p);     // "1F1B (PipeDream-Flush)"
QString precisionTitle(Precision p);                   // "TF32 tensor cores"

// Every precision the core knows, in the enum's order: a precision added to
// util/precision.h appears in the GUI without a change here (it reads as its name, upper
// case, until it gets a title).
std::vector<Precision> allPrecisions();

} // namespace iterscope::ui
