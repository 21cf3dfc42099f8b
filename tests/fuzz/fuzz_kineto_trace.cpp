// libFuzzer target: the profiler trace reader (plain or gzip bytes), the step analysis and
// the comparison with a fixed AlexNet scenario on whatever it read. Anything but an
// InputError escaping, a crash, a hang or a huge allocation is a finding.
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "trace/kineto_trace.h"
#include "trace/trace_compare.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace {

const std::optional<iterscope::Scenario>& scenario() {
    static const std::optional<iterscope::Scenario> s = []() -> std::optional<iterscope::Scenario> {
        try {
            iterscope::Scenario x;
            x.network = iterscope::loadNetwork("alexnet");
            x.gpu = iterscope::loadGpuProfile("a100-sxm4-40gb");
            x.system = iterscope::loadSystemProfile("dgx-a100");
            x.software = iterscope::loadSoftwareProfile("pytorch");
            x.batch_per_gpu = 32;
            x.gpus_per_node = 1;
            return x;
        } catch (const iterscope::InputError&) {
            return std::nullopt; // no profiles found: fuzz the reader alone
        }
    }();
    return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const iterscope::TraceAnalysis trace =
            iterscope::analyzeTrace(iterscope::parseKinetoTrace(bytes, "fuzz.json"));
        if (scenario()) {
            const iterscope::TraceComparison c = iterscope::compareTrace(trace, *scenario());
            for (std::size_t s = 0; s < trace.steps.size(); ++s)
                (void)iterscope::measuredTimeline(trace, c, s);
        }
    } catch (const iterscope::InputError&) {
    }
    return 0;
}
