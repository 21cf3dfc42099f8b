// Speed of the advisor (issue 32 "Targets": advise for ResNet-152 on a DGX-1 in <= 50 ms in
// process, release build). Prints the figures; asserts nothing.
#include "advisor/advisor.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace iterscope;
using Clock = std::chrono::steady_clock;

int main() {
    Scenario s;
    s.network = loadNetwork("resnet152");
    s.gpu = loadGpuProfile("v100-sxm2-16gb");
    s.system = loadSystemProfile("dgx1-v100");
    s.software = loadSoftwareProfile("pytorch");
    s.gpus_per_node = 8;
    s.batch_per_gpu = 64;
    s.precision = Precision::FP32;

    for (const bool hardware : {false, true}) {
        AdviceOptions o;
        o.hardware = hardware;
        (void)advise(s, o); // profiles and ratio bands read once, outside the timing
        // Best of several rounds: the machine is shared, the best round the least disturbed.
        double best = 1e9;
        std::size_t suggestions = 0, combinations = 0;
        for (int round = 0; round < 5; ++round) {
            const auto t0 = Clock::now();
            const Advice a = advise(s, o);
            best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
            suggestions = a.suggestions.size();
            combinations = a.combinations.size();
        }
        std::printf("advise resnet152 dgx1-v100 x8 fp32 (%s): %.1f ms in process, %zu "
                    "suggestions, %zu combinations (target <= 50 ms for software)\n",
                    hardware ? "software and hardware" : "software", best * 1e3, suggestions,
                    combinations);
    }
    return 0;
}
