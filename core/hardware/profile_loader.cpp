// GPU and system profiles (docs/profiles.md). Software profiles are read by
// software_profile.cpp with the same strict reader (profile_json.h).
#include "hardware/profile_loader.h"

#include "hardware/architecture.h"
#include "hardware/profile_json.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

namespace fs = std::filesystem;
using nlohmann::json;

namespace iterscope {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kBytesPerMib = 1024.0 * 1024.0;
// A spec sheet's FP32 figure is 2 x lanes x SMs x boost clock, rounded; a file that
// disagrees by more than this has a typo (or describes a two-die board as one GPU).
constexpr double kFp32Tolerance = 0.10;

bool isDirectory(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

std::string formatNumber(double v, int precision = 4) {
    std::ostringstream out;
    out.precision(precision);
    out << v;
    return out.str();
}

void checkIdMatchesFile(profile_json::Fields& f, const std::string& id,
                        const std::string& requested) {
    if (!profile_json::isValidId(id))
        f.fail("id", "must be lower-case letters, digits, '.', '-' or '_', got " +
                         profile_json::quoted(id));
    if (!requested.empty() && id != requested)
        f.fail("id", profile_json::quoted(id) + " does not match the file name " +
                         profile_json::quoted(requested));
}

// "pcie" unless the file says otherwise: a profile written before the field existed is
// almost always a card.
std::string formFactor(profile_json::Fields& f, const std::string& key) {
    const std::string v = f.text(key, "pcie", 16);
    if (v != "pcie" && v != "sxm")
        f.fail(key, "must be \"pcie\" or \"sxm\", got " + profile_json::quoted(v));
    return v;
}

// An architecture the model has no facts for would silently take default ones: a B200 written
// from its spec sheet as "Blackwell" came out a third to twice too fast. It is an error that
// lists the known ones, unless the profile names a known one it is "like" (its facts stand
// in, and every prediction says so). Without an architectures file there is nothing to
// check against.
void checkArchitecture(profile_json::Fields& f, GpuProfile& g) {
    const std::vector<std::string> known = knownArchitectures();
    auto isKnown = [&](const std::string& a) {
        return std::find(known.begin(), known.end(), a) != known.end();
    };
    auto list = [&] {
        std::string names;
        for (const std::string& a : known)
            names += (names.empty() ? "" : ", ") + a;
        return names;
    };
    g.like_architecture = f.text("like", "", 64);
    if (!g.like_architecture.empty() && !isKnown(g.like_architecture))
        f.fail("like", "unknown architecture " + profile_json::quoted(g.like_architecture) +
                           " (known: " + list() + ")");
    if (known.empty() || isKnown(g.architecture)) {
        g.like_architecture.clear();
        return;
    }
    if (g.like_architecture.empty())
        f.fail("architecture",
               "unknown " + profile_json::quoted(g.architecture) + " (known: " + list() +
                   "); for a new one, name the known architecture it is most like in \"like\"");
}

GpuProfile parseGpu(const json& doc, const std::string& file, const std::string& requested) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-gpu", 1);
    GpuProfile g;
    g.id = f.text("id", 64);
    checkIdMatchesFile(f, g.id, requested);
    g.name = f.text("name", 200);
    g.architecture = f.text("architecture", 64);
    g.source = f.text("source", 16384);
    g.notes = f.text("notes", "", 16384);
    if (g.name.empty())
        f.fail("name", "must not be empty");
    if (g.source.empty())
        f.fail("source", "must name where the figures come from");

    g.sm_count = f.integer("sm_count", 1, 10000);
    g.fp32_lanes_per_sm = f.integer("fp32_lanes_per_sm", 1, 1024);
    g.boost_clock_mhz = f.number("boost_clock_mhz", 1, 10000);
    g.sustained_clock_mhz = f.number("sustained_clock_mhz", 0, 10000, 0);
    if (g.sustained_clock_mhz > g.boost_clock_mhz)
        f.fail("sustained_clock_mhz",
               formatNumber(g.sustained_clock_mhz) + " MHz is above the boost clock, " +
                   formatNumber(g.boost_clock_mhz) + " MHz: a power limit only lowers it");
    g.fp32_tflops = f.number("fp32_tflops", 0.001, 10000);
    g.tf32_tflops = f.number("tf32_tflops", 0, 100000);
    g.fp16_tensor_tflops = f.number("fp16_tensor_tflops", 0, 100000);
    g.fp16_tflops = f.number("fp16_tflops", 0, 100000);
    const double derived = 2.0 * g.fp32_lanes_per_sm * g.sm_count * g.boost_clock_mhz * 1e-6;
    if (std::abs(g.fp32_tflops / derived - 1.0) > kFp32Tolerance)
        f.fail("fp32_tflops", formatNumber(g.fp32_tflops) +
                                  " disagrees with 2 x fp32_lanes_per_sm x sm_count x "
                                  "boost_clock_mhz = " +
                                  formatNumber(derived) + " by more than 10%");

    g.memory_bytes =
        static_cast<int64_t>(std::llround(f.number("memory_gib", 1.0 / 1024, 1e6) * kBytesPerGib));
    g.memory_bandwidth_gbps = f.number("memory_bandwidth_gbps", 0.1, 1e6);
    g.l2_bytes = static_cast<int64_t>(std::llround(f.number("l2_mib", 0, 1e5) * kBytesPerMib));
    g.pcie_gen = f.integer("pcie_gen", 1, 7);
    g.pcie_lanes = f.integer("pcie_lanes", 1, 32);
    g.nvlink_links = f.integer("nvlink_links", 0, 64);
    g.nvlink_gbps_per_link = f.number("nvlink_gbps_per_link", 0, 1000);
    if ((g.nvlink_links > 0) != (g.nvlink_gbps_per_link > 0))
        f.fail("nvlink_gbps_per_link", g.nvlink_links > 0 ? "must be positive when nvlink_links is"
                                                          : "must be 0 when nvlink_links is 0");
    g.pcie_p2p = f.boolean("pcie_p2p", true);
    g.tdp_watts = f.number("tdp_watts", 0, 10000);
    g.cpu_link = f.text("cpu_link", "pcie", 64);
    g.cpu_link_gbps = f.number("cpu_link_gbps", 0, 100000, 0);
    if (g.cpu_link != "pcie" && g.cpu_link != "nvlink-c2c")
        f.fail("cpu_link",
               "must be \"pcie\" or \"nvlink-c2c\", got " + profile_json::quoted(g.cpu_link));
    if ((g.cpu_link == "nvlink-c2c") != (g.cpu_link_gbps > 0))
        f.fail("cpu_link_gbps", g.cpu_link == "nvlink-c2c"
                                    ? "must be positive when cpu_link is \"nvlink-c2c\""
                                    : "only for cpu_link \"nvlink-c2c\" (PCIe is the system's)");
    g.compute_capability = f.number("compute_capability", 1, 100, 0);
    g.form_factor = formFactor(f, "form_factor");
    if (f.has("usd_per_gpu_hour")) {
        g.usd_per_gpu_hour = f.number("usd_per_gpu_hour", 0, 10000);
        g.price_source = f.text("price_source", 4096);
        g.price_date = f.text("price_date", 16);
        if (g.price_source.empty())
            f.fail("price_source", "must say where usd_per_gpu_hour comes from");
        if (!profile_json::isIsoDate(g.price_date))
            f.fail("price_date", "must be the day the price was read, YYYY-MM-DD, got " +
                                     profile_json::quoted(g.price_date));
    } else {
        for (const char* key : {"price_source", "price_date"})
            if (f.has(key))
                f.fail(key, "only with usd_per_gpu_hour");
    }

    if (const json* measured = f.object("measured", false)) {
        profile_json::Fields m(file, *measured, "measured.");
        g.calibrated = true;
        g.measured_memory_bandwidth_gbps = m.number("memory_bandwidth_gbps", 0, 1e6, 0);
        g.measured_fp32_tflops = m.number("fp32_tflops", 0, 100000, 0);
        g.measured_tf32_tflops = m.number("tf32_tflops", 0, 100000, 0);
        g.measured_fp16_tensor_tflops = m.number("fp16_tensor_tflops", 0, 100000, 0);
        g.measured_launch_overhead_us = m.number("launch_overhead_us", 0, 1e6, 0);
        m.text("device", "", 200);
        m.text("date", "", 64);
        m.text("tool", "", 200);
        m.finish();
    }
    checkArchitecture(f, g);
    f.finish();
    applyArchitecture(g);
    return g;
}

void parseNvlinkPairs(profile_json::Fields& f, const json& pairs, SystemProfile& s) {
    std::set<std::pair<int, int>> seen;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const std::string field = "nvlink_pairs[" + std::to_string(i) + "]";
        const json& p = pairs[i];
        if (!p.is_array() || p.size() != 3 || !p[0].is_number_integer() ||
            !p[1].is_number_integer() || !p[2].is_number_integer())
            f.fail(field, "must be [gpu_a, gpu_b, links] with three integers");
        const double a = p[0].get<double>(), b = p[1].get<double>(), n = p[2].get<double>();
        if (a < 0 || b < 0 || a >= s.gpus_per_node || b >= s.gpus_per_node)
            f.fail(field, "GPU index out of range 0.." + std::to_string(s.gpus_per_node - 1) +
                              " (gpus_per_node " + std::to_string(s.gpus_per_node) + ")");
        if (a == b)
            f.fail(field, "joins GPU " + formatNumber(a) + " to itself");
        if (n < 1 || n > 64)
            f.fail(field, "link count must be between 1 and 64");
        SystemProfile::NvlinkPair pair{static_cast<int>(a), static_cast<int>(b),
                                       static_cast<int>(n)};
        if (!seen.insert({std::min(pair.a, pair.b), std::max(pair.a, pair.b)}).second)
            f.fail(field, "pair " + std::to_string(pair.a) + "-" + std::to_string(pair.b) +
                              " listed twice");
        s.nvlink_pairs.push_back(pair);
    }
    // A bridge joins two cards; NVLink meshes give a GPU several peers.
    if (s.intra_node != "pcie")
        return;
    std::set<int> bridged;
    for (std::size_t i = 0; i < s.nvlink_pairs.size(); ++i)
        for (const int gpu : {s.nvlink_pairs[i].a, s.nvlink_pairs[i].b})
            if (!bridged.insert(gpu).second)
                f.fail("nvlink_pairs[" + std::to_string(i) + "]",
                       "GPU " + std::to_string(gpu) +
                           " is bridged twice: an NVLink bridge in a PCIe system joins one pair "
                           "of cards");
}

SystemProfile parseSystem(const json& doc, const std::string& file, const std::string& requested) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-system", 1);
    SystemProfile s;
    s.id = f.text("id", 64);
    checkIdMatchesFile(f, s.id, requested);
    s.name = f.text("name", 200);
    s.source = f.text("source", 16384);
    s.notes = f.text("notes", "", 16384);
    if (s.name.empty())
        f.fail("name", "must not be empty");
    if (s.source.empty())
        f.fail("source", "must name where the figures come from");
    s.default_gpu = f.text("default_gpu", "", 64);
    if (!s.default_gpu.empty() && !profile_json::isValidId(s.default_gpu))
        f.fail("default_gpu", "not a profile id: " + profile_json::quoted(s.default_gpu));

    s.gpus_per_node = f.integer("gpus_per_node", 1, 64);
    s.max_nodes = f.integer("max_nodes", 1, 1024);

    s.intra_node = f.text("intra_node", 64);
    const json* pairs = f.array("nvlink_pairs", false);
    s.nvswitch_gbps_per_gpu = f.number("nvswitch_gbps_per_gpu", 0, 100000, 0);
    s.nvlink_sharp = f.boolean("nvlink_sharp", false);
    s.nvlink_domain_nodes = f.integer("nvlink_domain_nodes", 1, 1024, 1);
    if (s.intra_node == "nvlink-cube-mesh") {
        if (pairs == nullptr || pairs->empty())
            f.fail("nvlink_pairs", "required and non-empty when intra_node is "
                                   "\"nvlink-cube-mesh\"");
        parseNvlinkPairs(f, *pairs, s);
    } else if (s.intra_node == "pcie") {
        // NVLink bridges on pairs of PCIe cards (RTX 3090, A6000, H100 NVL): the pairs say which.
        if (pairs != nullptr)
            parseNvlinkPairs(f, *pairs, s);
    } else if (s.intra_node == "nvswitch") {
        if (pairs != nullptr && !pairs->empty())
            f.fail("nvlink_pairs", "not for intra_node \"nvswitch\", where every GPU reaches "
                                   "every other through the switches");
    } else {
        f.fail("intra_node", "must be \"pcie\", \"nvlink-cube-mesh\" or \"nvswitch\", got " +
                                 profile_json::quoted(s.intra_node));
    }
    if ((s.intra_node == "nvswitch") != (s.nvswitch_gbps_per_gpu > 0))
        f.fail("nvswitch_gbps_per_gpu", s.intra_node == "nvswitch"
                                            ? "must be positive when intra_node is \"nvswitch\""
                                            : "only for intra_node \"nvswitch\"");
    if (s.nvlink_domain_nodes > 1 && s.intra_node != "nvswitch")
        f.fail("nvlink_domain_nodes", "an NVLink domain wider than a node needs NVLink switches "
                                      "(intra_node \"nvswitch\")");
    if (s.nvlink_domain_nodes > s.max_nodes)
        f.fail("nvlink_domain_nodes", std::to_string(s.nvlink_domain_nodes) +
                                          " nodes in one NVLink domain, but max_nodes is " +
                                          std::to_string(s.max_nodes));

    s.pcie_gen = f.integer("pcie_gen", 1, 7);
    s.gpus_per_pcie_switch = f.integer("gpus_per_pcie_switch", 1, s.gpus_per_node);
    s.pcie_gbps = f.number("pcie_gbps", 0.01, 10000);
    s.host_pcie_gbps = f.number("host_pcie_gbps", 0.01, 100000);
    s.cpu_memory_bandwidth_gbps = f.number("cpu_memory_bandwidth_gbps", 0, 100000, 0);
    s.inter_socket_gbps = f.number("inter_socket_gbps", 0, 100000, 0);
    s.cpu_sockets = f.integer("cpu_sockets", 1, 16);

    s.network = f.text("network", 64);
    s.nics_per_node = f.integer("nics_per_node", 0, 64);
    s.nic_gbps = f.number("nic_gbps", 0, 10000);
    s.network_latency_us = f.number("network_latency_us", 0, 1e6);
    s.network_sharp = f.boolean("network_sharp", false);
    s.cpu_cores_per_node = f.integer("cpu_cores_per_node", 0, 100000, 0);
    s.cpu_threads_per_node = f.integer("cpu_threads_per_node", 0, 100000, s.cpu_cores_per_node);
    if (s.cpu_threads_per_node < s.cpu_cores_per_node)
        f.fail("cpu_threads_per_node", "must be at least cpu_cores_per_node");
    if (s.network.empty())
        f.fail("network", "must not be empty (\"none\" for a single node)");
    if (s.network == "none") {
        if (s.max_nodes != 1)
            f.fail("max_nodes", "must be 1 when network is \"none\"");
    } else {
        if (s.nics_per_node < 1)
            f.fail("nics_per_node", "must be at least 1 when there is a network");
        if (s.nic_gbps <= 0)
            f.fail("nic_gbps", "must be positive when there is a network");
    }
    s.host_watts_per_node = f.number("host_watts_per_node", 0, 1e6, 0);
    s.gpu_form_factor = formFactor(f, "gpu_form_factor");
    if (const json* gpus = f.array("compatible_gpus", false)) {
        for (std::size_t i = 0; i < gpus->size(); ++i) {
            const json& id = (*gpus)[i];
            const std::string field = "compatible_gpus[" + std::to_string(i) + "]";
            if (!id.is_string() || !profile_json::isValidId(id.get<std::string>()))
                f.fail(field, "must be a GPU profile id");
            s.compatible_gpus.push_back(id.get<std::string>());
        }
    }
    f.finish();
    return s;
}

// Requested id when loading by id (the file's "id" must match), empty for a path.
std::string requestedId(const std::string& id_or_path) {
    return profile_json::looksLikePath(id_or_path) ? std::string() : id_or_path;
}

const char* networkTitle(const std::string& network) {
    if (network == "10gbe")
        return "10 GbE";
    if (network == "25gbe")
        return "25 GbE";
    if (network == "100gbe")
        return "100 GbE";
    if (network == "edr-ib")
        return "EDR InfiniBand";
    if (network == "hdr-ib")
        return "HDR InfiniBand";
    if (network == "ndr-ib")
        return "NDR InfiniBand";
    return nullptr;
}

} // namespace

namespace {

std::string findProfilesDir() {
    // The installed layout next to the running program wins over the source tree: an
    // installed copy on the build machine must read the profiles it was installed with.
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed =
            (exe.parent_path() / ".." / "share" / "iterscope" / "profiles").lexically_normal();
        if (isDirectory(installed))
            return installed.string();
    }
#ifdef ITERSCOPE_SOURCE_PROFILES_DIR
    if (isDirectory(ITERSCOPE_SOURCE_PROFILES_DIR))
        return ITERSCOPE_SOURCE_PROFILES_DIR;
#endif
#ifdef ITERSCOPE_INSTALL_DATADIR
    return std::string(ITERSCOPE_INSTALL_DATADIR) + "/profiles";
#else
    return "/usr/share/iterscope/profiles";
#endif
}

} // namespace

std::string profilesDir() {
    if (const char* env = std::getenv("ITERSCOPE_PROFILES"); env != nullptr && *env != '\0')
        return env;
    // Found once: the program does not move while it runs, and a plan asks for every
    // candidate's error band and architecture, each of which asked here (a readlink and a
    // stat, a third of the plan's time).
    static const std::string found = findProfilesDir();
    return found;
}

GpuProfile loadGpuProfile(const std::string& id_or_path) {
    const std::string file = profile_json::resolve(id_or_path, "gpus", "GPU");
    return parseGpu(profile_json::readFile(file), file, requestedId(id_or_path));
}

SystemProfile loadSystemProfile(const std::string& id_or_path) {
    const std::string file = profile_json::resolve(id_or_path, "systems", "system");
    return parseSystem(profile_json::readFile(file), file, requestedId(id_or_path));
}

GpuProfile parseGpuProfile(const std::string& text, const std::string& file) {
    return parseGpu(profile_json::parseText(text, file), file, {});
}

SystemProfile parseSystemProfile(const std::string& text, const std::string& file) {
    return parseSystem(profile_json::parseText(text, file), file, {});
}

std::vector<std::string> gpuIds() {
    return profile_json::listIds("gpus");
}
std::vector<std::string> systemIds() {
    return profile_json::listIds("systems");
}

std::string gpuSummary(const GpuProfile& gpu) {
    std::string s =
        std::to_string(gpu.sm_count) + " SMs, " + formatNumber(gpu.fp32_tflops) + " TFLOP/s FP32";
    if (gpu.tf32_tflops > 0)
        s += ", " + formatNumber(gpu.tf32_tflops) + " TF32";
    if (gpu.fp16_tensor_tflops > 0)
        s += ", " + formatNumber(gpu.fp16_tensor_tflops) + " FP16 tensor";
    else if (gpu.fp16_tflops > 0)
        s += ", " + formatNumber(gpu.fp16_tflops) + " FP16";
    s += ", " + formatNumber(static_cast<double>(gpu.memory_bytes) / kBytesPerGib) + " GB @ " +
         formatNumber(gpu.memory_bandwidth_gbps) + " GB/s";
    if (gpu.calibrated)
        s += " (calibrated)";
    return s;
}

std::string systemSummary(const SystemProfile& system) {
    std::string s = std::to_string(system.gpus_per_node) + " GPUs per node, ";
    if (system.intra_node == "nvlink-cube-mesh")
        s += "NVLink hybrid cube-mesh";
    else if (system.intra_node == "nvswitch")
        s += "NVSwitch " + formatNumber(system.nvswitch_gbps_per_gpu) + " GB/s per GPU";
    else
        s += "PCIe only";
    s += ", PCIe " + std::to_string(system.pcie_gen) + ".0";
    if (system.network != "none") {
        const char* title = networkTitle(system.network);
        s += ", " + std::to_string(system.nics_per_node) + " x " +
             (title ? std::string(title)
                    : formatNumber(system.nic_gbps * 8) + " Gb/s " + system.network);
    }
    if (system.max_nodes > 1)
        s += ", up to " + std::to_string(system.max_nodes) + " nodes";
    return s;
}

} // namespace iterscope
