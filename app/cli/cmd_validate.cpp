// iterscope-cli validate FILE.csv: predict every published measurement in the file and
// report each row's error, the mean absolute percentage error and the MAPE per
// (source, gpu, sync) group (DESIGN.md "Checking the model against reality").
#include "cli/command.h"
#include "cli/table.h"
#include "util/error.h"
#include "validation/validation.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace iterscope::cli {
namespace {

struct ValidateOptions {
    std::string file;
    std::string format = "table";
};

void printTable(const ValidationReport& report) {
    TextTable rows;
    for (const char* h : {"id", "network", "gpu", "GPUs", "batch", "sync", "metric"})
        rows.addColumn(h, TextTable::Align::Left);
    for (const char* h : {"measured", "predicted", "error %"})
        rows.addColumn(h, TextTable::Align::Right);
    for (const RowResult& r : report.rows) {
        const ValidationRow& row = r.row;
        rows.addRow({row.id, row.network, row.gpu, std::to_string(row.nodes * row.gpus_per_node),
                     std::to_string(row.batch_per_gpu), row.sync, row.metric,
                     fixed(row.measured, 2), fixed(r.predicted, 2), fixed(r.ape, 1)});
    }
    std::cout << rows.render() << "\n";

    TextTable groups;
    for (const char* h : {"source", "gpu", "sync"})
        groups.addColumn(h, TextTable::Align::Left);
    groups.addColumn("rows", TextTable::Align::Right);
    groups.addColumn("MAPE %", TextTable::Align::Right);
    groups.addColumn("bias %", TextTable::Align::Right);
    for (const GroupResult& g : report.groups)
        groups.addRow(
            {g.source, g.gpu, g.sync, std::to_string(g.rows), fixed(g.mape, 1), fixed(g.bias, 1)});
    groups.addRule();
    groups.addRow({"all", "", "", std::to_string(report.rows.size()), fixed(report.mape, 1),
                   fixed(report.bias, 1)});
    std::cout << groups.render()
              << "bias: mean of predicted / measured speed - 1 (below 0: the model is too slow)\n";
}

void printJson(const ValidationReport& report) {
    nlohmann::ordered_json out;
    out["mape"] = report.mape;
    out["bias"] = report.bias;
    out["rows"] = nlohmann::ordered_json::array();
    for (const RowResult& r : report.rows)
        out["rows"].push_back({{"id", r.row.id},
                               {"source", r.row.source},
                               {"network", r.row.network},
                               {"gpu", r.row.gpu},
                               {"sync", r.row.sync},
                               {"metric", r.row.metric},
                               {"predicted", r.predicted},
                               {"measured", r.row.measured},
                               {"ape", r.ape},
                               {"speed_error", r.speed_error},
                               {"fits_in_memory", r.fits_in_memory},
                               {"warnings", r.warnings}});
    out["groups"] = nlohmann::ordered_json::array();
    for (const GroupResult& g : report.groups)
        out["groups"].push_back({{"source", g.source},
                                 {"gpu", g.gpu},
                                 {"sync", g.sync},
                                 {"rows", g.rows},
                                 {"mape", g.mape},
                                 {"bias", g.bias}});
    std::cout << out.dump(2) << "\n";
}

CommandRegistration reg{
    60, [](CLI::App& app) {
        auto options = std::make_shared<ValidateOptions>();
        CLI::App* cmd = app.add_subcommand(
            "validate", "Predict every row of a measurement CSV and report the errors (MAPE)");
        cmd->add_option("file", options->file, "CSV of published measurements")->required();
        cmd->add_option("--format", options->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        cmd->callback([options] {
            const ValidationReport report =
                validate(readValidationCsv(options->file), defaultResolver());
            if (options->format == "json")
                printJson(report);
            else
                printTable(report);
        });
    }};

} // namespace
} // namespace iterscope::cli
