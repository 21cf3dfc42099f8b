// iterscope-cli sweep [scenario flags]: --nodes, --gpus-per-node and --batch take comma
// lists; one row per combination (DESIGN.md "Interfaces").
#include "cli/command.h"
#include "cli/prediction_output.h"
#include "cli/table.h"
#include "model/sweep.h"
#include "options/scenario_options.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace iterscope::cli {
namespace {

struct SweepOptions {
    ScenarioFlags flags;
    std::string format = "table";
};

void printCsv(const std::vector<SweepPoint>& points) {
    std::string out =
        "nodes,gpus_per_node,gpus,batch_per_gpu,iteration_ms,images_per_second,forward_ms,"
        "backward_ms,update_ms,communication_ms,exposed_communication_ms,allreduce_algorithm,"
        "memory_per_gpu_bytes,fits_in_memory,pipeline_bubble_ms,exchanged_bytes_per_gpu\n";
    char line[512];
    for (const SweepPoint& pt : points) {
        const Prediction& p = pt.prediction;
        std::snprintf(
            line, sizeof line,
            "%d,%d,%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%lld,%s,%.6g,%lld\n", pt.nodes,
            pt.gpus_per_node, pt.nodes * pt.gpus_per_node, static_cast<long long>(pt.batch_per_gpu),
            p.iteration_ms, p.images_per_second, p.forward_ms, p.backward_ms, p.update_ms,
            p.communication_ms, p.exposed_communication_ms, p.allreduce_algorithm.c_str(),
            static_cast<long long>(p.memory_per_gpu_bytes), p.fits_in_memory ? "true" : "false",
            p.pipeline_bubble_ms, static_cast<long long>(p.exchanged_bytes_per_gpu));
        out += line;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
}

void printJson(const Scenario& base, const std::vector<SweepPoint>& points) {
    nlohmann::ordered_json out;
    out["scenario"] = scenarioJson(base);
    auto rows = nlohmann::ordered_json::array();
    for (const SweepPoint& pt : points) {
        nlohmann::ordered_json row{{"nodes", pt.nodes},
                                   {"gpus_per_node", pt.gpus_per_node},
                                   {"gpus", pt.nodes * pt.gpus_per_node},
                                   {"batch_per_gpu", pt.batch_per_gpu}};
        row.update(summaryJson(pt.prediction));
        Scenario s = base;
        s.nodes = pt.nodes;
        s.gpus_per_node = pt.gpus_per_node;
        s.batch_per_gpu = pt.batch_per_gpu;
        addErrorBand(row, s, pt.prediction);
        rows.push_back(std::move(row));
    }
    out["rows"] = std::move(rows);
    std::cout << out.dump(2) << "\n";
}

void printTable(const std::vector<SweepPoint>& points) {
    TextTable t;
    for (const char* h : {"nodes", "GPUs/node", "batch/GPU", "iteration ms", "images/s", "comm ms",
                          "exposed ms", "memory GiB"})
        t.addColumn(h, TextTable::Align::Right);
    t.addColumn("fits", TextTable::Align::Left);
    for (const SweepPoint& pt : points) {
        const Prediction& p = pt.prediction;
        t.addRow(
            {std::to_string(pt.nodes), std::to_string(pt.gpus_per_node),
             std::to_string(pt.batch_per_gpu), fixed(p.iteration_ms, 2),
             fixed(p.images_per_second, 1), fixed(p.communication_ms, 2),
             fixed(p.exposed_communication_ms, 2),
             fixed(static_cast<double>(p.memory_per_gpu_bytes) / (1024.0 * 1024.0 * 1024.0), 2),
             p.fits_in_memory ? "yes" : "no"});
    }
    std::cout << t.render();
}

CommandRegistration reg{
    50, [](CLI::App& app) {
        auto options = std::make_shared<SweepOptions>();
        CLI::App* cmd = app.add_subcommand(
            "sweep", "Predict a grid: --nodes, --gpus-per-node and --batch take comma lists");
        addScenarioFlags(cmd, options->flags);
        cmd->add_option("--format", options->format, "table, csv or json")
            ->check(CLI::IsMember({"table", "csv", "json"}));
        cmd->callback([options] {
            SweepAxes axes;
            const Scenario base = buildScenario(options->flags, axes);
            const std::vector<SweepPoint> points = sweep(base, axes);
            if (options->format == "csv")
                printCsv(points);
            else if (options->format == "json")
                printJson(base, points);
            else
                printTable(points);
        });
    }};

} // namespace
} // namespace iterscope::cli
