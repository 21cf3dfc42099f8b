// Choices the model accepts but a person may not have meant: TF32 on a GPU without TF32
// tensor cores, an SXM module in a PCIe workstation, an input copy that is really the next
// batch's prefetch. The model computes them anyway; front ends say so beside the answer
// rather than refuse, since "what if" questions are allowed to be odd.
#pragma once

#include "model/scenario.h"

#include <string>
#include <vector>

namespace iterscope {

struct ScenarioWarning {
    enum class Level {
        Caution, // a choice that is probably not what was meant
        Note,    // how to read the answer, true of every such scenario
    };
    Level level = Level::Caution;
    std::string id;   // stable key for tests and scripts, e.g. "tf32-without-tensor-cores"
    std::string text; // one sentence for a person
};

// Pure: depends only on the scenario's GPU, system, software and precision, so it stays
// the same while GPU count or batch change.
std::vector<ScenarioWarning> scenarioWarnings(const Scenario& scenario);

} // namespace iterscope
