#include "io/trace_writer.h"

#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace iterscope {

namespace {

// Trace Event Format keys.
constexpr const char* kTraceEvents = "traceEvents";
constexpr const char* kDisplayTimeUnit = "displayTimeUnit";
constexpr const char* kPhase = "ph";
constexpr const char* kName = "name";
constexpr const char* kCategory = "cat";
constexpr const char* kTimestamp = "ts";
constexpr const char* kDuration = "dur";
constexpr const char* kPid = "pid";
constexpr const char* kTid = "tid";
constexpr const char* kArgs = "args";
constexpr const char* kComplete = "X";
constexpr const char* kMetadata = "M";
constexpr double kUsPerMs = 1000.0;

// Rows in Nsight Systems' order: the copy engine, the compute stream, NCCL, the update.
// Communication lanes get their own threads after kCommunicationTid so overlapping
// buckets never share a row.
constexpr int kInputTid = 1;
constexpr int kComputeTid = 2;
constexpr int kUpdateTid = 3;
constexpr int kCommunicationTid = 4;

int tidOf(const TimelineEvent& e) {
    switch (e.stream) {
    case Stream::Input:
        return kInputTid;
    case Stream::Compute:
        return kComputeTid;
    case Stream::Update:
        return kUpdateTid;
    case Stream::Communication:
        return kCommunicationTid + std::max(e.lane, 0);
    }
    return kComputeTid;
}

const char* threadName(int tid) {
    switch (tid) {
    case kInputTid:
        return "copy (H2D input)";
    case kComputeTid:
        return "compute";
    case kUpdateTid:
        return "update";
    default:
        return "communication";
    }
}

nlohmann::ordered_json metadata(const char* what, int pid, int tid, nlohmann::ordered_json args) {
    nlohmann::ordered_json m;
    m[kPhase] = kMetadata;
    m[kName] = what;
    m[kPid] = pid;
    m[kTid] = tid;
    m[kArgs] = std::move(args);
    return m;
}

} // namespace

std::string chromeTraceJson(const Scenario& scenario, const Prediction& prediction, int gpus) {
    const int total = std::max(scenario.totalGpus(), 1);
    const int wanted = gpus > 0 ? gpus : kTraceDefaultGpus;
    const int shown = std::clamp(wanted, 1, std::min(kTraceMaxGpus, total));
    const int groups = std::max<int>(1, static_cast<int>(prediction.groups.size()));
    // GPUs 0..shown-1, then the first GPU of every group not among them.
    std::vector<int> gpu_ids;
    for (int g = 0; g < shown; ++g)
        gpu_ids.push_back(g);
    for (int group = shown; group < groups && group < total; ++group)
        gpu_ids.push_back(group);

    int max_tid = kCommunicationTid;
    for (const TimelineEvent& e : prediction.timeline)
        max_tid = std::max(max_tid, tidOf(e));

    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    const std::string label = scenario.gpu.id.empty() ? std::string("GPU") : scenario.gpu.id;
    for (const int gpu : gpu_ids) {
        const int group = prediction.groupOfGpu(gpu);
        std::string name = "GPU " + std::to_string(gpu) + " (" + label + ")";
        if (groups > 1 && static_cast<std::size_t>(group) < prediction.groups.size())
            name += ", " + prediction.groups[static_cast<std::size_t>(group)].label;
        events.push_back(metadata("process_name", gpu, 0, {{"name", name}}));
        events.push_back(metadata("process_sort_index", gpu, 0, {{"sort_index", gpu}}));
        for (int tid = kInputTid; tid <= max_tid; ++tid) {
            std::string thread = threadName(tid);
            if (tid > kCommunicationTid)
                thread += " " + std::to_string(tid - kCommunicationTid);
            events.push_back(metadata("thread_name", gpu, tid, {{"name", thread}}));
            events.push_back(metadata("thread_sort_index", gpu, tid, {{"sort_index", tid}}));
        }
        for (const TimelineEvent& e : prediction.timeline) {
            if (!(e.duration_ms > 0) || e.group != group)
                continue;
            nlohmann::ordered_json x;
            x[kPhase] = kComplete;
            x[kName] = timelineEventName(e, scenario.network->network);
            x[kCategory] = streamName(e.stream);
            x[kTimestamp] = e.start_ms * kUsPerMs;
            x[kDuration] = e.duration_ms * kUsPerMs;
            x[kPid] = gpu;
            x[kTid] = tidOf(e);
            nlohmann::ordered_json args = nlohmann::ordered_json::object();
            if (e.layer >= 0)
                args["layer"] = e.layer;
            if (e.bucket >= 0)
                args[e.kind == EventKind::StageForward || e.kind == EventKind::StageBackward ||
                             e.kind == EventKind::SendActivations ||
                             e.kind == EventKind::SendGradients
                         ? "micro_batch"
                         : "bucket"] = e.bucket;
            x[kArgs] = std::move(args);
            events.push_back(std::move(x));
        }
    }
    nlohmann::ordered_json trace;
    trace[kTraceEvents] = std::move(events);
    trace[kDisplayTimeUnit] = "ms";
    trace["otherData"] = {
        {"network", scenario.network ? scenario.network->network.name : std::string()},
        {"gpu", scenario.gpu.id},
        {"system", scenario.system.id},
        {"software", scenario.software.id},
        {"gpus", scenario.totalGpus()},
        {"gpus_shown", static_cast<int>(gpu_ids.size())},
        {"parallel", parallelStrategyName(scenario.parallel)},
        {"batch_per_gpu", scenario.batch_per_gpu},
        {"iteration_ms", prediction.iteration_ms}};
    return trace.dump();
}

void writeChromeTrace(const std::string& path, const Scenario& scenario,
                      const Prediction& prediction, int gpus) {
    const std::string text = chromeTraceJson(scenario, prediction, gpus);
    const std::string temporary = path + ".part";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            throw InputError(path + ": cannot open for writing");
        out << text << "\n";
        out.flush();
        if (!out) {
            std::remove(temporary.c_str());
            throw InputError(path + ": write failed");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw InputError(path + ": cannot replace the file");
    }
}

} // namespace iterscope
