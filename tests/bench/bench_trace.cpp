// Trace reading speed and memory (target: a 50 MB trace read and compared in <= 2 s and
// <= 300 MB peak): a synthetic torch.profiler trace of AlexNet training steps (each with
// backward, NCCL and the optimizer) repeated to 50 MB of JSON, as plain text and gzip. Each
// file is written by one child process and read by another, so building it does not count
// towards the peak memory reported; the whole `iterscope-cli compare-trace` run is timed too.
//
// Usage: bench_trace [dir-for-the-temporary-files] [megabytes]   (default /tmp 50)
#include "../support/gzip_bytes.h"
#include "../support/training_trace.h"
#include "bench_process.h"

#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "trace/kineto_trace.h"
#include "trace/trace_compare.h"
#include "util/error.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace iterscope;

namespace {

// One step's events, repeated with shifted times and ids until the text reaches `bytes`.
std::string repeatedTrace(std::size_t bytes, int& steps) {
    const TrainingTrace one = alexnetTrainingTrace({});
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(one.json);
    const double period = one.step_us[0] + 50;
    std::string events;
    events.reserve(bytes + (1 << 20));
    steps = 0;
    for (int k = 0; events.size() < bytes; ++k, ++steps)
        for (nlohmann::ordered_json e : doc["traceEvents"]) {
            e["ts"] = e["ts"].get<double>() + period * k;
            if (e["name"] == "ProfilerStep#1")
                e["name"] = "ProfilerStep#" + std::to_string(k + 1);
            for (const char* key : {"External id", "correlation", "Sequence number"})
                if (e["args"].contains(key))
                    e["args"][key] = e["args"][key].get<std::int64_t>() + std::int64_t{1000000} * k;
            events += events.empty() ? "" : ",\n";
            events += e.dump();
        }
    doc["traceEvents"] = nlohmann::ordered_json::array();
    std::string text = doc.dump();
    const auto at = text.find("\"traceEvents\":[]");
    return text.substr(0, at) + "\"traceEvents\":[\n" + events + "]" +
           text.substr(at + std::string("\"traceEvents\":[]").size());
}

bool benchRead(const std::string& label, const std::string& path) {
    return inChild([&] {
        try {
            Scenario s;
            s.network = loadNetwork("alexnet");
            s.gpu = loadGpuProfile("h100-sxm");
            s.system = loadSystemProfile("dgx-h100");
            s.software = loadSoftwareProfile("pytorch");
            s.batch_per_gpu = 64;
            s.gpus_per_node = 2;
            s.sync = SyncStrategy::AllreduceNccl;
            const double rss_before = peakRssMb();
            const auto start = std::chrono::steady_clock::now();
            const KinetoTrace trace = readKinetoTrace(path);
            const double read_s = secondsSince(start);
            const TraceAnalysis analysis = analyzeTrace(trace);
            const double analyse_s = secondsSince(start) - read_s;
            const TraceComparison c = compareTrace(analysis, s);
            const double total_s = secondsSince(start);
            std::printf("%s: %.1f MB of JSON, %zu events kept, %d steps: read %.3f s, analyse "
                        "%.3f s, compare %.3f s, in all %.3f s (target <= 2 s), peak RSS %.0f MB "
                        "(%.0f MB before reading; target <= 300 MB)\n",
                        label.c_str(), static_cast<double>(trace.text_bytes) / 1e6,
                        trace.events.size(), c.steps, read_s, analyse_s,
                        total_s - read_s - analyse_s, total_s, peakRssMb(), rss_before);
        } catch (const InputError& e) {
            std::fprintf(stderr, "bench_trace: %s\n", e.what());
            return 1;
        }
        return 0;
    });
}

void benchCli(const std::string& label, const std::string& path) {
    const ProcessRun run =
        runProgram(ITERSCOPE_CLI_PATH,
                   {"compare-trace", path.c_str(), "--network", "alexnet", "--format", "json"});
    if (!run.ok) {
        std::printf("%s: iterscope-cli compare-trace failed\n", label.c_str());
        return;
    }
    std::printf("%s: iterscope-cli compare-trace FILE --network alexnet --format json: %.3f s, "
                "peak RSS %.0f MB (the whole process)\n",
                label.c_str(), run.seconds, run.peak_rss_mb);
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : "/tmp";
    const double megabytes = argc > 2 ? std::atof(argv[2]) : 50;
    const std::string stem = dir + "/iterscope-bench-trace-" + std::to_string(getpid());
    const std::string plain = stem + ".json", gz = stem + ".json.gz";
    if (!inChild([&] {
            int steps = 0;
            const std::string text =
                repeatedTrace(static_cast<std::size_t>(megabytes * 1e6), steps);
            std::ofstream(plain, std::ios::binary) << text;
            std::ofstream(gz, std::ios::binary) << gzipBytes(text);
            std::printf("wrote %s (%.1f MB, %d steps) and its .gz\n", plain.c_str(),
                        static_cast<double>(text.size()) / 1e6, steps);
            return 0;
        })) {
        std::fprintf(stderr, "bench_trace: could not write %s\n", plain.c_str());
        return 1;
    }
    int rc = 0;
    for (const auto& [label, path] : {std::pair{"plain", plain}, std::pair{"gzip", gz}}) {
        if (!benchRead(label, path))
            rc = 1;
        benchCli(label, path);
    }
    std::remove(plain.c_str());
    std::remove(gz.c_str());
    return rc;
}
