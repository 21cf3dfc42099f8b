#include "plan/prices.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"

#include <algorithm>

using nlohmann::json;

namespace iterscope {

namespace {

constexpr double kMaxUsdPerGpuHour = 10000;
constexpr double kMaxWatts = 1e6;

void requireId(const profile_json::Fields& f, const std::string& field, const std::string& id) {
    if (!profile_json::isValidId(id))
        f.fail(field, "not a profile id: " + profile_json::quoted(id));
}

template <typename Profile>
bool knownId(const std::vector<Profile>& profiles, const std::vector<std::string>& shipped,
             const std::string& id) {
    return std::any_of(profiles.begin(), profiles.end(),
                       [&](const Profile& p) { return p.id == id; }) ||
           std::find(shipped.begin(), shipped.end(), id) != shipped.end();
}

} // namespace

namespace {
PriceOverrides parseDocument(const json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-prices", 1);
    PriceOverrides p;
    p.file = file;
    p.source = f.text("source", "", 4096);
    p.date = f.text("date", "", 16);
    if (!p.date.empty() && !profile_json::isIsoDate(p.date))
        f.fail("date", "must be YYYY-MM-DD, got " + profile_json::quoted(p.date));
    const json* gpus = f.object("gpus", false);
    const json* systems = f.object("systems", false);
    if (gpus == nullptr && systems == nullptr)
        f.fail("gpus", "missing: a prices file names at least one GPU or system");
    if (gpus != nullptr) {
        for (const auto& [id, entry] : gpus->items()) {
            requireId(f, "gpus", id);
            if (!entry.is_object())
                f.fail("gpus." + id, "must be an object");
            profile_json::Fields g(file, entry, "gpus." + id + ".");
            PriceOverrides::Gpu gpu;
            if (g.has("usd_per_gpu_hour"))
                gpu.usd_per_gpu_hour = g.number("usd_per_gpu_hour", 0, kMaxUsdPerGpuHour);
            if (g.has("board_watts"))
                gpu.board_watts = g.number("board_watts", 0, kMaxWatts);
            g.finish();
            if (!gpu.usd_per_gpu_hour && !gpu.board_watts)
                g.fail("usd_per_gpu_hour", "missing: give usd_per_gpu_hour, board_watts or both");
            p.gpus[id] = gpu;
        }
    }
    if (systems != nullptr) {
        for (const auto& [id, entry] : systems->items()) {
            requireId(f, "systems", id);
            if (!entry.is_object())
                f.fail("systems." + id, "must be an object");
            profile_json::Fields s(file, entry, "systems." + id + ".");
            PriceOverrides::System system;
            system.host_watts_per_node = s.number("host_watts_per_node", 0, kMaxWatts);
            s.finish();
            p.systems[id] = system;
        }
    }
    f.finish();
    return p;
}
} // namespace

PriceOverrides parsePriceOverrides(const std::string& text, const std::string& file) {
    return parseDocument(profile_json::parseText(text, file), file);
}

PriceOverrides loadPriceOverrides(const std::string& path) {
    return parseDocument(profile_json::readFile(path), path);
}

void applyPriceOverrides(const PriceOverrides& prices, std::vector<GpuProfile>& gpus,
                         std::vector<SystemProfile>& systems) {
    const std::vector<std::string> shipped_gpus = gpuIds();
    const std::vector<std::string> shipped_systems = systemIds();
    for (const auto& [id, entry] : prices.gpus)
        if (!knownId(gpus, shipped_gpus, id))
            throw InputError(prices.file + ": gpus." + id + ": no GPU profile with this id");
    for (const auto& [id, entry] : prices.systems)
        if (!knownId(systems, shipped_systems, id))
            throw InputError(prices.file + ": systems." + id + ": no system profile with this id");

    std::string source = "prices file " + prices.file;
    if (!prices.source.empty())
        source += ": " + prices.source;
    for (GpuProfile& gpu : gpus) {
        const auto it = prices.gpus.find(gpu.id);
        if (it == prices.gpus.end())
            continue;
        if (it->second.usd_per_gpu_hour) {
            gpu.usd_per_gpu_hour = it->second.usd_per_gpu_hour;
            gpu.price_source = source;
            gpu.price_date = prices.date;
        }
        if (it->second.board_watts)
            gpu.tdp_watts = *it->second.board_watts;
    }
    for (SystemProfile& system : systems) {
        const auto it = prices.systems.find(system.id);
        if (it != prices.systems.end() && it->second.host_watts_per_node)
            system.host_watts_per_node = *it->second.host_watts_per_node;
    }
}

} // namespace iterscope
