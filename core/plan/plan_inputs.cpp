#include "plan/plan_inputs.h"

#include "hardware/compatibility.h"
#include "hardware/profile_loader.h"
#include "plan/prices.h"
#include "util/error.h"

namespace iterscope {

namespace {
constexpr std::size_t kMaxListItems = 256;
} // namespace

std::vector<std::string> splitList(const std::string& text, const std::string& flag) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw InputError(flag + ": empty item in '" + text.substr(0, 60) + "'");
        items.push_back(std::move(item));
        if (items.size() > kMaxListItems)
            throw InputError(flag + ": more than " + std::to_string(kMaxListItems) + " items");
        if (comma == std::string::npos)
            return items;
        start = comma + 1;
    }
}

void loadPlanHardware(const PlanHardwareChoice& choice, PlanRequest& request) {
    request.gpus.clear();
    request.systems.clear();
    for (const std::string& id : choice.gpus.empty() ? gpuIds() : choice.gpus)
        request.gpus.push_back(loadGpuProfile(id));
    for (const std::string& id : choice.systems.empty() ? systemIds() : choice.systems)
        request.systems.push_back(loadSystemProfile(id));
    if (request.gpus.empty())
        throw InputError("no GPU profiles found in " + profilesDir() + "/gpus");
    if (request.systems.empty())
        throw InputError("no system profiles found in " + profilesDir() + "/systems");
    if (!choice.prices_file.empty())
        applyPriceOverrides(loadPriceOverrides(choice.prices_file), request.gpus, request.systems);
}

std::string noCandidateReason(const PlanRequest& request) {
    bool any_pair = false, any_precision = false;
    for (const GpuProfile& gpu : request.gpus) {
        bool fits = false;
        for (const SystemProfile& system : request.systems)
            fits = fits || gpuFitsSystem(gpu, system);
        any_pair = any_pair || fits;
        if (fits && !planPrecisions(gpu, request.precisions).empty())
            any_precision = true;
    }
    if (!any_pair) {
        std::string rules;
        for (const SystemProfile& system : request.systems)
            rules += (rules.empty() ? "" : "; ") + system.id + " " + systemGpuRule(system);
        return "no GPU of the plan fits a system of the plan (" + rules + "; docs/planning.md)";
    }
    if (!any_precision)
        return "no GPU of the plan has hardware for the precisions asked for (tf32 needs TF32 "
               "tensor cores, amp FP16 tensor cores or fast FP16)";
    return "no configuration of " + (request.network ? request.network->source : std::string()) +
           " fits in the memory of a GPU of the plan, even at batch 1";
}

} // namespace iterscope
