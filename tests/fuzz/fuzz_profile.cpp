// libFuzzer target: the GPU and system profile readers and the planner's prices file reader
// on the same bytes. Anything but an
// InputError escaping, a crash, a hang or a huge allocation is a finding.
#include "hardware/profile_loader.h"
#include "plan/prices.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const iterscope::GpuProfile gpu = iterscope::parseGpuProfile(text, "fuzz.json");
        (void)iterscope::gpuSummary(gpu);
    } catch (const iterscope::InputError&) {
    }
    try {
        const iterscope::SystemProfile system = iterscope::parseSystemProfile(text, "fuzz.json");
        (void)iterscope::systemSummary(system);
    } catch (const iterscope::InputError&) {
    }
    try {
        (void)iterscope::parsePriceOverrides(text, "fuzz.json");
    } catch (const iterscope::InputError&) {
    }
    return 0;
}
