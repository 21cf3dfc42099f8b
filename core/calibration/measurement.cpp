#include "calibration/measurement.h"

#include "util/error.h"
#include "util/precision.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace iterscope {
namespace {

using nlohmann::json;

// Bounds that keep a hostile file from making us allocate or loop without end; a real
// measurement has a few hundred layers and a few dozen message sizes.
constexpr std::size_t kMaxLayers = 100000;
constexpr std::size_t kMaxPoints = 10000;
constexpr std::size_t kMaxRuns = 64;
constexpr std::size_t kMaxFileBytes = 64u << 20;

// Reads fields of one JSON object, naming the field path in every error.
class Reader {
  public:
    Reader(const json& object, std::string path)
        : m_object(object)
        , m_path(std::move(path)) {
        if (!m_object.is_object())
            fail("", "must be an object");
    }

    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw InputError(m_path + (key.empty() ? "" : "." + key) + ": " + problem);
    }

    const json* find(const std::string& key) const {
        auto it = m_object.find(key);
        return it == m_object.end() || it->is_null() ? nullptr : &*it;
    }

    double number(const std::string& key, double fallback = 0, bool required = false) const {
        const json* v = find(key);
        if (!v) {
            if (required)
                fail(key, "missing");
            return fallback;
        }
        if (!v->is_number())
            fail(key, "must be a number");
        const double d = v->get<double>();
        if (!std::isfinite(d) || d < 0)
            fail(key, "must be a finite non-negative number");
        return d;
    }

    int64_t integer(const std::string& key, int64_t fallback = 0, bool required = false) const {
        const json* v = find(key);
        if (!v) {
            if (required)
                fail(key, "missing");
            return fallback;
        }
        if (!v->is_number_integer())
            fail(key, "must be an integer");
        const int64_t i = v->is_number_unsigned()
                              ? static_cast<int64_t>(std::min<uint64_t>(
                                    v->get<uint64_t>(),
                                    static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
                              : v->get<int64_t>();
        if (i < 0)
            fail(key, "must not be negative");
        return i;
    }

    int smallInt(const std::string& key, int fallback = 0) const {
        const int64_t i = integer(key, fallback);
        if (i > std::numeric_limits<int>::max())
            fail(key, "is too large");
        return static_cast<int>(i);
    }

    std::string string(const std::string& key, const std::string& fallback = "",
                       bool required = false) const {
        const json* v = find(key);
        if (!v) {
            if (required)
                fail(key, "missing");
            return fallback;
        }
        if (!v->is_string())
            fail(key, "must be a string");
        return v->get<std::string>();
    }

    bool boolean(const std::string& key, bool fallback) const {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean())
            fail(key, "must be true or false");
        return v->get<bool>();
    }

    // An optional array with at most max_size entries; empty when absent.
    const json& array(const std::string& key, std::size_t max_size) const {
        static const json empty = json::array();
        const json* v = find(key);
        if (!v)
            return empty;
        if (!v->is_array())
            fail(key, "must be an array");
        if (v->size() > max_size)
            fail(key, "has more than " + std::to_string(max_size) + " entries");
        return *v;
    }

    std::string child(const std::string& key) const { return m_path + "." + key; }

  private:
    const json& m_object;
    std::string m_path;
};

json deviceToJson(const DeviceFacts& d) {
    return json{{"index", d.index},
                {"name", d.name},
                {"compute_capability",
                 std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
                {"sm_count", d.sm_count},
                {"sm_clock_mhz", d.sm_clock_mhz},
                {"memory_clock_mhz", d.memory_clock_mhz},
                {"memory_bus_bits", d.memory_bus_bits},
                {"memory_bytes", d.memory_bytes},
                {"l2_bytes", d.l2_bytes},
                {"max_threads_per_sm", d.max_threads_per_sm},
                {"pci_bus_id", d.pci_bus_id},
                {"driver_version", d.driver_version},
                {"runtime_version", d.runtime_version},
                {"cudnn_version", d.cudnn_version},
                {"cublas_version", d.cublas_version},
                {"nccl_version", d.nccl_version},
                {"visible_gpus", d.visible_gpus}};
}

DeviceFacts deviceFromJson(const json& j, const std::string& path) {
    Reader r(j, path);
    DeviceFacts d;
    d.index = r.smallInt("index");
    d.name = r.string("name", "", true);
    const std::string cc = r.string("compute_capability", "0.0");
    int major = 0, minor = 0;
    char dot = 0;
    std::istringstream in(cc);
    if (!(in >> major >> dot >> minor) || dot != '.' || major < 0 || minor < 0)
        r.fail("compute_capability", "must look like \"9.0\"");
    d.compute_major = major;
    d.compute_minor = minor;
    d.sm_count = r.smallInt("sm_count");
    d.sm_clock_mhz = r.number("sm_clock_mhz");
    d.memory_clock_mhz = r.number("memory_clock_mhz");
    d.memory_bus_bits = r.smallInt("memory_bus_bits");
    d.memory_bytes = r.integer("memory_bytes");
    d.l2_bytes = r.integer("l2_bytes");
    d.max_threads_per_sm = r.smallInt("max_threads_per_sm");
    d.pci_bus_id = r.string("pci_bus_id");
    d.driver_version = r.smallInt("driver_version");
    d.runtime_version = r.smallInt("runtime_version");
    d.cudnn_version = r.smallInt("cudnn_version");
    d.cublas_version = r.smallInt("cublas_version");
    d.nccl_version = r.smallInt("nccl_version");
    d.visible_gpus = r.smallInt("visible_gpus");
    return d;
}

json peaksToJson(const MeasuredPeaks& p) {
    json gemm = json::array();
    for (const GemmPoint& g : p.gemm)
        gemm.push_back({{"precision", g.precision},
                        {"library", g.library},
                        {"m", g.m},
                        {"n", g.n},
                        {"k", g.k},
                        {"ms", g.ms},
                        {"tflops", g.tflops}});
    return json{{"memory_bandwidth_gbps", p.memory_bandwidth_gbps},
                {"fp32_tflops", p.fp32_tflops},
                {"tf32_tflops", p.tf32_tflops},
                {"fp16_tensor_tflops", p.fp16_tensor_tflops},
                {"bf16_tensor_tflops", p.bf16_tensor_tflops},
                {"launch_overhead_us", p.launch_overhead_us},
                {"gemm", gemm}};
}

MeasuredPeaks peaksFromJson(const json& j, const std::string& path) {
    Reader r(j, path);
    MeasuredPeaks p;
    p.memory_bandwidth_gbps = r.number("memory_bandwidth_gbps");
    p.fp32_tflops = r.number("fp32_tflops");
    p.tf32_tflops = r.number("tf32_tflops");
    p.fp16_tensor_tflops = r.number("fp16_tensor_tflops");
    p.bf16_tensor_tflops = r.number("bf16_tensor_tflops");
    p.launch_overhead_us = r.number("launch_overhead_us");
    const json& gemm = r.array("gemm", kMaxPoints);
    for (std::size_t i = 0; i < gemm.size(); ++i) {
        Reader g(gemm[i], r.child("gemm[" + std::to_string(i) + "]"));
        p.gemm.push_back(GemmPoint{g.string("precision", "", true), g.string("library"),
                                   g.integer("m"), g.integer("n"), g.integer("k"), g.number("ms"),
                                   g.number("tflops")});
    }
    return p;
}

json layerToJson(const LayerMeasurement& l) {
    json j{{"index", l.index},
           {"name", l.name},
           {"kind", l.kind},
           {"measured", l.measured},
           {"forward_ms", l.forward_ms},
           {"backward_data_ms", l.backward_data_ms},
           {"backward_filter_ms", l.backward_filter_ms},
           {"backward_ms", l.backward_ms}};
    if (!l.forward_algorithm.empty())
        j["forward_algorithm"] = l.forward_algorithm;
    if (!l.backward_data_algorithm.empty())
        j["backward_data_algorithm"] = l.backward_data_algorithm;
    if (!l.backward_filter_algorithm.empty())
        j["backward_filter_algorithm"] = l.backward_filter_algorithm;
    if (l.workspace_bytes > 0)
        j["workspace_bytes"] = l.workspace_bytes;
    if (!l.note.empty())
        j["note"] = l.note;
    return j;
}

LayerMeasurement layerFromJson(const json& j, const std::string& path) {
    Reader r(j, path);
    LayerMeasurement l;
    l.index = static_cast<std::size_t>(r.integer("index", 0, true));
    l.name = r.string("name", "", true);
    l.kind = r.string("kind");
    l.measured = r.boolean("measured", true);
    l.forward_ms = r.number("forward_ms");
    l.backward_data_ms = r.number("backward_data_ms");
    l.backward_filter_ms = r.number("backward_filter_ms");
    // Older or hand-written files may give only the sum, or only its parts.
    l.backward_ms = r.number("backward_ms", l.backward_data_ms + l.backward_filter_ms);
    l.forward_algorithm = r.string("forward_algorithm");
    l.backward_data_algorithm = r.string("backward_data_algorithm");
    l.backward_filter_algorithm = r.string("backward_filter_algorithm");
    l.workspace_bytes = r.integer("workspace_bytes");
    l.note = r.string("note");
    return l;
}

json runToJson(const NetworkRun& run) {
    json layers = json::array();
    for (const LayerMeasurement& l : run.layers)
        layers.push_back(layerToJson(l));
    return json{{"network", run.network},
                {"batch", run.batch},
                {"image", run.image},
                {"precision", run.precision},
                {"workspace_limit_bytes", run.workspace_limit_bytes},
                {"warmup", run.warmup},
                {"repetitions", run.repetitions},
                {"forward_ms", run.forward_ms},
                {"backward_ms", run.backward_ms},
                {"layers", layers}};
}

NetworkRun runFromJson(const json& j, const std::string& path) {
    Reader r(j, path);
    NetworkRun run;
    run.network = r.string("network", "", true);
    run.batch = r.integer("batch", 0, true);
    if (run.batch < 1)
        r.fail("batch", "must be at least 1");
    run.image = r.integer("image");
    run.precision = r.string("precision", "fp32");
    if (!parsePrecision(run.precision))
        r.fail("precision", "must be fp32, tf32, amp or bf16");
    run.workspace_limit_bytes = r.integer("workspace_limit_bytes");
    run.warmup = r.smallInt("warmup");
    run.repetitions = r.smallInt("repetitions");
    const json& layers = r.array("layers", kMaxLayers);
    double forward = 0, backward = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        run.layers.push_back(
            layerFromJson(layers[i], r.child("layers[" + std::to_string(i) + "]")));
        forward += run.layers.back().forward_ms;
        backward += run.layers.back().backward_ms;
    }
    run.forward_ms = r.number("forward_ms", forward);
    run.backward_ms = r.number("backward_ms", backward);
    return run;
}

json allreduceToJson(const AllreduceRun& a) {
    json points = json::array();
    for (const AllreducePoint& p : a.points)
        points.push_back({{"bytes", p.bytes},
                          {"time_us", p.time_us},
                          {"algbw_gbps", p.algbw_gbps},
                          {"busbw_gbps", p.busbw_gbps}});
    return json{{"ranks", a.ranks},
                {"dtype", a.dtype},
                {"latency_us", a.latency_us},
                {"peak_busbw_gbps", a.peak_busbw_gbps},
                {"points", points}};
}

AllreduceRun allreduceFromJson(const json& j, const std::string& path) {
    Reader r(j, path);
    AllreduceRun a;
    a.ranks = r.smallInt("ranks");
    if (a.ranks < 1)
        r.fail("ranks", "must be at least 1");
    a.dtype = r.string("dtype", "float");
    const json& points = r.array("points", kMaxPoints);
    for (std::size_t i = 0; i < points.size(); ++i) {
        Reader p(points[i], r.child("points[" + std::to_string(i) + "]"));
        a.points.push_back(AllreducePoint{p.integer("bytes", 0, true), p.number("time_us"),
                                          p.number("algbw_gbps"), p.number("busbw_gbps")});
    }
    a.latency_us = r.number("latency_us", a.points.empty() ? 0 : a.points.front().time_us);
    a.peak_busbw_gbps = r.number("peak_busbw_gbps");
    return a;
}

} // namespace

std::string measurementToJson(const Measurement& m) {
    json runs = json::array();
    for (const NetworkRun& run : m.runs)
        runs.push_back(runToJson(run));
    json j{{"format", kMeasurementFormat},
           {"version", m.version},
           {"tool", m.tool},
           {"created", m.created},
           {"profile_id", m.profile_id},
           {"device", deviceToJson(m.device)},
           {"peaks", peaksToJson(m.peaks)},
           {"runs", runs}};
    if (m.allreduce)
        j["allreduce"] = allreduceToJson(*m.allreduce);
    // Non-finite numbers would become null and fail to load again; they never reach here
    // because every figure is a ratio of positive timings.
    return j.dump(2) + "\n";
}

Measurement measurementFromJson(const std::string& text, const std::string& name_for_errors) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(name_for_errors + ": not valid JSON (" + e.what() + ")");
    }
    try {
        Reader r(j, name_for_errors);
        if (r.string("format", "", true) != kMeasurementFormat)
            r.fail("format", std::string("must be \"") + kMeasurementFormat + "\"");
        Measurement m;
        m.version = r.smallInt("version", 0);
        if (m.version != kMeasurementVersion)
            r.fail("version", "unsupported version " + std::to_string(m.version) + " (expected " +
                                  std::to_string(kMeasurementVersion) + ")");
        m.tool = r.string("tool");
        m.created = r.string("created");
        m.profile_id = r.string("profile_id");
        if (const json* d = r.find("device"))
            m.device = deviceFromJson(*d, r.child("device"));
        if (const json* p = r.find("peaks"))
            m.peaks = peaksFromJson(*p, r.child("peaks"));
        const json& runs = r.array("runs", kMaxRuns);
        for (std::size_t i = 0; i < runs.size(); ++i)
            m.runs.push_back(runFromJson(runs[i], r.child("runs[" + std::to_string(i) + "]")));
        if (const json* a = r.find("allreduce"))
            m.allreduce = allreduceFromJson(*a, r.child("allreduce"));
        return m;
    } catch (const json::exception& e) {
        // Reader checks types before every get(), so this is a last line of defence.
        throw InputError(name_for_errors + ": " + e.what());
    }
}

Measurement readMeasurementFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot open the measurement file");
    std::string text;
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxFileBytes)
            throw InputError(path + ": larger than 64 MiB, not a measurement file");
    }
    return measurementFromJson(text, path);
}

double allreduceBusFactor(int ranks) {
    return ranks < 1 ? 0.0 : 2.0 * (ranks - 1) / ranks;
}

AllreducePoint allreducePoint(int64_t bytes, double seconds, int ranks) {
    AllreducePoint p;
    p.bytes = bytes;
    p.time_us = seconds * 1e6;
    p.algbw_gbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
    p.busbw_gbps = p.algbw_gbps * allreduceBusFactor(ranks);
    return p;
}

double medianOf(std::vector<double> values) {
    if (values.empty())
        return 0;
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid),
                     values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1)
        return upper;
    const double lower =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2;
}

void writeTextFile(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw InputError(path + ": cannot open for writing");
    out << text;
    out.flush();
    if (!out)
        throw InputError(path + ": write failed");
}

} // namespace iterscope
