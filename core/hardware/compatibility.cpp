#include "hardware/compatibility.h"

#include <algorithm>

namespace iterscope {

bool gpuFitsSystem(const GpuProfile& gpu, const SystemProfile& system) {
    if (!system.compatible_gpus.empty())
        return std::find(system.compatible_gpus.begin(), system.compatible_gpus.end(), gpu.id) !=
               system.compatible_gpus.end();
    // A product (a DGX, a cloud instance type) ships with one GPU model.
    if (!system.default_gpu.empty())
        return gpu.id == system.default_gpu;
    // A generic chassis: an SXM module needs its vendor's baseboard, a card needs a slot.
    return gpu.form_factor == system.gpu_form_factor;
}

std::string systemGpuRule(const SystemProfile& system) {
    if (!system.compatible_gpus.empty()) {
        std::string ids;
        for (const std::string& id : system.compatible_gpus)
            ids += (ids.empty() ? "" : " or ") + id;
        return "ships with " + ids;
    }
    if (!system.default_gpu.empty())
        return "ships with " + system.default_gpu;
    return "takes any " + system.gpu_form_factor + " GPU";
}

} // namespace iterscope
