// Writes small PyTorch profiler (Kineto) traces for tests, in the layout torch.profiler
// 2.x uses: cpu_op events with "External id" (and "Sequence number" under autograd), a
// cuda_runtime launch per GPU activity sharing its "correlation", kernels on per-stream
// tids of the GPU's pid, ProfilerStep#N spans, deviceProperties and distributedInfo.
// Times are in microseconds with a fraction, as real traces have them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

struct KinetoBuilder {
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    int rank = 0, world_size = 1;
    std::int64_t next_id = 100;
    int gpu = 0; // the device the kernels run on

    void device(int id, const std::string& name, int sms, int major, int minor,
                std::int64_t memory_bytes) {
        devices.push_back({{"id", id},
                           {"name", name},
                           {"totalGlobalMem", memory_bytes},
                           {"computeMajor", major},
                           {"computeMinor", minor},
                           {"numSms", sms}});
    }

    // A CPU op on thread `tid` from `ts` for `dur` microseconds.
    void op(const std::string& name, int tid, double ts, double dur, std::int64_t sequence = -1,
            const std::vector<std::int64_t>& dims = {}, const std::string& type = {}) {
        nlohmann::ordered_json args{{"External id", next_id++}};
        if (sequence >= 0)
            args["Sequence number"] = sequence;
        if (!dims.empty()) {
            args["Input Dims"] =
                nlohmann::ordered_json::array({dims, nlohmann::ordered_json::array()});
            args["Input type"] = nlohmann::ordered_json::array({type.empty() ? "float" : type, ""});
        }
        events.push_back({{"ph", "X"},
                          {"cat", "cpu_op"},
                          {"name", name},
                          {"pid", 1000},
                          {"tid", tid},
                          {"ts", ts},
                          {"dur", dur},
                          {"args", args}});
    }

    void annotation(const std::string& name, int tid, double ts, double dur) {
        events.push_back({{"ph", "X"},
                          {"cat", "user_annotation"},
                          {"name", name},
                          {"pid", 1000},
                          {"tid", tid},
                          {"ts", ts},
                          {"dur", dur},
                          {"args", {{"External id", next_id++}}}});
    }

    // A launch on CPU thread `tid` at `ts` and its GPU activity at `gpu_ts` for `dur` on
    // `stream`. `category` is "kernel", "gpu_memcpy" or "gpu_memset".
    void launch(int tid, double ts, const std::string& name, double gpu_ts, double dur,
                int stream = 7, const std::string& category = "kernel", std::int64_t bytes = -1) {
        const std::int64_t correlation = next_id++;
        const char* call = category == "kernel"       ? "cudaLaunchKernel"
                           : category == "gpu_memcpy" ? "cudaMemcpyAsync"
                                                      : "cudaMemsetAsync";
        events.push_back({{"ph", "X"},
                          {"cat", "cuda_runtime"},
                          {"name", call},
                          {"pid", 1000},
                          {"tid", tid},
                          {"ts", ts},
                          {"dur", 2.5},
                          {"args", {{"External id", correlation}, {"correlation", correlation}}}});
        nlohmann::ordered_json args{{"External id", correlation},
                                    {"device", gpu},
                                    {"stream", stream},
                                    {"correlation", correlation}};
        if (bytes >= 0)
            args["bytes"] = bytes;
        events.push_back({{"ph", "X"},
                          {"cat", category},
                          {"name", name},
                          {"pid", gpu},
                          {"tid", stream},
                          {"ts", gpu_ts},
                          {"dur", dur},
                          {"args", args}});
    }

    std::string text() const {
        nlohmann::ordered_json doc{
            {"schemaVersion", 1},
            {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", world_size}}},
            {"deviceProperties", devices},
            {"traceEvents", events},
            {"traceName", "test"}};
        return doc.dump(1);
    }
};
