#include "validation/error_band.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

namespace iterscope {

namespace {

ErrorClass summarize(const std::string& arch, const std::string& precision, int multi,
                     const std::vector<double>& values) {
    ErrorClass c;
    c.architecture = arch;
    c.precision = precision;
    c.multi_gpu = multi;
    c.rows = static_cast<int>(values.size());
    if (values.empty())
        return c;
    double sum = 0;
    for (double v : values)
        sum += v;
    c.mean_log_ratio = sum / static_cast<double>(values.size());
    double sq = 0;
    for (double v : values)
        sq += (v - c.mean_log_ratio) * (v - c.mean_log_ratio);
    // Sample spread; one row alone says nothing about spread, so it borrows its own size.
    c.sd_log_ratio = values.size() > 1 ? std::sqrt(sq / static_cast<double>(values.size() - 1))
                                       : std::abs(c.mean_log_ratio);
    return c;
}

nlohmann::ordered_json classesToJson(const std::vector<ErrorClass>& classes) {
    auto out = nlohmann::ordered_json::array();
    for (const ErrorClass& c : classes)
        out.push_back({{"architecture", c.architecture},
                       {"precision", c.precision},
                       {"multi_gpu", c.multi_gpu},
                       {"rows", c.rows},
                       {"mean_log_ratio", std::round(c.mean_log_ratio * 1e4) / 1e4},
                       {"sd_log_ratio", std::round(c.sd_log_ratio * 1e4) / 1e4}});
    return out;
}

std::vector<ErrorClass> classesFromJson(profile_json::Fields& f, const char* key) {
    std::vector<ErrorClass> classes;
    const nlohmann::json* list = f.array(key, true);
    if (list->size() > 10000)
        f.fail(key, "holds more than 10000 classes");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
        if (!(*list)[i].is_object())
            f.fail(where, "must be an object");
        profile_json::Fields c(f.file(), (*list)[i], where + ".");
        ErrorClass e;
        e.architecture = c.text("architecture", 64);
        e.precision = c.text("precision", 16);
        e.multi_gpu = c.integer("multi_gpu", -1, 1);
        e.rows = c.integer("rows", 0, 1000000);
        e.mean_log_ratio = c.number("mean_log_ratio", -10, 10);
        e.sd_log_ratio = c.number("sd_log_ratio", 0, 10);
        c.finish();
        classes.push_back(e);
    }
    return classes;
}

const ErrorClass* find(const std::vector<ErrorClass>& classes, const std::string& arch,
                       const std::string& precision, int multi) {
    for (const ErrorClass& c : classes)
        if (c.architecture == arch && c.precision == precision && c.multi_gpu == multi &&
            c.rows >= kMinBandRows)
            return &c;
    return nullptr;
}

// A profile fitted to a person's own rows (iterscope-cli fit) brings the spread of their
// held-out residuals, for the architectures those rows ran on.
bool ownBandApplies(const Scenario& s) {
    const SoftwareProfile::ErrorBand& own = s.software.error_band;
    return own.rows > 0 && std::find(own.architectures.begin(), own.architectures.end(),
                                     s.gpu.architecture) != own.architectures.end();
}

// Fewer rows than a shipped class needs cannot narrow the shipped band, only shift it.
ErrorBand ownBand(const SoftwareProfile::ErrorBand& own, double z, const ErrorClass* shipped) {
    double sd = own.sd_log_ratio;
    if (own.rows < kMinBandRows && shipped)
        sd = std::max(sd, shipped->sd_log_ratio);
    ErrorBand band;
    band.rows = own.rows;
    band.low = std::exp(own.mean_log_ratio - z * sd);
    band.high = std::exp(own.mean_log_ratio + z * sd);
    band.basis = std::to_string(own.rows) + " rows the software profile was fitted to";
    return band;
}

} // namespace

std::vector<ErrorClass> errorClasses(const std::vector<ErrorBandRow>& rows) {
    std::map<std::tuple<std::string, std::string, int>, std::vector<double>> groups;
    for (const ErrorBandRow& r : rows) {
        const int multi = r.multi_gpu ? 1 : 0;
        groups[{r.architecture, r.precision, multi}].push_back(r.log_ratio);
        groups[{"*", r.precision, multi}].push_back(r.log_ratio);
        groups[{"*", "*", -1}].push_back(r.log_ratio);
    }
    std::vector<ErrorClass> out;
    for (const auto& [key, values] : groups)
        out.push_back(summarize(std::get<0>(key), std::get<1>(key), std::get<2>(key), values));
    return out;
}

std::string errorBandsToJson(const ErrorBands& bands) {
    nlohmann::ordered_json j;
    j["format"] = "iterscope-error-bands";
    j["version"] = 1;
    j["source"] = "Written by iterscope-fit from the cross-validated residuals of "
                  "tests/data/published*.csv; do not edit by hand.";
    j["basis"] = bands.basis;
    j["coverage"] = bands.coverage;
    j["z"] = bands.z;
    j["classes"] = classesToJson(bands.classes);
    j["unseen_architecture"] = classesToJson(bands.unseen_architecture);
    return j.dump(2) + "\n";
}

namespace {
ErrorBands bandsFromJson(const nlohmann::json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-error-bands", 1);
    f.text("source", 4096);
    ErrorBands bands;
    bands.basis = f.text("basis", 4096);
    bands.coverage = f.number("coverage", 0.01, 0.999);
    bands.z = f.number("z", 0.01, 10);
    bands.classes = classesFromJson(f, "classes");
    bands.unseen_architecture = classesFromJson(f, "unseen_architecture");
    f.finish();
    return bands;
}
} // namespace

ErrorBands parseErrorBands(const std::string& text, const std::string& file) {
    return bandsFromJson(profile_json::parseText(text, file), file);
}

const ErrorBands& shippedErrorBands() {
    static std::mutex mutex;
    static std::map<std::string, ErrorBands> by_file;
    const std::string file = (std::filesystem::path(profilesDir()) / "error-bands.json").string();
    std::lock_guard lock(mutex);
    auto it = by_file.find(file);
    if (it == by_file.end()) {
        std::error_code ec;
        ErrorBands bands;
        if (std::filesystem::is_regular_file(file, ec))
            bands = bandsFromJson(profile_json::readFile(file), file);
        it = by_file.emplace(file, std::move(bands)).first;
    }
    return it->second;
}

ErrorBand errorBandFor(const ErrorBands& bands, const Scenario& s) {
    ErrorBand band;
    const std::string precision = precisionName(s.precision);
    const int multi = s.totalGpus() > 1 ? 1 : 0;
    const bool seen = [&] {
        for (const ErrorClass& c : bands.classes)
            if (c.architecture == s.gpu.architecture)
                return true;
        return false;
    }();
    // An architecture no measurement covers is judged by the errors made on each
    // architecture when it was left out of the fit.
    const std::vector<ErrorClass>& pool = seen ? bands.classes : bands.unseen_architecture;
    const ErrorClass* c = seen ? find(pool, s.gpu.architecture, precision, multi) : nullptr;
    if (!c)
        c = find(pool, "*", precision, multi);
    if (!c)
        c = find(pool, "*", "*", -1);
    if (ownBandApplies(s))
        return ownBand(s.software.error_band, bands.z, c);
    if (!c)
        return band;
    band.rows = c->rows;
    band.low = std::exp(c->mean_log_ratio - bands.z * c->sd_log_ratio);
    band.high = std::exp(c->mean_log_ratio + bands.z * c->sd_log_ratio);
    band.basis = std::to_string(c->rows) + " " +
                 (c->architecture == "*" ? std::string(seen ? "" : "unseen-architecture ")
                                         : c->architecture + " ") +
                 (c->precision == "*" ? std::string() : c->precision + " ") +
                 (c->multi_gpu < 0 ? ""
                  : c->multi_gpu   ? "multi-GPU "
                                   : "single-GPU ") +
                 "rows";
    return band;
}

} // namespace iterscope
