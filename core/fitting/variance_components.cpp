#include "fitting/variance_components.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

namespace iterscope {

namespace {

struct Cell {
    double sum = 0;
    int n = 0;
};

struct Source {
    double sum = 0;
    int n = 0;
    std::map<std::string, Cell> cells;
};

double rounded(double v) {
    return std::round(v * 1e6) / 1e6;
}

} // namespace

VarianceComponents estimateVarianceComponents(const std::vector<LabelledResidual>& residuals) {
    if (residuals.empty())
        throw InputError("variance components: no residuals");
    std::map<std::string, Source> sources;
    double total = 0;
    for (const LabelledResidual& r : residuals) {
        if (!std::isfinite(r.log_ratio))
            throw InputError("variance components: a residual of " + r.source + " on " + r.gpu +
                             " is not finite");
        Source& s = sources[r.source];
        Cell& c = s.cells[r.gpu];
        c.sum += r.log_ratio;
        ++c.n;
        s.sum += r.log_ratio;
        ++s.n;
        total += r.log_ratio;
    }
    const double n_rows = static_cast<double>(residuals.size());
    const double grand = total / n_rows;

    // The hierarchical sums of squares and the moments' coefficients (Searle et al. 1992,
    // 4.6): E[SS_e] = (N - b) se2; E[SS_g] = (b - a) se2 + (N - sum_i sum_j n_ij^2 / n_i) sg2;
    // E[SS_h] = (a - 1) se2 + (sum_i sum_j n_ij^2 / n_i - sum_ij n_ij^2 / N) sg2
    //         + (N - sum_i n_i^2 / N) sh2.
    double ss_h = 0, ss_g = 0, ss_e = 0;
    double sum_nij2_over_ni = 0, sum_nij2 = 0, sum_ni2 = 0;
    int cells = 0;
    for (const auto& [name, s] : sources) {
        const double ni = s.n;
        const double mean_i = s.sum / ni;
        ss_h += ni * (mean_i - grand) * (mean_i - grand);
        sum_ni2 += ni * ni;
        double nij2 = 0;
        for (const auto& [gpu, c] : s.cells) {
            const double nij = c.n;
            const double mean_ij = c.sum / nij;
            ss_g += nij * (mean_ij - mean_i) * (mean_ij - mean_i);
            nij2 += nij * nij;
            ++cells;
        }
        sum_nij2 += nij2;
        sum_nij2_over_ni += nij2 / ni;
    }
    // Deviations from the cell means, in a second pass (more accurate than sums of squares).
    for (const LabelledResidual& r : residuals) {
        const Cell& c = sources[r.source].cells[r.gpu];
        const double d = r.log_ratio - c.sum / c.n;
        ss_e += d * d;
    }

    // Within (source, GPU, precision) groups, pooled.
    std::map<std::tuple<std::string, std::string, std::string>, Cell> groups;
    for (const LabelledResidual& r : residuals) {
        Cell& g = groups[{r.source, r.gpu, r.precision}];
        g.sum += r.log_ratio;
        ++g.n;
    }
    double ss_w = 0;
    for (const LabelledResidual& r : residuals) {
        const Cell& g = groups[{r.source, r.gpu, r.precision}];
        const double d = r.log_ratio - g.sum / g.n;
        ss_w += d * d;
    }

    VarianceComponents v;
    v.mean = grand;
    v.rows = static_cast<int>(residuals.size());
    v.sources = static_cast<int>(sources.size());
    v.cells = cells;
    const double a = v.sources, b = cells;
    // One row a cell: the rows' own spread cannot be told from the GPUs'; it counts as theirs.
    v.sigma_e2 = n_rows > b ? ss_e / (n_rows - b) : 0;
    const double w = static_cast<double>(groups.size());
    v.sigma_w2 = n_rows > w ? ss_w / (n_rows - w) : v.sigma_e2;
    if (b > a) {
        const double k1 = (n_rows - sum_nij2_over_ni) / (b - a);
        v.raw_sigma_g2 = (ss_g / (b - a) - v.sigma_e2) / k1;
    }
    v.sigma_g2 = std::max(0.0, v.raw_sigma_g2);
    if (a > 1) {
        const double k2 = (sum_nij2_over_ni - sum_nij2 / n_rows) / (a - 1);
        const double k3 = (n_rows - sum_ni2 / n_rows) / (a - 1);
        v.raw_sigma_h2 = (ss_h / (a - 1) - v.sigma_e2 - k2 * v.sigma_g2) / k3;
    }
    v.sigma_h2 = std::max(0.0, v.raw_sigma_h2);
    const double both = v.sigma_h2 + v.sigma_g2;
    v.harness_share = both > 0 ? v.sigma_h2 / both : 0;
    return v;
}

double harnessShareFor(const VarianceComponents& v, int rows, int gpus) {
    const double n = std::max(rows, 1), k = std::max(gpus, 1);
    const double total = v.sigma_h2 + v.sigma_g2 / k + v.sigma_e2 / n;
    return total > 0 ? v.sigma_h2 / total : 0;
}

std::string pinVarianceToJson(const PinVariance& pin) {
    const VarianceComponents& v = pin.components;
    nlohmann::ordered_json j;
    j["format"] = "iterscope-pin-variance";
    j["version"] = 1;
    j["source"] = "Written by iterscope-fit --write-pin-variance from the leave-one-source-out "
                  "residuals of the published measurements (docs/calibrating.md); do not edit "
                  "by hand.";
    j["basis"] = pin.basis;
    j["harness_share"] = rounded(v.harness_share);
    j["sigma_h"] = rounded(std::sqrt(v.sigma_h2));
    j["sigma_g"] = rounded(std::sqrt(v.sigma_g2));
    j["sigma_e"] = rounded(std::sqrt(v.sigma_e2));
    j["sigma_w"] = rounded(std::sqrt(v.sigma_w2));
    j["mean_log"] = rounded(v.mean);
    j["raw_sigma_h2"] = rounded(v.raw_sigma_h2);
    j["raw_sigma_g2"] = rounded(v.raw_sigma_g2);
    j["rows"] = v.rows;
    j["sources"] = v.sources;
    j["cells"] = v.cells;
    if (pin.other_gpus_band_scale != 1) {
        j["other_gpus_band_scale"] = rounded(pin.other_gpus_band_scale);
        j["other_gpus_band_basis"] = pin.other_gpus_band_basis;
    }
    return j.dump(2) + "\n";
}

namespace {

PinVariance pinVarianceFromJson(const nlohmann::json& doc, const std::string& file) {
    profile_json::Fields f(file, doc);
    f.header("iterscope-pin-variance", 1);
    f.text("source", 4096);
    PinVariance pin;
    pin.basis = f.text("basis", 4096);
    VarianceComponents& v = pin.components;
    v.harness_share = f.number("harness_share", 0, 1);
    const double sigma_h = f.number("sigma_h", 0, 10);
    const double sigma_g = f.number("sigma_g", 0, 10);
    const double sigma_e = f.number("sigma_e", 0, 10);
    v.sigma_h2 = sigma_h * sigma_h;
    v.sigma_g2 = sigma_g * sigma_g;
    v.sigma_e2 = sigma_e * sigma_e;
    // Files written before the precision split have no sigma_w: sigma_e stands for it.
    const double sigma_w = f.number("sigma_w", 0, 10, sigma_e);
    v.sigma_w2 = sigma_w * sigma_w;
    v.mean = f.number("mean_log", -10, 10);
    v.raw_sigma_h2 = f.number("raw_sigma_h2", -100, 100);
    v.raw_sigma_g2 = f.number("raw_sigma_g2", -100, 100);
    v.rows = f.integer("rows", 1, 1 << 24);
    v.sources = f.integer("sources", 1, 1 << 24);
    v.cells = f.integer("cells", 1, 1 << 24);
    // Files written before the band was measured have none: the shipped band as it is.
    pin.other_gpus_band_scale = f.number("other_gpus_band_scale", 0.25, 4, 1);
    pin.other_gpus_band_basis = f.text("other_gpus_band_basis", "", 4096);
    f.finish();
    return pin;
}

} // namespace

PinVariance parsePinVariance(const std::string& text, const std::string& file) {
    return pinVarianceFromJson(profile_json::parseText(text, file), file);
}

const PinVariance* shippedPinVariance() {
    static std::mutex mutex;
    static std::map<std::string, std::optional<PinVariance>> by_file;
    const std::string file = (std::filesystem::path(profilesDir()) / "pin-variance.json").string();
    std::lock_guard lock(mutex);
    auto it = by_file.find(file);
    if (it == by_file.end()) {
        std::error_code ec;
        std::optional<PinVariance> pin;
        if (std::filesystem::is_regular_file(file, ec))
            pin = pinVarianceFromJson(profile_json::readFile(file), file);
        it = by_file.emplace(file, std::move(pin)).first;
    }
    return it->second ? &*it->second : nullptr;
}

} // namespace iterscope
