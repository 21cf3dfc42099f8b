#include "validation/validation.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/scenario_warnings.h"
#include "util/error.h"
#include "util/text_file.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace iterscope {

namespace {

// Measurement files are a few hundred rows; anything far larger is not one, and reading it
// whole would be an allocation driven by the user's file.
constexpr std::uintmax_t kMaxCsvBytes = 16u << 20;
constexpr std::size_t kMaxFieldLength = 256;

const char* const kColumns[] = {"id",       "source", "network",  "image",         "batch_per_gpu",
                                "gpu",      "system", "nodes",    "gpus_per_node", "precision",
                                "software", "sync",   "ps_count", "metric",        "measured",
                                "layout",   "data"};
constexpr std::size_t kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);

bool optionalColumn(const std::string& name) {
    return name == "ps_count" || name == "layout" || name == "data";
}

// A network file names itself by its extension; a built-in id has none of these.
bool looksLikeNetworkPath(const std::string& s) {
    return s.find('/') != std::string::npos || s.ends_with(".onnx") || s.ends_with(".prototxt") ||
           s.ends_with(".json");
}

// A path in a measurement file is relative to that file, wherever the command runs.
std::string besideCsv(const std::string& value, bool is_path, const std::string& file,
                      const std::string& ctx) {
    if (!is_path)
        return value;
    std::filesystem::path p(value);
    if (p.is_relative())
        p = std::filesystem::path(file).parent_path() / p;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec))
        throw InputError(ctx + ": no such file '" + value.substr(0, 120) + "' (looked for " +
                         p.string().substr(0, 200) + ")");
    return p.lexically_normal().string();
}

std::vector<std::string> splitLine(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    for (char c : line) {
        if (c == ',') {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r') {
            field.push_back(c);
        }
    }
    fields.push_back(field);
    for (auto& f : fields) {
        const auto b = f.find_first_not_of(" \t");
        const auto e = f.find_last_not_of(" \t");
        f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
    }
    return fields;
}

std::string where(const std::string& file, std::size_t line, const char* column) {
    return file + ": line " + std::to_string(line) + ": " + column;
}

int64_t parseInteger(const std::string& text, int64_t min, int64_t max, const std::string& ctx) {
    int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || text.empty())
        throw InputError(ctx + ": not an integer: '" + text.substr(0, 40) + "'");
    if (v < min || v > max)
        throw InputError(ctx + ": " + text + " is outside " + std::to_string(min) + ".." +
                         std::to_string(max));
    return v;
}

double parseNumber(const std::string& text, const std::string& ctx) {
    double v = 0;
    std::istringstream in(text);
    in >> v;
    if (text.empty() || !in.eof() || in.fail() || !std::isfinite(v) || v <= 0)
        throw InputError(ctx + ": not a positive number: '" + text.substr(0, 40) + "'");
    return v;
}

// The most bad rows listed before the rest are counted.
constexpr std::size_t kMaxReportedErrors = 50;

// One error for the file, one line for each bad row, then how many there were.
void throwAll(std::vector<std::string> errors) {
    if (errors.empty())
        return;
    if (errors.size() == 1)
        throw InputError(errors.front());
    const std::size_t n = errors.size();
    errors.push_back((n >= kMaxReportedErrors ? "at least " : "") + std::to_string(n) +
                     " bad rows");
    throw InputErrors(errors);
}

// One data line of the CSV; throws InputError("<file>: line N: <column>: ...").
ValidationRow parseRow(const std::vector<std::string>& fields, const std::vector<int>& index,
                       const std::string& file, std::size_t line_no) {
    auto get = [&](std::size_t c) -> std::string {
        if (index[c] < 0)
            return {};
        const auto i = static_cast<std::size_t>(index[c]);
        if (i >= fields.size())
            throw InputError(where(file, line_no, kColumns[c]) + ": missing field");
        if (fields[i].size() > kMaxFieldLength)
            throw InputError(where(file, line_no, kColumns[c]) + ": field too long");
        return fields[i];
    };
    ValidationRow r;
    r.file = file;
    r.id = get(0);
    r.source = get(1);
    r.network = get(2);
    r.image = parseInteger(get(3), 1, 8192, where(file, line_no, "image"));
    r.batch_per_gpu = parseInteger(get(4), 1, 1 << 20, where(file, line_no, "batch_per_gpu"));
    r.gpu = get(5);
    r.system = get(6);
    r.nodes = static_cast<int>(parseInteger(get(7), 1, 1 << 16, where(file, line_no, "nodes")));
    r.gpus_per_node =
        static_cast<int>(parseInteger(get(8), 1, 1024, where(file, line_no, "gpus_per_node")));
    r.precision = get(9);
    r.software = get(10);
    r.sync = get(11);
    const std::string ps = get(12);
    r.ps_count =
        ps.empty()
            ? 0
            : static_cast<int>(parseInteger(ps, 0, 1 << 16, where(file, line_no, "ps_count")));
    r.metric = get(13);
    r.measured = parseNumber(get(14), where(file, line_no, "measured"));
    r.layout = get(15);
    r.data = get(16);
    if (!r.layout.empty() && !parseLayout(r.layout))
        throw InputError(where(file, line_no, "layout") + ": unknown '" + r.layout.substr(0, 40) +
                         "' (nchw, nhwc or empty)");
    if (!r.data.empty() && !parseDataSource(r.data))
        throw InputError(where(file, line_no, "data") + ": unknown '" + r.data.substr(0, 40) +
                         "' (real, synthetic or empty)");
    r.network = besideCsv(r.network, looksLikeNetworkPath(r.network), file,
                          where(file, line_no, "network"));
    r.gpu = besideCsv(r.gpu, profile_json::looksLikePath(r.gpu), file, where(file, line_no, "gpu"));
    r.system = besideCsv(r.system, profile_json::looksLikePath(r.system), file,
                         where(file, line_no, "system"));
    r.software = besideCsv(r.software, profile_json::looksLikePath(r.software), file,
                           where(file, line_no, "software"));
    if (r.id.empty())
        throw InputError(where(file, line_no, "id") + ": empty");
    if (!parsePrecision(r.precision))
        throw InputError(where(file, line_no, "precision") + ": unknown '" + r.precision + "'");
    if (!parseSyncStrategy(r.sync))
        throw InputError(where(file, line_no, "sync") + ": unknown '" + r.sync + "'");
    if (r.metric != "images_per_second" && r.metric != "fwd_bwd_ms" && r.metric != "forward_ms" &&
        r.metric != "backward_ms")
        throw InputError(where(file, line_no, "metric") + ": unknown '" + r.metric + "'");
    return r;
}

} // namespace

std::vector<ValidationRow> parseValidationCsv(const std::string& text, const std::string& file) {
    std::istringstream in(text);
    std::string line;
    std::size_t line_no = 0;
    std::vector<int> index(kColumnCount, -1);
    bool header = false;
    std::vector<ValidationRow> rows;
    std::vector<std::string> errors;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
            continue;
        const auto fields = splitLine(line);
        if (!header) {
            for (std::size_t i = 0; i < fields.size(); ++i)
                for (std::size_t c = 0; c < kColumnCount; ++c)
                    if (fields[i] == kColumns[c])
                        index[c] = static_cast<int>(i);
            for (std::size_t c = 0; c < kColumnCount; ++c)
                if (index[c] < 0 && !optionalColumn(kColumns[c]))
                    throw InputError(file + ": header: missing column '" + kColumns[c] + "'");
            header = true;
            continue;
        }
        try {
            rows.push_back(parseRow(fields, index, file, line_no));
        } catch (const InputError& e) {
            // Every bad row is reported, one line each, before the file is refused: a
            // person adding many rows fixes them in one pass.
            errors.push_back(e.what());
            if (errors.size() >= kMaxReportedErrors)
                break;
        }
    }
    if (!header)
        throw InputError(file + ": empty, expected a header line");
    throwAll(errors);
    return rows;
}

std::vector<ValidationRow> readValidationCsv(const std::string& path) {
    return parseValidationCsv(readBoundedFile(path, kMaxCsvBytes, "a measurement file"), path);
}

ValidationResolver defaultResolver() {
    // Each id is loaded once; the maps live as long as the resolver's copies.
    struct Cache {
        std::mutex mutex;
        std::map<std::pair<std::string, int64_t>, std::shared_ptr<const AnalyzedNetwork>> networks;
        std::map<std::string, GpuProfile> gpus;
        std::map<std::string, SystemProfile> systems;
        std::map<std::string, SoftwareProfile> software;
    };
    auto cache = std::make_shared<Cache>();
    ValidationResolver r;
    r.network = [cache](const std::string& id, int64_t image) {
        std::lock_guard lock(cache->mutex);
        auto& slot = cache->networks[{id, image}];
        if (!slot) {
            LoadOptions options;
            options.image = image;
            slot = loadNetwork(id, options);
        }
        return slot;
    };
    r.gpu = [cache](const std::string& id) {
        std::lock_guard lock(cache->mutex);
        auto it = cache->gpus.find(id);
        if (it == cache->gpus.end())
            it = cache->gpus.emplace(id, loadGpuProfile(id)).first;
        return it->second;
    };
    r.system = [cache](const std::string& id) {
        std::lock_guard lock(cache->mutex);
        auto it = cache->systems.find(id);
        if (it == cache->systems.end())
            it = cache->systems.emplace(id, loadSystemProfile(id)).first;
        return it->second;
    };
    r.software = [cache](const std::string& id) {
        std::lock_guard lock(cache->mutex);
        auto it = cache->software.find(id);
        if (it == cache->software.end())
            it = cache->software.emplace(id, loadSoftwareProfile(id)).first;
        return it->second;
    };
    return r;
}

Scenario scenarioForRow(const ValidationRow& row, const ValidationResolver& resolver) {
    Scenario s;
    s.network = resolver.network(row.network, row.image);
    s.gpu = resolver.gpu(row.gpu);
    s.system = resolver.system(row.system);
    s.software = resolver.software(row.software);
    s.batch_per_gpu = row.batch_per_gpu;
    s.nodes = row.nodes;
    s.gpus_per_node = row.gpus_per_node;
    s.precision = parsePrecision(row.precision).value_or(Precision::FP32);
    s.sync = parseSyncStrategy(row.sync).value_or(SyncStrategy::None);
    s.ps_count = row.ps_count;
    if (!row.layout.empty())
        s.layout = parseLayout(row.layout).value_or(ActivationLayout::Auto);
    if (!row.data.empty())
        s.data = parseDataSource(row.data).value_or(DataSource::Auto);
    return s;
}

double throughputLogRatio(const ValidationRow& row, double predicted) {
    const double r = std::log(row.measured / predicted);
    return row.metric == "images_per_second" ? r : -r;
}

double metricValue(const Prediction& p, const std::string& metric) {
    if (metric == "images_per_second")
        return p.images_per_second;
    if (metric == "fwd_bwd_ms")
        return p.forward_ms + p.backward_ms;
    if (metric == "forward_ms")
        return p.forward_ms;
    if (metric == "backward_ms")
        return p.backward_ms;
    throw InputError("unknown metric '" + metric + "'");
}

ValidationReport validate(const std::vector<ValidationRow>& rows,
                          const ValidationResolver& resolver) {
    ValidationReport report;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> group_index;
    double total = 0, total_signed = 0;
    std::vector<std::string> errors;
    for (const ValidationRow& row : rows) {
        RowResult r;
        r.row = row;
        try {
            const Scenario scenario = scenarioForRow(row, resolver);
            const Prediction p = predict(scenario, PredictDetail::Totals);
            r.predicted = metricValue(p, row.metric);
            r.fits_in_memory = p.fits_in_memory;
            for (const ScenarioWarning& w : scenarioWarnings(scenario))
                if (w.level == ScenarioWarning::Level::Caution)
                    r.warnings.push_back(w.text);
        } catch (const InputError& e) {
            errors.push_back("row " + row.id + ": " + e.what());
            if (errors.size() >= kMaxReportedErrors)
                break;
            continue;
        }
        r.ape = std::abs(r.predicted - row.measured) / row.measured * 100.0;
        const bool throughput = row.metric == "images_per_second";
        r.speed_error =
            r.predicted > 0 && row.measured > 0
                ? ((throughput ? r.predicted / row.measured : row.measured / r.predicted) - 1.0) *
                      100.0
                : 0.0;
        total += r.ape;
        total_signed += r.speed_error;
        const auto key = std::make_tuple(row.source, row.gpu, row.sync);
        auto it = group_index.find(key);
        if (it == group_index.end()) {
            it = group_index.emplace(key, report.groups.size()).first;
            report.groups.push_back({row.source, row.gpu, row.sync, 0, 0, 0});
        }
        GroupResult& g = report.groups[it->second];
        g.mape = (g.mape * g.rows + r.ape) / (g.rows + 1);
        g.bias = (g.bias * g.rows + r.speed_error) / (g.rows + 1);
        ++g.rows;
        report.rows.push_back(std::move(r));
    }
    throwAll(errors);
    report.mape = rows.empty() ? 0 : total / static_cast<double>(rows.size());
    report.bias = rows.empty() ? 0 : total_signed / static_cast<double>(rows.size());
    return report;
}

} // namespace iterscope
