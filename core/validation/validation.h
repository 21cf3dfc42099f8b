// Checking the model against published measurements (DESIGN.md "Checking the model against
// reality"): read a CSV of measurements (shared/validation/README.md gives its columns),
// predict every row, report each row's absolute percentage error and the mean, overall and
// per (source, gpu, sync) group. The model never sees the measured values.
#pragma once

#include "model/model.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace iterscope {

struct ValidationRow {
    std::string file; // the CSV it was read from
    std::string id, source, network;
    int64_t image = 0;
    int64_t batch_per_gpu = 0;
    std::string gpu, system;
    int nodes = 1, gpus_per_node = 1;
    std::string precision, software, sync;
    int ps_count = 0;
    // What the benchmark harness did, when its source says: "nchw" or "nhwc", "real" or
    // "synthetic"; empty: the software's default.
    std::string layout, data;
    std::string metric; // images_per_second | fwd_bwd_ms | forward_ms | backward_ms
    double measured = 0;
};

// Throws InputError("<file>: line N: <column>: <problem>") on a malformed file. The
// optional columns are ps_count, layout and data; a gpu, system, software or network that
// is a path (holds a '/' or ends in .json) is taken relative to the CSV's folder, as the
// command line takes one relative to the working directory, and must exist.
std::vector<ValidationRow> readValidationCsv(const std::string& path);
std::vector<ValidationRow> parseValidationCsv(const std::string& text, const std::string& file);

// Where the rows' ids lead. The default loads zoo networks and profiles by id, each once.
struct ValidationResolver {
    std::function<std::shared_ptr<const AnalyzedNetwork>(const std::string&, int64_t image)>
        network;
    std::function<GpuProfile(const std::string&)> gpu;
    std::function<SystemProfile(const std::string&)> system;
    std::function<SoftwareProfile(const std::string&)> software;
};
ValidationResolver defaultResolver();

Scenario scenarioForRow(const ValidationRow& row, const ValidationResolver& resolver);
// The predicted value of a row's metric. Throws InputError for an unknown metric.
double metricValue(const Prediction& p, const std::string& metric);
// ln(measured / predicted) as a throughput, the sign every band and residual states it in:
// time metrics invert.
double throughputLogRatio(const ValidationRow& row, double predicted);

struct RowResult {
    ValidationRow row;
    double predicted = 0;
    double ape = 0; // |predicted - measured| / measured, in percent
    // How much faster the model says the run is than it was, in percent: throughput
    // predicted / measured - 1 (time metrics: measured / predicted - 1). Negative: too slow.
    double speed_error = 0;
    bool fits_in_memory = true; // every published row ran, so false is a model defect
    // scenarioWarnings' cautions for the row's hardware: a TF32 row on a GPU without TF32,
    // a card in a system it does not fit. The row is predicted anyway.
    std::vector<std::string> warnings;
};

struct GroupResult {
    std::string source, gpu, sync;
    int rows = 0;
    double mape = 0;
    double bias = 0; // mean speed_error, percent
};

struct ValidationReport {
    std::vector<RowResult> rows;
    std::vector<GroupResult> groups; // in order of first appearance
    double mape = 0;
    double bias = 0; // mean speed_error, percent: a model that is too slow on average is < 0
};

ValidationReport validate(const std::vector<ValidationRow>& rows,
                          const ValidationResolver& resolver);

} // namespace iterscope
