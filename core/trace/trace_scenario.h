// The scenario a trace was recorded in, as far as the trace says: its GPU (matched to a
// shipped profile by what the runtime reported, never by marketing name), the GPU count,
// the batch, the image size and the precision. Whatever the person chose explicitly wins;
// the rest comes from here, and each choice says where it came from.
#pragma once

#include "model/scenario_choices.h"
#include "trace/trace_steps.h"

#include <string>
#include <vector>

namespace iterscope {

// The shipped GPU profile with the device's SM count and compute capability and the memory
// size nearest to its (within 15%); a PCIe card's name says "PCIe", so SXM modules are
// preferred otherwise. "" when none fits.
std::string gpuProfileForDevice(const TraceDevice& device);

// What the person set; the rest is taken from the trace where it can be.
struct TraceChoiceMask {
    bool gpu = false, system = false, gpus = false, batch = false, image = false, precision = false;
};

struct TraceScenario {
    ScenarioChoices choices;
    std::string gpu_name;     // the trace's device name, or the profile's when set
    std::string batch_source; // "--batch", "op shapes", "input copy", "assumed"
    std::string precision_source;
    std::vector<std::string> warnings; // what had to be assumed
};

// Throws InputError naming the trace when the GPU is neither given nor recognisable, or
// the network cannot be loaded.
TraceScenario traceScenario(const TraceAnalysis& trace, ScenarioChoices choices,
                            const TraceChoiceMask& given);

} // namespace iterscope
