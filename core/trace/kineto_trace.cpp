// Reads a Kineto trace with nlohmann's SAX interface: each event's fields are gathered in a
// small scratch record and kept, compacted, only when the event is one the analysis uses.
// A trace's "ts" are microseconds since the epoch with a fraction (1695835573023613.250);
// a double cannot hold that to the nanosecond, so times are converted from their digits.
#include "trace/kineto_trace.h"

#include "trace/trace_input.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <istream>
#include <unordered_map>

namespace iterscope {

const std::string& KinetoTrace::nameOf(const TraceEvent& e) const {
    static const std::string empty;
    return e.name >= 0 && static_cast<std::size_t>(e.name) < strings.size()
               ? strings[static_cast<std::size_t>(e.name)]
               : empty;
}

namespace {

// Chrome trace keys (the Trace Event Format, and Kineto's args).
constexpr std::string_view kTraceEvents = "traceEvents";
constexpr std::string_view kDeviceProperties = "deviceProperties";
constexpr std::string_view kDistributedInfo = "distributedInfo";
constexpr std::string_view kArgs = "args";
constexpr std::string_view kInputDims = "Input Dims";
constexpr std::string_view kInputType = "Input type";

// Microseconds in a trace's text, to nanoseconds; false past what int64 holds.
bool microsToNanos(const std::string& text, std::int64_t& out) {
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
        negative = text[i++] == '-';
    std::int64_t whole = 0;
    std::size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (whole > (INT64_MAX / 1000 - 9) / 10)
            return false;
        whole = whole * 10 + (text[i] - '0');
    }
    std::int64_t fraction = 0;
    int fraction_digits = 0;
    bool round_up = false;
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            if (fraction_digits < 3) {
                fraction = fraction * 10 + (text[i] - '0');
                ++fraction_digits;
            } else if (fraction_digits == 3) {
                round_up = text[i] >= '5';
                ++fraction_digits;
            }
        }
    }
    if (i != text.size() || digits == 0) {
        // Exponent notation and the like: rare in traces, and a double is close enough.
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || !std::isfinite(v) || std::abs(v) > 9e15)
            return false;
        out = std::llround(v * 1000.0);
        return true;
    }
    for (int d = std::min(fraction_digits, 3); d < 3; ++d)
        fraction *= 10;
    const std::int64_t ns = whole * 1000 + fraction + (round_up ? 1 : 0);
    out = negative ? -ns : ns;
    return true;
}

enum class Ctx : std::uint8_t {
    Top,         // the top-level object
    Events,      // traceEvents[] (or a top-level array)
    Event,       // one of its objects
    Args,        // the event's args
    DimsOuter,   // args["Input Dims"]
    DimsFirst,   // its first element: the first input's dims
    Types,       // args["Input type"]
    Devices,     // deviceProperties[]
    Device,      // one of its objects
    Distributed, // distributedInfo
    Skip,        // anything else: read past
};

// The fields of the event being read, before it is kept or dropped.
struct Scratch {
    char ph = 0;
    std::string cat, name;
    bool has_ts = false;
    TraceEvent event;
    std::string pid_text, tid_text;
    int dims_seen = 0; // elements of "Input Dims" seen, to keep only the first
    bool type_seen = false;
    std::string input_type;
    std::vector<std::int64_t> dims;
    bool dims_ok = true;
    void reset() {
        ph = 0;
        cat.clear();
        name.clear();
        has_ts = false;
        event = TraceEvent{};
        pid_text.clear();
        tid_text.clear();
        dims_seen = 0;
        type_seen = false;
        input_type.clear();
        dims.clear();
        dims_ok = true;
    }
};

bool kindOfCategory(const std::string& cat, TraceEventKind& kind) {
    if (cat == "kernel" || cat == "Kernel")
        kind = TraceEventKind::Kernel;
    else if (cat == "cpu_op" || cat == "Operator")
        kind = TraceEventKind::CpuOp;
    else if (cat == "user_annotation")
        kind = TraceEventKind::Annotation;
    else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime")
        kind = TraceEventKind::Runtime;
    else if (cat == "gpu_memcpy" || cat == "Memcpy")
        kind = TraceEventKind::Memcpy;
    else if (cat == "gpu_memset" || cat == "Memset")
        kind = TraceEventKind::Memset;
    else
        return false;
    return true;
}

class TraceSax {
  public:
    explicit TraceSax(KinetoTrace& trace)
        : m_trace(trace) {}

    std::string error;
    bool saw_events = false;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(std::int64_t v) { return integer(v, nullptr); }
    bool number_unsigned(std::uint64_t v) {
        return integer(v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX
                                                                 : static_cast<std::int64_t>(v),
                       nullptr);
    }
    bool number_float(double v, const std::string& text) {
        if (!std::isfinite(v))
            return true;
        return integer(static_cast<std::int64_t>(std::clamp(v, -9e18, 9e18)), &text);
    }
    bool string(std::string& v) {
        const Ctx c = top();
        if (c == Ctx::Event) {
            if (m_key == "ph")
                m.ph = v.empty() ? '?' : v[0];
            else if (m_key == "cat")
                m.cat = v.substr(0, 64);
            else if (m_key == "name") {
                m.name = std::move(v); // the parser's token is ours to take
                if (m.name.size() > kMaxTraceNameBytes)
                    m.name.resize(kMaxTraceNameBytes);
            } else if (m_key == "pid")
                m.pid_text = v.substr(0, 64);
            else if (m_key == "tid")
                m.tid_text = v.substr(0, 64);
            else if (m_key == "ts")
                m.has_ts = microsToNanos(v, m.event.ts_ns);
        } else if (c == Ctx::Types && !m.type_seen) {
            m.type_seen = true;
            m.input_type = v.substr(0, 64);
        } else if (c == Ctx::Device && m_key == "name") {
            m_trace.devices.back().name = v.substr(0, 256);
        } else if (c == Ctx::Distributed && m_key == "backend") {
            m_trace.backend = v.substr(0, 64);
        }
        return true;
    }
    bool binary(nlohmann::json::binary_t&) { return true; }

    bool start_object(std::size_t) {
        const Ctx parent = top();
        Ctx next = Ctx::Skip;
        if (m_stack.empty())
            next = Ctx::Top;
        else if (parent == Ctx::Events) {
            next = Ctx::Event;
            m.reset();
        } else if (parent == Ctx::Event && m_key == kArgs)
            next = Ctx::Args;
        else if (parent == Ctx::Devices) {
            next = Ctx::Device;
            m_trace.devices.emplace_back();
        } else if (parent == Ctx::Top && m_key == kDistributedInfo)
            next = Ctx::Distributed;
        return push(next);
    }
    bool key(std::string& k) {
        m_key.assign(k, 0, std::min<std::size_t>(k.size(), 64));
        return true;
    }
    bool end_object() {
        if (top() == Ctx::Event)
            finishEvent();
        if (!m_stack.empty())
            m_stack.pop_back();
        m_key.clear();
        return true;
    }
    bool start_array(std::size_t) {
        Ctx next = Ctx::Skip;
        if (m_stack.empty()) {
            next = Ctx::Events; // a trace may be a bare array of events
            saw_events = true;
        } else {
            const Ctx parent = top();
            if (parent == Ctx::Top && m_key == kTraceEvents) {
                next = Ctx::Events;
                saw_events = true;
            } else if (parent == Ctx::Top && m_key == kDeviceProperties)
                next = Ctx::Devices;
            else if (parent == Ctx::Args && m_key == kInputDims)
                next = Ctx::DimsOuter;
            else if (parent == Ctx::Args && m_key == kInputType)
                next = Ctx::Types;
            else if (parent == Ctx::DimsOuter && m.dims_seen++ == 0)
                next = Ctx::DimsFirst;
            else if (parent == Ctx::DimsFirst)
                m.dims_ok = false; // a list of tensors, not one tensor's dims
        }
        return push(next);
    }
    bool end_array() {
        if (!m_stack.empty())
            m_stack.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& ex) {
        std::string what = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, ..." without the tag.
        const auto tag = what.find("] ");
        error = tag == std::string::npos ? what : what.substr(tag + 2);
        return false;
    }

  private:
    // A bare value at the top level (a number, a string) has no context: nothing to keep.
    Ctx top() const { return m_stack.empty() ? Ctx::Skip : m_stack.back(); }

    bool push(Ctx c) {
        if (m_stack.size() >= static_cast<std::size_t>(kMaxTraceNesting)) {
            error = "nests deeper than " + std::to_string(kMaxTraceNesting) + " levels";
            return false;
        }
        m_stack.push_back(c);
        return true;
    }

    // `text` is the number as written when it has a fraction; whole microseconds (most
    // numbers of a trace) need no text.
    bool integer(std::int64_t v, const std::string* text) {
        const Ctx c = top();
        const auto nanos = [&](std::int64_t& out) {
            if (text)
                return microsToNanos(*text, out);
            if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000)
                return false;
            out = v * 1000;
            return true;
        };
        if (c == Ctx::Event) {
            if (m_key == "ts")
                m.has_ts = nanos(m.event.ts_ns);
            else if (m_key == "dur") {
                std::int64_t d = 0;
                if (nanos(d) && d >= 0)
                    m.event.dur_ns = d;
            } else if (m_key == "pid")
                m.event.pid = v;
            else if (m_key == "tid")
                m.event.tid = v;
        } else if (c == Ctx::Args) {
            if (m_key == "External id" || m_key == "external id") // older Kineto: lower case
                m.event.external_id = v;
            else if (m_key == "correlation")
                m.event.correlation = v;
            else if (m_key == "Sequence number")
                m.event.sequence = v;
            else if (m_key == "device")
                m.event.device =
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -1, 1 << 20));
            else if (m_key == "stream")
                m.event.stream =
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -1, 1 << 30));
            else if (m_key == "bytes")
                m.event.bytes = v;
        } else if (c == Ctx::DimsFirst) {
            if (m.dims.size() < 8)
                m.dims.push_back(v);
            else
                m.dims_ok = false;
        } else if (c == Ctx::Device) {
            TraceDevice& d = m_trace.devices.back();
            const auto small = [](std::int64_t x) {
                return static_cast<int>(std::clamp<std::int64_t>(x, -1, 1 << 30));
            };
            if (m_key == "id")
                d.id = small(v);
            else if (m_key == "totalGlobalMem")
                d.memory_bytes = v;
            else if (m_key == "computeMajor")
                d.compute_major = small(v);
            else if (m_key == "computeMinor")
                d.compute_minor = small(v);
            else if (m_key == "numSms")
                d.sm_count = small(v);
        } else if (c == Ctx::Distributed) {
            const int x = static_cast<int>(std::clamp<std::int64_t>(v, -1, 1 << 24));
            if (m_key == "rank")
                m_trace.rank = x;
            else if (m_key == "world_size")
                m_trace.world_size = x;
        }
        return true;
    }

    std::int32_t intern(const std::string& s) {
        auto it = m_ids.find(s);
        if (it != m_ids.end())
            return it->second;
        const auto id = static_cast<std::int32_t>(m_trace.strings.size());
        m_trace.strings.push_back(s);
        m_ids.emplace(s, id);
        return id;
    }

    // A string pid or tid ("Spans", "PyTorch Profiler") becomes a negative number of its own.
    std::int64_t textId(const std::string& s) { return -1 - intern(s); }

    void finishEvent() {
        TraceEventKind kind{};
        if (m.ph != 'X' || !m.has_ts || !kindOfCategory(m.cat, kind)) {
            ++m_trace.skipped_events;
            return;
        }
        if (m_trace.events.size() >= kMaxTraceEvents)
            throw InputError(m_trace.file + ": more than " + std::to_string(kMaxTraceEvents) +
                             " events; profile fewer steps");
        TraceEvent e = m.event;
        e.kind = kind;
        e.name = intern(m.name);
        if (!m.pid_text.empty())
            e.pid = textId(m.pid_text);
        if (!m.tid_text.empty())
            e.tid = textId(m.tid_text);
        if (kind == TraceEventKind::CpuOp && m.dims_ok && !m.dims.empty()) {
            e.dims_offset = static_cast<std::int32_t>(m_trace.dims.size());
            e.dims_count = static_cast<std::int32_t>(m.dims.size());
            m_trace.dims.insert(m_trace.dims.end(), m.dims.begin(), m.dims.end());
        }
        if (kind == TraceEventKind::CpuOp && !m.input_type.empty())
            e.input_type = intern(m.input_type);
        m_trace.events.push_back(e);
    }

    KinetoTrace& m_trace;
    std::vector<Ctx> m_stack;
    std::string m_key;
    Scratch m;
    std::unordered_map<std::string, std::int32_t> m_ids;
};

// Room for the events a trace of `bytes` holds, made once: growing the vector by doubling
// copies it and touches fresh pages each time, which costs more than the parse in a VM.
// Unused capacity is address space only, never touched.
constexpr std::uint64_t kBytesPerKeptEvent = 150; // kept events are most of a trace's text
constexpr std::uint64_t kGzipRatio = 10;

KinetoTrace parseFrom(TraceInputBuffer& buffer, const std::string& file, std::uint64_t size_hint) {
    KinetoTrace trace;
    trace.file = file;
    trace.events.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(size_hint / kBytesPerKeptEvent, kMaxTraceEvents)));
    TraceSax sax(trace);
    std::istream in(&buffer);
    const bool ok = nlohmann::json::sax_parse(in, &sax);
    trace.compressed = buffer.compressed();
    trace.text_bytes = buffer.textBytes();
    if (!ok)
        throw InputError(file + ": not a JSON trace: " +
                         (sax.error.empty() ? std::string("parse error") : sax.error));
    if (!sax.saw_events)
        throw InputError(file + ": no \"traceEvents\": not a Chrome trace of the PyTorch profiler");
    bool kernels = false;
    for (const TraceEvent& e : trace.events)
        kernels = kernels || e.kind == TraceEventKind::Kernel;
    if (!kernels)
        throw InputError(file + ": no GPU kernels in the trace (profile with "
                                "ProfilerActivity.CUDA)");
    return trace;
}

} // namespace

KinetoTrace readKinetoTrace(const std::string& path) {
    auto buffer = TraceInputBuffer::openFile(path);
    std::error_code ec;
    std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec)
        size = 0;
    // A .gz says nothing of its text's size; profiler JSON inflates about tenfold.
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0)
        size *= kGzipRatio;
    return parseFrom(*buffer, path, size);
}

KinetoTrace parseKinetoTrace(std::string_view bytes, const std::string& file) {
    auto buffer = TraceInputBuffer::fromMemory(bytes, file);
    return parseFrom(*buffer, file, bytes.size());
}

} // namespace iterscope
