// libFuzzer target: the project's JSON network reader followed by the analysis. Anything but
// an InputError escaping, a crash, a hang or a huge allocation is a finding.
#include "io/network_json.h"
#include "network/analysis.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const iterscope::Network net =
            iterscope::networkFromJson(std::string(reinterpret_cast<const char*>(data), size));
        (void)iterscope::analyze(net);
    } catch (const iterscope::InputError&) {
    }
    return 0;
}
