#include "hardware/architecture.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace fs = std::filesystem;

namespace iterscope {

namespace {

using Table = std::map<std::string, ArchitectureFacts>;

Table parseTable(const nlohmann::json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-architectures", 1);
    f.text("source", 16384);
    Table table;
    const nlohmann::json* all = f.object("architectures", true);
    if (all->size() > 64)
        f.fail("architectures", "holds more than 64 entries");
    for (const auto& [name, value] : all->items()) {
        if (!value.is_object())
            f.fail("architectures." + name, "must be an object");
        profile_json::Fields a(file, value, "architectures." + name + ".");
        ArchitectureFacts facts;
        facts.compute_capability = a.number("compute_capability", 1, 100);
        facts.tensor_gemm_efficiency = a.number("tensor_gemm_efficiency", 0, 1);
        facts.tf32_gemm_efficiency = a.number("tf32_gemm_efficiency", 0, 1);
        facts.dram_efficiency = a.number("dram_efficiency", 0.05, 1);
        facts.legacy_tensor_fraction = a.number("legacy_tensor_fraction", 0.05, 1);
        a.text("source", 16384);
        a.finish();
        table.emplace(name, facts);
    }
    f.finish();
    return table;
}

// The table of the current profiles directory; re-read when ITERSCOPE_PROFILES points
// elsewhere (tests switch it).
const Table& table() {
    static std::mutex mutex;
    static std::map<std::string, Table> by_dir;
    const std::string file = (fs::path(profilesDir()) / "architectures.json").string();
    std::lock_guard lock(mutex);
    auto it = by_dir.find(file);
    if (it == by_dir.end()) {
        std::error_code ec;
        Table t = fs::is_regular_file(file, ec) ? parseTable(profile_json::readFile(file), file)
                                                : Table{};
        it = by_dir.emplace(file, std::move(t)).first;
    }
    return it->second;
}

} // namespace

bool findArchitecture(const std::string& architecture, ArchitectureFacts& out) {
    const Table& t = table();
    auto it = t.find(architecture);
    if (it == t.end())
        return false;
    out = it->second;
    return true;
}

std::vector<std::string> knownArchitectures() {
    std::vector<std::string> names;
    for (const auto& [name, facts] : table())
        names.push_back(name);
    return names;
}

void applyArchitecture(GpuProfile& gpu) {
    ArchitectureFacts facts;
    if (!findArchitecture(gpu.like_architecture.empty() ? gpu.architecture : gpu.like_architecture,
                          facts))
        return;
    if (gpu.compute_capability <= 0)
        gpu.compute_capability = facts.compute_capability;
    gpu.tensor_gemm_efficiency = facts.tensor_gemm_efficiency;
    gpu.tf32_gemm_efficiency = facts.tf32_gemm_efficiency;
    gpu.dram_efficiency = facts.dram_efficiency;
    gpu.legacy_tensor_fraction = facts.legacy_tensor_fraction;
}

} // namespace iterscope
