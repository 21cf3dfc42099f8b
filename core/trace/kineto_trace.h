// A PyTorch profiler (Kineto) Chrome trace as plain values: the events the analysis needs
// (CPU ops and annotations, CUDA runtime launches, GPU kernels, copies and sets), the
// devices and the distributed set-up, read in one streaming pass (kineto_trace.cpp) so a
// large trace never exists as a JSON tree. What the events mean is trace_steps.h's job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

enum class TraceEventKind : std::uint8_t {
    CpuOp,      // "cpu_op" (older traces: "Operator")
    Annotation, // "user_annotation": record_function, ProfilerStep#N in some versions
    Runtime,    // "cuda_runtime" / "cuda_driver" (older: "Runtime"): launches, copies
    Kernel,     // "kernel" (older: "Kernel")
    Memcpy,     // "gpu_memcpy" (older: "Memcpy")
    Memset,     // "gpu_memset" (older: "Memset")
};

// One complete ("ph": "X") event. Times are integer nanoseconds, converted from the trace's
// microseconds digit by digit, so sums of durations are exact.
struct TraceEvent {
    TraceEventKind kind = TraceEventKind::CpuOp;
    std::int32_t name = -1; // index into KinetoTrace::strings
    std::int64_t pid = 0, tid = 0;
    std::int64_t ts_ns = 0, dur_ns = 0;
    std::int64_t external_id = -1; // args "External id"
    std::int64_t correlation = -1; // args "correlation": a launch and its GPU activity
    std::int64_t sequence = -1;    // args "Sequence number": a forward op and its backward node
    std::int32_t device = -1, stream = -1;
    std::int64_t bytes = -1; // copies and sets
    // The first input's dims (record_shapes): offset and count into KinetoTrace::dims.
    std::int32_t dims_offset = -1;
    std::int32_t dims_count = 0;
    std::int32_t input_type = -1; // the first input's type ("float", "c10::Half"), a string

    std::int64_t endNs() const { return ts_ns + dur_ns; }
};

// deviceProperties[]: what the CUDA runtime said of each GPU.
struct TraceDevice {
    int id = 0;
    std::string name; // "NVIDIA A100-SXM4-40GB"
    std::int64_t memory_bytes = 0;
    int compute_major = 0, compute_minor = 0;
    int sm_count = 0;
};

struct KinetoTrace {
    std::string file;
    std::vector<TraceEvent> events; // in file order
    std::vector<std::string> strings;
    std::vector<std::int64_t> dims;
    std::vector<TraceDevice> devices;
    int rank = -1;       // distributedInfo.rank
    int world_size = 0;  // distributedInfo.world_size; 0: not recorded
    std::string backend; // distributedInfo.backend ("nccl")
    bool compressed = false;
    std::uint64_t text_bytes = 0;     // JSON text read (after inflating)
    std::uint64_t skipped_events = 0; // events of other kinds (flows, metadata, Python)

    const std::string& nameOf(const TraceEvent& e) const;
};

// Limits on what one trace may hold; past them reading stops with an InputError.
inline constexpr std::size_t kMaxTraceEvents = 20'000'000;
inline constexpr std::size_t kMaxTraceNameBytes = 2048; // longer kernel names are cut
inline constexpr int kMaxTraceNesting = 64;

// Reads a trace (.json or .json.gz, told apart by content). Throws InputError naming the
// file: not found, not JSON (with where), truncated or corrupt gzip, too large, no
// traceEvents, no GPU kernels at all.
KinetoTrace readKinetoTrace(const std::string& path);
// The same from bytes in memory (tests, the fuzz target); `file` names it in errors.
KinetoTrace parseKinetoTrace(std::string_view bytes, const std::string& file);

} // namespace iterscope
