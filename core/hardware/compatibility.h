// Which GPU profile goes into which system profile, for the planner (docs/planning.md
// "Which GPU in which system"). The rule is data: a system lists the GPUs it is sold with
// (compatible_gpus, else default_gpu); a system that names none is a generic chassis and
// takes any GPU of its form factor (gpu_form_factor, "pcie" unless set).
#pragma once

#include "hardware/hardware.h"

#include <string>

namespace iterscope {

bool gpuFitsSystem(const GpuProfile& gpu, const SystemProfile& system);

// "ships with a100-sxm4-80gb or a100-sxm4-40gb", "takes any pcie GPU": for messages.
std::string systemGpuRule(const SystemProfile& system);

} // namespace iterscope
