#include "validation/ratio_band.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "validation/error_band.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

namespace iterscope {

namespace {

double rounded(double v) {
    return std::round(v * 1e4) / 1e4;
}

RatioClass summarize(const std::string& kind, const std::vector<double>& errors, double coverage) {
    RatioClass c;
    c.kind = kind;
    c.pairs = static_cast<int>(errors.size());
    c.half_width_log = conformalHalfWidth(errors, coverage);
    double sq = 0;
    for (double e : errors)
        sq += e * e;
    c.rms_log = errors.empty() ? 0 : std::sqrt(sq / static_cast<double>(errors.size()));
    return c;
}

const RatioClass* findKind(const RatioBands& bands, std::string_view kind) {
    for (const RatioClass& c : bands.kinds)
        if (c.kind == kind && c.pairs >= kMinBandRows)
            return &c;
    return nullptr;
}

RatioBands bandsFromJson(const nlohmann::json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-ratio-bands", 1);
    f.text("source", 4096);
    RatioBands bands;
    bands.basis = f.text("basis", 4096);
    bands.coverage = f.number("coverage", 0.01, 0.999);
    const nlohmann::json* list = f.array("kinds", true);
    if (list->size() > 64)
        f.fail("kinds", "holds more than 64 kinds");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string where = "kinds[" + std::to_string(i) + "]";
        if (!(*list)[i].is_object())
            f.fail(where, "must be an object");
        profile_json::Fields c(file, (*list)[i], where + ".");
        RatioClass k;
        k.kind = c.text("kind", 32);
        k.pairs = c.integer("pairs", 0, 10000000);
        k.half_width_log = c.number("half_width_log", 0, 10);
        k.rms_log = c.number("rms_log", 0, 10);
        c.finish();
        bands.kinds.push_back(k);
    }
    f.finish();
    return bands;
}

} // namespace

const std::vector<std::string>& ratioKinds() {
    static const std::vector<std::string> kinds{"precision", "gpu-count", "batch", "gpu",
                                                "layout",    "sync",      "data"};
    return kinds;
}

std::string ratioPairKind(const ValidationRow& a, const ValidationRow& b) {
    if (a.source != b.source || a.network != b.network || a.image != b.image ||
        a.software != b.software || a.metric != b.metric || a.ps_count != b.ps_count)
        return {};
    const bool same_count = a.nodes == b.nodes && a.gpus_per_node == b.gpus_per_node;
    const bool same_gpu = a.gpu == b.gpu;
    // A GPU is compared in the system that holds it, so a GPU pair may change the system
    // too; any other pair keeps it.
    if (!same_gpu && !same_count)
        return {};
    if (same_gpu && a.system != b.system)
        return {};
    std::vector<std::string> changed;
    if (a.precision != b.precision)
        changed.emplace_back("precision");
    if (!same_count)
        changed.emplace_back("gpu-count");
    if (a.batch_per_gpu != b.batch_per_gpu)
        changed.emplace_back("batch");
    if (!same_gpu)
        changed.emplace_back("gpu");
    if (a.layout != b.layout)
        changed.emplace_back("layout");
    if (a.sync != b.sync)
        changed.emplace_back("sync");
    if (a.data != b.data)
        changed.emplace_back("data");
    if (changed.empty()) // the same run twice (two sources' figures, repeats): no ratio
        return {};
    if (changed.size() == 1)
        return changed.front();
    // Published mixed-precision runs change the layout and the batch with the precision
    // (NVIDIA's harnesses run AMP channels-last at twice the batch): such a pair still
    // measures what a change of precision does, as a person makes it.
    const bool precision_led =
        changed.front() == "precision" &&
        std::all_of(changed.begin() + 1, changed.end(),
                    [](const std::string& k) { return k == "layout" || k == "batch"; });
    return precision_led ? std::string("precision") : std::string();
}

std::vector<RatioClass> ratioClasses(const std::vector<ValidationRow>& rows,
                                     const std::vector<double>& log_ratios, double coverage) {
    std::map<std::string, std::vector<double>> by_kind;
    std::vector<double> every;
    const std::size_t n = std::min(rows.size(), log_ratios.size());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            const std::string kind = ratioPairKind(rows[i], rows[j]);
            if (kind.empty())
                continue;
            // ln(measured_j / measured_i) - ln(predicted_j / predicted_i), the error of the
            // predicted ratio, is the difference of the rows' own errors.
            const double error = log_ratios[j] - log_ratios[i];
            by_kind[kind].push_back(error);
            every.push_back(error);
        }
    std::vector<RatioClass> classes;
    for (const std::string& kind : ratioKinds())
        if (auto it = by_kind.find(kind); it != by_kind.end())
            classes.push_back(summarize(kind, it->second, coverage));
    classes.push_back(summarize(std::string(kRatioKindAny), every, coverage));
    return classes;
}

std::string ratioBandsToJson(const RatioBands& bands) {
    nlohmann::ordered_json j;
    j["format"] = "iterscope-ratio-bands";
    j["version"] = 1;
    j["source"] = "Written by iterscope-fit from the residuals of tests/data/published*.csv "
                  "(the basis says which); do not edit by hand.";
    j["basis"] = bands.basis;
    j["coverage"] = bands.coverage;
    auto kinds = nlohmann::ordered_json::array();
    for (const RatioClass& c : bands.kinds)
        kinds.push_back({{"kind", c.kind},
                         {"pairs", c.pairs},
                         {"half_width_log", rounded(c.half_width_log)},
                         {"rms_log", rounded(c.rms_log)}});
    j["kinds"] = kinds;
    return j.dump(2) + "\n";
}

RatioBands parseRatioBands(const std::string& text, const std::string& file) {
    return bandsFromJson(profile_json::parseText(text, file), file);
}

const RatioBands& shippedRatioBands() {
    static std::mutex mutex;
    static std::map<std::string, RatioBands> by_file;
    const std::string file = (std::filesystem::path(profilesDir()) / "ratio-bands.json").string();
    std::lock_guard lock(mutex);
    auto it = by_file.find(file);
    if (it == by_file.end()) {
        std::error_code ec;
        RatioBands bands;
        if (std::filesystem::is_regular_file(file, ec))
            bands = bandsFromJson(profile_json::readFile(file), file);
        it = by_file.emplace(file, std::move(bands)).first;
    }
    return it->second;
}

RatioBand ratioBandFor(const RatioBands& bands, const std::vector<std::string>& kinds,
                       double ratio) {
    RatioBand band;
    const RatioClass* any = findKind(bands, kRatioKindAny);
    double sq = 0;
    int fewest = -1;
    std::string backed_by, unbacked;
    for (const std::string& kind : kinds) {
        const RatioClass* c = findKind(bands, kind);
        if (!c) {
            band.backed = false;
            unbacked += (unbacked.empty() ? "" : ", ") + kind;
            c = any;
        } else {
            backed_by += (backed_by.empty() ? "" : ", ") + std::to_string(c->pairs) + " " + kind;
        }
        if (!c)
            continue;
        sq += c->half_width_log * c->half_width_log;
        fewest = fewest < 0 ? c->pairs : std::min(fewest, c->pairs);
    }
    if (fewest < 0) {
        band.pairs = 0;
        band.backed = false;
        band.basis = "no ratio bands known (profiles/ratio-bands.json is missing)";
        band.low = band.high = ratio;
        return band;
    }
    const double half = std::sqrt(sq);
    band.pairs = fewest;
    band.low = ratio * std::exp(-half);
    band.high = ratio * std::exp(half);
    if (!backed_by.empty())
        band.basis = "published pairs: " + backed_by;
    if (!unbacked.empty())
        band.basis += (band.basis.empty() ? "" : "; ") + std::string("no published pair changes ") +
                      unbacked + " alone: the band of every one-factor pair (" +
                      std::to_string(any->pairs) + ") stands in";
    return band;
}

} // namespace iterscope
