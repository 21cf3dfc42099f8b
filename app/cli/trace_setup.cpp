#include "cli/trace_setup.h"

#include "trace/kineto_trace.h"

#include <iostream>

namespace iterscope::cli {

TraceChoiceMask givenFlags(const CLI::App& cmd) {
    const auto given = [&](const char* name) { return cmd.count(name) > 0; };
    TraceChoiceMask m;
    m.gpu = given("--gpu");
    m.system = given("--system");
    m.gpus = given("--gpus-per-node") || given("--nodes");
    m.batch = given("--batch");
    m.image = given("--image");
    m.precision = given("--precision");
    return m;
}

TraceRun setUpTrace(const std::string& path, const ScenarioFlags& flags,
                    const TraceChoiceMask& given) {
    TraceRun run;
    run.analysis = analyzeTrace(readKinetoTrace(path));
    run.setting = traceScenario(run.analysis, flags, given);
    run.scenario = buildScenario(run.setting.choices);
    for (const std::string& w : run.setting.warnings)
        std::cerr << "iterscope-cli: warning: " << w << "\n";
    return run;
}

} // namespace iterscope::cli
