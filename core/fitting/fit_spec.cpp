#include "fitting/fit_spec.h"

#include "hardware/profile_json.h"
#include "util/error.h"
#include "util/text_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace iterscope {

namespace {

constexpr std::uintmax_t kMaxSpecBytes = 1 << 20;

using Field = double SoftwareProfile::*;

const std::vector<std::pair<std::string, Field>>& fieldTable() {
    static const std::vector<std::pair<std::string, Field>> table{
        {"per_layer_overhead_us", &SoftwareProfile::per_layer_overhead_us},
        {"kernel_gap_us", &SoftwareProfile::kernel_gap_us},
        {"optimizer_ops_per_tensor", &SoftwareProfile::optimizer_ops_per_tensor},
        {"conv_efficiency", &SoftwareProfile::conv_efficiency},
        {"fc_efficiency", &SoftwareProfile::fc_efficiency},
        {"tensor_core_efficiency", &SoftwareProfile::tensor_core_efficiency},
        {"tf32_efficiency", &SoftwareProfile::tf32_efficiency},
        {"gemm_k_half", &SoftwareProfile::gemm_k_half},
        {"winograd_speedup", &SoftwareProfile::winograd_speedup},
        {"memory_efficiency", &SoftwareProfile::memory_efficiency},
        {"depthwise_efficiency", &SoftwareProfile::depthwise_efficiency},
        {"input_gpu_us_per_image", &SoftwareProfile::input_gpu_us_per_image},
        {"host_images_per_core_s", &SoftwareProfile::host_images_per_core_s},
        {"policy_augment_cost", &SoftwareProfile::policy_augment_cost},
        {"nccl_efficiency", &SoftwareProfile::nccl_efficiency},
        {"sync_jitter", &SoftwareProfile::sync_jitter},
        {"network_efficiency", &SoftwareProfile::network_efficiency},
        {"memcpy_efficiency", &SoftwareProfile::memcpy_efficiency},
        {"collective_hop_latency_us", &SoftwareProfile::collective_hop_latency_us},
        {"collective_base_latency_us", &SoftwareProfile::collective_base_latency_us},
    };
    return table;
}

Field findField(const std::string& name) {
    for (const auto& [n, f] : fieldTable())
        if (n == name)
            return f;
    return nullptr;
}

} // namespace

const std::vector<std::string>& fitParameterFields() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& entry : fieldTable())
            v.push_back(entry.first);
        return v;
    }();
    return names;
}

bool setFitParameterField(SoftwareProfile& profile, const std::string& field, double value) {
    const Field f = findField(field);
    if (!f)
        return false;
    profile.*f = value;
    return true;
}

bool getFitParameterField(const SoftwareProfile& profile, const std::string& field, double& value) {
    const Field f = findField(field);
    if (!f)
        return false;
    value = profile.*f;
    return true;
}

FitSpec parseFitSpec(const std::string& text, const std::string& file) {
    const nlohmann::json doc = profile_json::parseText(text, file);
    profile_json::Fields f(file, doc);
    f.header("iterscope-fit-spec", 1);
    f.text("description", "", 16384);
    FitSpec spec;
    spec.file = file;
    const std::string loss = f.text("loss", "ape", 32);
    if (loss == "log_ratio")
        spec.loss = FitLoss::LogRatio;
    else if (loss != "ape")
        f.fail("loss", "must be \"ape\" or \"log_ratio\"");
    spec.group_limit_percent = f.number("group_limit_percent", 0, 1000, 15);
    spec.least_squares_start = f.boolean("least_squares_start", true);
    spec.prior_weight = f.number("prior_weight", 0, 1000, 0);
    const std::filesystem::path folder = std::filesystem::path(file).parent_path();
    const nlohmann::json* files = f.array("measurements", true);
    for (std::size_t i = 0; i < files->size(); ++i) {
        if (!(*files)[i].is_string())
            f.fail("measurements[" + std::to_string(i) + "]", "must be a file name");
        const std::filesystem::path p((*files)[i].get<std::string>());
        spec.measurements.push_back((p.is_absolute() ? p : folder / p).string());
    }
    if (spec.measurements.empty())
        f.fail("measurements", "names no file");
    const nlohmann::json* params = f.array("parameters", true);
    std::set<std::pair<std::string, std::string>> claimed; // (profile, field)
    for (std::size_t i = 0; i < params->size(); ++i) {
        const std::string where = "parameters[" + std::to_string(i) + "]";
        if (!(*params)[i].is_object())
            f.fail(where, "must be an object");
        profile_json::Fields p(file, (*params)[i], where + ".");
        FitParameter fp;
        fp.field = p.text("field", 64);
        if (!findField(fp.field))
            p.fail("field", "not a fittable software field: " + profile_json::quoted(fp.field));
        const nlohmann::json* profiles = p.array("profiles", true);
        for (const auto& id : *profiles) {
            if (!id.is_string() || !profile_json::isValidId(id.get<std::string>()))
                p.fail("profiles", "must list software profile ids");
            fp.profiles.push_back(id.get<std::string>());
            if (!claimed.insert({fp.profiles.back(), fp.field}).second)
                p.fail("profiles", "'" + fp.profiles.back() + "' already fits " + fp.field +
                                       " in an earlier parameter");
        }
        if (fp.profiles.empty())
            p.fail("profiles", "names no profile");
        fp.name = p.text("name", fp.field + " of " + fp.profiles.front(), 200);
        fp.relative_to = p.text("relative_to", "", 200);
        if (!fp.relative_to.empty()) {
            for (std::size_t j = 0; j < spec.parameters.size(); ++j)
                if (spec.parameters[j].name == fp.relative_to)
                    fp.relative_index = static_cast<int>(j);
            if (fp.relative_index < 0)
                p.fail("relative_to",
                       "names no earlier parameter: " + profile_json::quoted(fp.relative_to));
        }
        fp.min = p.number("min", 0, 1e6);
        fp.max = p.number("max", fp.min, 1e6);
        fp.prior = p.number("prior", fp.min, fp.max);
        p.text("why", "", 4096);
        p.finish();
        spec.parameters.push_back(std::move(fp));
    }
    f.finish();
    return spec;
}

FitSpec readFitSpec(const std::string& path) {
    return parseFitSpec(readBoundedFile(path, kMaxSpecBytes, "a fit spec"), path);
}

std::vector<double> effectiveValues(const FitSpec& spec, const std::vector<double>& values) {
    std::vector<double> out(values);
    for (std::size_t i = 0; i < spec.parameters.size() && i < values.size(); ++i) {
        const FitParameter& p = spec.parameters[i];
        if (p.relative_index >= 0)
            out[i] = values[i] * out[static_cast<std::size_t>(p.relative_index)];
        if (p.field.find("efficiency") != std::string::npos)
            out[i] = std::min(out[i], 1.0);
    }
    return out;
}

double priorDeviation(const FitParameter& p, double value) {
    if (p.prior_scale > 0)
        return (value - p.prior) / p.prior_scale;
    // In log space; a zero takes a small fraction of the upper bound in its place.
    const double floor = p.min > 0 ? p.min : std::max(p.max * 1e-4, 1e-12);
    return std::log(std::max(value, floor) / std::max(p.prior, floor));
}

double priorPenalty(const FitSpec& spec, const std::vector<double>& values) {
    if (spec.prior_weight <= 0)
        return 0;
    double sum = 0;
    for (std::size_t i = 0; i < spec.parameters.size() && i < values.size(); ++i) {
        const double d = priorDeviation(spec.parameters[i], values[i]);
        sum += d * d;
    }
    return spec.prior_weight * sum;
}

} // namespace iterscope
