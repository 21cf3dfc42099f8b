#include "validation/error_band.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/number_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

namespace iterscope {

namespace {

constexpr int kAnyScale = -1;

ErrorClass summarize(const std::string& arch, const std::string& precision, int scale,
                     const std::vector<double>& values, double coverage) {
    ErrorClass c;
    c.architecture = arch;
    c.precision = precision;
    c.scale = scale;
    c.rows = static_cast<int>(values.size());
    c.half_width_log = conformalHalfWidth(values, coverage);
    double sq = 0;
    for (double v : values)
        sq += v * v;
    c.rms_log = values.empty() ? 0 : std::sqrt(sq / static_cast<double>(values.size()));
    return c;
}

double rounded(double v) {
    return std::round(v * 1e4) / 1e4;
}

nlohmann::ordered_json classesToJson(const std::vector<ErrorClass>& classes) {
    auto out = nlohmann::ordered_json::array();
    for (const ErrorClass& c : classes)
        out.push_back({{"architecture", c.architecture},
                       {"precision", c.precision},
                       {"scale", c.scale},
                       {"rows", c.rows},
                       {"half_width_log", rounded(c.half_width_log)},
                       {"rms_log", rounded(c.rms_log)}});
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
        e.scale = c.integer("scale", kAnyScale, 2);
        e.rows = c.integer("rows", 0, 1000000);
        e.half_width_log = c.number("half_width_log", 0, 10);
        e.rms_log = c.number("rms_log", 0, 10);
        c.finish();
        classes.push_back(e);
    }
    return classes;
}

const ErrorClass* find(const std::vector<ErrorClass>& classes, const std::string& arch,
                       const std::string& precision, int scale) {
    for (const ErrorClass& c : classes)
        if (c.architecture == arch && c.precision == precision && c.scale == scale &&
            c.rows >= kMinBandRows)
            return &c;
    return nullptr;
}

} // namespace

const char* bandScaleName(BandScale s) {
    switch (s) {
    case BandScale::OneGpu:
        return "one-GPU";
    case BandScale::OneNode:
        return "one-node";
    case BandScale::SeveralNodes:
        return "multi-node";
    }
    return "one-GPU";
}

BandScale bandScaleOf(const Scenario& s) {
    if (s.nodes > 1)
        return BandScale::SeveralNodes;
    return s.totalGpus() > 1 ? BandScale::OneNode : BandScale::OneGpu;
}

std::string bandPrecisionOf(Precision p) {
    return halfPrecision(p) ? "half" : precisionName(p);
}

double conformalHalfWidth(std::vector<double> values, double coverage) {
    if (values.empty())
        return 0;
    for (double& v : values)
        v = std::abs(v);
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    const auto k = static_cast<std::size_t>(std::ceil((static_cast<double>(n) + 1) * coverage));
    return values[std::clamp<std::size_t>(k, 1, n) - 1];
}

std::string bandPercentText(double half_width_log) {
    return "-" + fixedDecimals((1 - std::exp(-half_width_log)) * 100, 1) + "% / +" +
           fixedDecimals((std::exp(half_width_log) - 1) * 100, 1) + "%";
}

std::vector<ErrorClass> errorClasses(const std::vector<ErrorBandRow>& rows, double coverage) {
    std::map<std::tuple<std::string, std::string, int>, std::vector<double>> groups;
    for (const ErrorBandRow& r : rows) {
        const int scale = static_cast<int>(r.scale);
        groups[{r.architecture, r.precision, scale}].push_back(r.log_ratio);
        groups[{"*", r.precision, scale}].push_back(r.log_ratio);
        groups[{"*", "*", scale}].push_back(r.log_ratio);
        groups[{"*", "*", kAnyScale}].push_back(r.log_ratio);
    }
    std::vector<ErrorClass> out;
    for (const auto& [key, values] : groups)
        out.push_back(
            summarize(std::get<0>(key), std::get<1>(key), std::get<2>(key), values, coverage));
    return out;
}

std::string errorBandsToJson(const ErrorBands& bands) {
    nlohmann::ordered_json j;
    j["format"] = "iterscope-error-bands";
    j["version"] = 2;
    j["source"] = "Written by iterscope-fit from the cross-validated residuals of "
                  "tests/data/published*.csv; do not edit by hand.";
    j["basis"] = bands.basis;
    j["coverage"] = bands.coverage;
    j["floor_log"] = rounded(bands.floor_log);
    j["growth_per_doubling_log"] = rounded(bands.growth_per_doubling_log);
    j["largest_measured_gpus"] = bands.largest_measured_gpus;
    j["measured_networks"] = bands.measured_networks;
    j["classes"] = classesToJson(bands.classes);
    j["unseen_architecture"] = classesToJson(bands.unseen_architecture);
    return j.dump(2) + "\n";
}

namespace {
ErrorBands bandsFromJson(const nlohmann::json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-error-bands", 2);
    f.text("source", 4096);
    ErrorBands bands;
    bands.basis = f.text("basis", 4096);
    bands.coverage = f.number("coverage", 0.01, 0.999);
    bands.floor_log = f.number("floor_log", 0, 2);
    bands.growth_per_doubling_log = f.number("growth_per_doubling_log", 0, 2);
    bands.largest_measured_gpus = f.integer("largest_measured_gpus", 1, 1 << 20);
    const nlohmann::json* networks = f.array("measured_networks", true);
    if (networks->size() > 64)
        f.fail("measured_networks", "lists more than 64 fabrics");
    for (const auto& n : *networks) {
        if (!n.is_string() || n.get<std::string>().size() > 64)
            f.fail("measured_networks", "must list fabric names");
        bands.measured_networks.push_back(n.get<std::string>());
    }
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

namespace {

// A profile fitted to a person's own rows (iterscope-cli fit) brings the errors of their
// held-out rows. They speak for the GPUs those rows ran on: a fit that kept a part for each
// measured GPU (gpu_corrections) narrows the band on those GPUs only, since every other GPU
// carries only the shrunk harness part and is no better known than before the fit; an older
// fitted profile, without that part, for the architectures its rows ran on.
bool ownBandApplies(const Scenario& s) {
    const SoftwareProfile::ErrorBand& own = s.software.error_band;
    if (own.rows <= 0)
        return false;
    if (!s.software.gpu_corrections.empty())
        return s.software.gpu_corrections.count(s.gpu.id) > 0;
    return std::find(own.architectures.begin(), own.architectures.end(), s.gpu.architecture) !=
           own.architectures.end();
}

struct BandChoice {
    const ErrorClass* cls = nullptr;
    bool own = false; // the software profile's own band
    bool seen = false;
    double half_width_log = 0;
    double steps = 0; // steps beyond the measured rows
    std::string beyond;
};

BandChoice chooseBand(const ErrorBands& bands, const Scenario& s, bool explain) {
    BandChoice b;
    const std::string precision = bandPrecisionOf(s.precision);
    const int scale = static_cast<int>(bandScaleOf(s));
    for (const ErrorClass& c : bands.classes)
        if (c.architecture == s.gpu.architecture) {
            b.seen = true;
            break;
        }
    // An architecture no measurement covers is judged by the errors made on each
    // architecture when it was left out of the fit.
    const std::vector<ErrorClass>& pool = b.seen ? bands.classes : bands.unseen_architecture;
    const ErrorClass* c = b.seen ? find(pool, s.gpu.architecture, precision, scale) : nullptr;
    if (!c)
        c = find(pool, "*", precision, scale);
    if (!c)
        c = find(pool, "*", "*", scale);
    if (!c)
        c = find(pool, "*", "*", kAnyScale);
    b.cls = c;
    b.own = ownBandApplies(s);
    if (!c && !b.own)
        return b;
    double w = c ? c->half_width_log : 0;
    // A GPU a fit to someone's runs did not measure: the pin moved its prediction by the
    // carried share, and the leave-one-GPU-in table measured what that does to the errors.
    const double pin_scale =
        s.software.fitted_to.rows > 0 && !b.own ? s.software.fitted_to.other_gpus_band_scale : 1.0;
    w *= pin_scale;
    if (explain && pin_scale != 1)
        b.beyond += ", x" + fixedDecimals(pin_scale, 2) + " for a GPU the fit did not measure";
    if (b.own) {
        // Fewer rows than a shipped class needs cannot narrow the shipped band.
        const SoftwareProfile::ErrorBand& own = s.software.error_band;
        w = own.rows < kMinBandRows && c ? std::max(own.half_width_log, w) : own.half_width_log;
    }
    // Never narrower than the run-to-run spread: the bands' own floor, or the software's
    // fitted spread of one GPU's step at the band's coverage (1.2816 sd for 80%).
    constexpr double kZ80 = 1.2816;
    w = std::max({w, bands.floor_log, kZ80 * s.software.sync_jitter});
    // Steps beyond the measured rows, each as uncertain as a doubling of the GPU count.
    const int gpus = s.totalGpus();
    if (gpus > bands.largest_measured_gpus) {
        const double doublings = std::log2(double(gpus) / bands.largest_measured_gpus);
        b.steps += doublings;
        if (explain)
            b.beyond +=
                ", " + fixedDecimals(doublings, 1) + " doublings past the largest measured run";
    }
    const auto& nets = bands.measured_networks;
    if (s.nodes > 1 && !nets.empty() &&
        std::find(nets.begin(), nets.end(), s.system.network) == nets.end()) {
        b.steps += 1;
        if (explain)
            b.beyond += ", a fabric no row ran on";
    }
    if (s.parallel != ParallelStrategy::Data || s.sync == SyncStrategy::PsAsync) {
        b.steps += 1;
        if (explain)
            b.beyond += ", a strategy no row ran";
    }
    b.half_width_log = w + b.steps * bands.growth_per_doubling_log;
    return b;
}

} // namespace

const ErrorClass* errorClassFor(const ErrorBands& bands, const Scenario& s) {
    const BandChoice b = chooseBand(bands, s, false);
    return b.own ? nullptr : b.cls;
}

double errorBandHalfWidthLog(const ErrorBands& bands, const Scenario& s) {
    return chooseBand(bands, s, false).half_width_log;
}

ErrorBand errorBandFor(const ErrorBands& bands, const Scenario& s) {
    ErrorBand band;
    const BandChoice b = chooseBand(bands, s, true);
    const ErrorClass* c = b.cls;
    if (!c && !b.own)
        return band;
    band.extrapolated = b.steps > 0;
    band.low = std::exp(-b.half_width_log);
    band.high = std::exp(b.half_width_log);
    if (b.own) {
        band.rows = s.software.error_band.rows;
        band.basis =
            std::to_string(band.rows) + " rows the software profile was fitted to" + b.beyond;
        return band;
    }
    band.rows = c->rows;
    band.basis = std::to_string(c->rows) + " " +
                 (c->architecture == "*" ? std::string(b.seen ? "" : "unseen-architecture ")
                                         : c->architecture + " ") +
                 (c->precision == "*" ? std::string() : c->precision + " ") +
                 (c->scale < 0 ? "" : std::string(bandScaleName(BandScale(c->scale))) + " ") +
                 "rows" + b.beyond;
    return band;
}

} // namespace iterscope
