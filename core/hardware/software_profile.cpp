// Software profiles: profiles/software/<id>.json (docs/model.md lists every field, the
// formula that reads it and how its value was set).
#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/precision.h"

#include <cmath>
#include <string>

using nlohmann::json;

namespace iterscope {

namespace {

constexpr const char* kSyncNames[] = {"none",   "allreduce-nccl", "allreduce-copy",
                                      "ps-cpu", "ps-gpu",         "distributed-replicated"};

bool isYearMonth(const std::string& text) {
    if (text.size() != 7 || text[4] != '-')
        return false;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (i != 4 && (text[i] < '0' || text[i] > '9'))
            return false;
    const int month = (text[5] - '0') * 10 + (text[6] - '0');
    return month >= 1 && month <= 12;
}

SoftwareProfile parseSoftware(const json& doc, const std::string& file,
                              const std::string& requested) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-software", 1);
    SoftwareProfile s;
    s.id = f.text("id", 64);
    if (!profile_json::isValidId(s.id))
        f.fail("id", "must be lower-case letters, digits, '.', '-' or '_', got " +
                         profile_json::quoted(s.id));
    if (!requested.empty() && s.id != requested)
        f.fail("id", profile_json::quoted(s.id) + " does not match the file name " +
                         profile_json::quoted(requested));
    s.name = f.text("name", 200);
    if (s.name.empty())
        f.fail("name", "must not be empty");
    s.description = f.text("description", "", 2000);
    s.source = f.text("source");
    if (s.source.empty())
        f.fail("source", "must say how the parameters were set");

    s.family = f.text("family", "", 64);
    s.release = f.text("release", "", 16);
    if (!s.release.empty() && !isYearMonth(s.release))
        f.fail("release", "must be \"YYYY-MM\", got " + profile_json::quoted(s.release));
    s.newest_compute_capability = f.number("newest_compute_capability", 1, 100, 9.0);
    s.per_layer_overhead_us = f.number("per_layer_overhead_us", 0, 1e5);
    s.kernel_gap_us = f.number("kernel_gap_us", 0, 1e5);
    s.optimizer_ops_per_tensor = f.number("optimizer_ops_per_tensor", 0, 100, 0);
    s.amp_host_sync = f.boolean("amp_host_sync", false);
    s.conv_efficiency = f.number("conv_efficiency", 0.01, 1);
    s.fc_efficiency = f.number("fc_efficiency", 0.01, 1);
    s.tensor_core_efficiency = f.number("tensor_core_efficiency", 0.01, 1);
    s.tf32_efficiency = f.number("tf32_efficiency", 0.01, 1, 1);
    s.gemm_k_half = f.number("gemm_k_half", 0, 1e5);
    s.gemm_tile_m = f.integer("gemm_tile_m", 1, 1024);
    s.gemm_tile_n = f.integer("gemm_tile_n", 1, 1024);
    s.winograd = f.boolean("winograd", false);
    s.winograd_speedup = f.number("winograd_speedup", 1, 10, 1);
    s.memory_efficiency = f.number("memory_efficiency", 0.01, 1);
    s.depthwise_efficiency = f.number("depthwise_efficiency", 0.01, 1, 0.3);
    s.nhwc_amp = f.boolean("nhwc_amp", true);
    s.nhwc_tf32 = f.boolean("nhwc_tf32", false);
    s.fused_bn_activation = f.boolean("fused_bn_activation", false);
    s.fused_bn_add_activation = f.boolean("fused_bn_add_activation", false);
    s.elementwise_fusion = f.boolean("elementwise_fusion", false);
    s.overlap_input = f.boolean("overlap_input", true);
    s.input_gpu_us_per_image = f.number("input_gpu_us_per_image", 0, 1e6, 0);
    s.default_real_data = f.boolean("default_real_data", false);
    s.policy_augment_cost = f.number("policy_augment_cost", 0, 100, 1.0);
    s.host_images_per_core_s = f.number("host_images_per_core_s", 0, 1e6, 0);
    s.loader_workers_per_gpu = f.number("loader_workers_per_gpu", 0, 1024, 0);
    s.nccl_efficiency = f.number("nccl_efficiency", 0.01, 1);
    s.nccl_topology_aware = f.boolean("nccl_topology_aware", true);
    s.collective_base_latency_us = f.number("collective_base_latency_us", 0, 1e6);
    s.collective_hop_latency_us = f.number("collective_hop_latency_us", 0, 1e6);
    s.network_efficiency = f.number("network_efficiency", 0.01, 1);
    s.memcpy_efficiency = f.number("memcpy_efficiency", 0.01, 1);
    s.rpc_gbps_per_process = f.number("rpc_gbps_per_process", 0, 10000, 0);
    s.overlap_communication = f.boolean("overlap_communication", true);
    s.sync_jitter = f.number("sync_jitter", 0, 1, 0);
    s.gradient_bytes_amp = f.integer("gradient_bytes_amp", 2, 4, 4);
    if (s.gradient_bytes_amp == 3)
        f.fail("gradient_bytes_amp", "must be 2 (FP16) or 4 (FP32)");
    s.default_sync = f.text("default_sync", "allreduce-nccl", 64);
    bool known_sync = false;
    for (const char* name : kSyncNames)
        known_sync = known_sync || s.default_sync == name;
    if (!known_sync)
        f.fail("default_sync", "unknown strategy " + profile_json::quoted(s.default_sync));
    s.optimizer_state_bytes_per_param = f.number("optimizer_state_bytes_per_param", 0, 64, 4);
    s.framework_reserved_mb = f.number("framework_reserved_mb", 0, 1e6, 500);
    s.workspace_limit_mb = f.number("workspace_limit_mb", 0, 1e6, 1024);
    if (const json* extra = f.object("extra", false)) {
        if (extra->size() > 64)
            f.fail("extra", "holds more than 64 entries");
        for (const auto& [key, value] : extra->items()) {
            if (!value.is_number() || !std::isfinite(value.get<double>()))
                f.fail("extra." + key, "must be a finite number");
            s.extra.emplace_back(key.substr(0, 64), value.get<double>());
        }
    }
    if (const json* band = f.object("error_band", false)) {
        profile_json::Fields b(file, *band, "error_band.");
        s.error_band.rows = b.integer("rows", 1, 1000000);
        s.error_band.half_width_log = b.number("half_width_log", 0, 10);
        const json* archs = b.array("architectures", true);
        if (archs->empty() || archs->size() > 64)
            b.fail("architectures", "must list 1 to 64 GPU architectures");
        for (const json& a : *archs) {
            if (!a.is_string() || a.get<std::string>().empty() || a.get<std::string>().size() > 64)
                b.fail("architectures", "must list architecture names (\"Ampere\")");
            s.error_band.architectures.push_back(a.get<std::string>());
        }
        s.error_band.basis = b.text("basis", "", 2000);
        b.finish();
    }
    if (const json* fitted = f.object("fitted_to", false)) {
        profile_json::Fields t(file, *fitted, "fitted_to.");
        s.fitted_to.base = t.text("base", "", 200);
        s.fitted_to.rows = t.integer("rows", 1, 1000000);
        const json* gpus = t.array("gpus", true);
        if (gpus->size() > 256)
            t.fail("gpus", "must list at most 256 GPU ids");
        for (const json& g : *gpus) {
            if (!g.is_string() || !profile_json::isValidId(g.get<std::string>()))
                t.fail("gpus", "must list GPU profile ids");
            s.fitted_to.gpus.push_back(g.get<std::string>());
        }
        s.fitted_to.harness_share = t.number("harness_share", 0, 1, 1);
        s.fitted_to.other_gpus_band_scale = t.number("other_gpus_band_scale", 0.25, 4, 1);
        t.finish();
    }
    // A GPU's own deviation from the shared parameters: a fit refuses one past 4x either way
    // (measurement_fit.cpp), so the loader does too.
    const auto corrections = [&](const char* key,
                                 std::map<std::string, std::map<std::string, double>>& out) {
        const json* by_gpu = f.object(key, false);
        if (!by_gpu)
            return;
        if (by_gpu->size() > 256)
            f.fail(key, "holds more than 256 GPUs");
        for (const auto& [gpu, by_precision] : by_gpu->items()) {
            const std::string field = std::string(key) + "." + gpu.substr(0, 64);
            if (!profile_json::isValidId(gpu))
                f.fail(field, "must be keyed by a GPU profile id");
            if (!by_precision.is_object() || by_precision.empty())
                f.fail(field, "must map precisions (\"tf32\", \"amp\") to factors");
            auto& factors = out[gpu];
            for (const auto& [precision, value] : by_precision.items()) {
                const auto p = parsePrecision(precision);
                if (!p || precision != precisionName(*p))
                    f.fail(field + "." + precision.substr(0, 16),
                           "is not a precision (fp32, tf32, amp, bf16)");
                if (!value.is_number() || !std::isfinite(value.get<double>()) ||
                    value.get<double>() < 0.25 || value.get<double>() > 4)
                    f.fail(field + "." + precision, "must be a number from 0.25 to 4");
                factors[precision] = value.get<double>();
            }
        }
    };
    corrections("gpu_corrections", s.gpu_corrections);
    corrections("gpu_memory_corrections", s.gpu_memory_corrections);
    // Documentation of each parameter; free text the model never reads.
    if (f.has("parameters"))
        (void)f.object("parameters", true);
    f.finish();
    return s;
}

} // namespace

SoftwareProfile parseSoftwareProfile(const std::string& text, const std::string& file) {
    return parseSoftware(profile_json::parseText(text, file), file, {});
}

SoftwareProfile loadSoftwareProfile(const std::string& id_or_path) {
    const std::string file = profile_json::resolve(id_or_path, "software", "software");
    const std::string requested =
        profile_json::looksLikePath(id_or_path) ? std::string() : id_or_path;
    return parseSoftware(profile_json::readFile(file), file, requested);
}

namespace {

double correctionIn(const std::map<std::string, std::map<std::string, double>>& by_gpu,
                    const std::string& gpu_id, const char* precision) {
    if (by_gpu.empty())
        return 1;
    const auto gpu = by_gpu.find(gpu_id);
    if (gpu == by_gpu.end())
        return 1;
    const auto factor = gpu->second.find(precision);
    return factor == gpu->second.end() ? 1 : factor->second;
}

} // namespace

double gpuCorrection(const SoftwareProfile& sw, const std::string& gpu_id, const char* precision) {
    return correctionIn(sw.gpu_corrections, gpu_id, precision);
}

double gpuMemoryCorrection(const SoftwareProfile& sw, const std::string& gpu_id,
                           const char* precision) {
    return correctionIn(sw.gpu_memory_corrections, gpu_id, precision);
}

std::vector<std::string> softwareIds() {
    return profile_json::listIds("software");
}

} // namespace iterscope
