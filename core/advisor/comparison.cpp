#include "advisor/comparison.h"
#include "util/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace iterscope {

namespace {

std::string fixed(double v, int digits) {
    return fixedDecimals(v, digits);
}

std::string dollars(double v) {
    return "$" + fixed(v, v < 10 ? 2 : 0);
}

} // namespace

std::vector<std::string> differingKinds(const Scenario& a, const Scenario& b) {
    std::vector<std::string> kinds;
    auto add = [&](bool differs, const char* kind) {
        if (differs)
            kinds.emplace_back(kind);
    };
    const bool same_network = a.network == b.network ||
                              (a.network && b.network && a.network->source == b.network->source);
    add(!same_network, "network");
    add(a.precision != b.precision, "precision");
    add(a.totalGpus() != b.totalGpus(), "gpu-count");
    add(a.batch_per_gpu != b.batch_per_gpu, "batch");
    add(a.gpu.id != b.gpu.id, "gpu");
    // The layout as chosen: the one a precision brings by itself (Auto) is part of that
    // precision, as in the published precision pairs.
    add(a.layout != b.layout && a.nhwc() != b.nhwc(), "layout");
    add(a.sync != b.sync, "sync");
    add(a.realData() != b.realData(), "data");
    // A GPU is compared in the system that holds it (as the published GPU pairs are).
    add(a.system.id != b.system.id && a.gpu.id == b.gpu.id, "system");
    add(a.system.nic_gbps != b.system.nic_gbps && a.system.id == b.system.id, "network");
    add(a.system.nics_per_node != b.system.nics_per_node && a.system.id == b.system.id, "nics");
    add(a.overlap != b.overlap, "overlap");
    add(a.bucket_mb != b.bucket_mb, "bucket");
    add(a.allreduce != b.allreduce, "allreduce");
    add(a.parallel != b.parallel || a.pipeline_stages != b.pipeline_stages ||
            a.micro_batches != b.micro_batches || a.schedule != b.schedule,
        "parallel");
    add(a.software.id != b.software.id, "software");
    add(a.software.loader_workers_per_gpu != b.software.loader_workers_per_gpu &&
            a.software.id == b.software.id,
        "loader-workers");
    // "network" may have been added twice (another network file, another NIC rate).
    std::vector<std::string> unique;
    for (const std::string& k : kinds)
        if (std::find(unique.begin(), unique.end(), k) == unique.end())
            unique.push_back(k);
    return unique;
}

std::optional<double> usdPerMillionImages(const Scenario& s, double images_per_second) {
    if (!s.gpu.usd_per_gpu_hour || !(images_per_second > 0))
        return std::nullopt;
    return *s.gpu.usd_per_gpu_hour * s.totalGpus() / 3600.0 / images_per_second * 1e6;
}

ScenarioComparison compareScenarios(const Scenario& current, double current_ips,
                                    const Scenario& other, double other_ips,
                                    const RatioBands& bands) {
    ScenarioComparison c;
    c.ratio = other_ips > 0 ? current_ips / other_ips : 0;
    c.kinds = differingKinds(current, other);
    if (c.kinds.empty()) {
        // The same set-up: the ratio is 1 by construction, with no error of its own.
        c.band.low = c.band.high = c.ratio;
        c.band.pairs = 1;
        c.band.basis = "the same scenario";
    } else {
        // Published precision pairs change the layout and the batch with the precision
        // (ratio_band.h): their band covers those too.
        std::vector<std::string> band_kinds = c.kinds;
        if (std::find(band_kinds.begin(), band_kinds.end(), "precision") != band_kinds.end())
            std::erase_if(band_kinds,
                          [](const std::string& k) { return k == "layout" || k == "batch"; });
        c.band = ratioBandFor(bands, band_kinds, c.ratio);
    }
    c.usd_per_million_current = usdPerMillionImages(current, current_ips);
    c.usd_per_million_other = usdPerMillionImages(other, other_ips);
    return c;
}

std::string ScenarioComparison::text(const std::string& other_name) const {
    std::string out = fixed(ratio, 2) + "x the images/s of " + other_name;
    if (kinds.empty())
        out += " (the same scenario)";
    else if (band.pairs == 0)
        out += " (no band known)";
    else
        out += " (band " + fixed(band.low, 2) + "-" + fixed(band.high, 2) + "x" +
               (band.holdsOne() ? ": not a clear win)" : ")");
    if (usd_per_million_current && usd_per_million_other)
        out += "; " + dollars(*usd_per_million_current) + " against " +
               dollars(*usd_per_million_other) + " per million images";
    return out;
}

} // namespace iterscope
