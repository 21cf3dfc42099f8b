// iterscope-cli layers NETWORK: the per-layer breakdown of shapes, parameters and costs.
#include "cli/command.h"
#include "cli/table.h"
#include "io/network_loader.h"
#include "util/checked.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace iterscope::cli {
namespace {

struct LayersOptions {
    std::string network;
    int64_t batch = 1;
    int64_t image = 0;
    std::string precision = "fp32";
    std::string format = "table";
};

Dims withBatch(int64_t batch, const Dims& dims) {
    Dims out{batch};
    out.insert(out.end(), dims.begin(), dims.end());
    return out;
}

std::string percentOf(int64_t part, int64_t whole) {
    return whole > 0 ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 2)
                     : std::string("0.00");
}

void printTable(const AnalyzedNetwork& net, int64_t batch, int64_t element_bytes) {
    const LayerStats totals = totalsAt(net.analysis, batch, element_bytes);
    TextTable table;
    table.addColumn("Layer", TextTable::Align::Left);
    table.addColumn("Type", TextTable::Align::Left);
    table.addColumn("Output shape", TextTable::Align::Left);
    table.addColumn("Params", TextTable::Align::Right);
    table.addColumn("MACs", TextTable::Align::Right);
    table.addColumn("% MACs", TextTable::Align::Right);
    for (std::size_t i = 0; i < net.network.layers.size(); ++i) {
        const Layer& layer = net.network.layers[i];
        const LayerStats s = statsAt(net.analysis.layers[i], batch, element_bytes);
        table.addRow({layer.name, layerTypeLabel(layer),
                      "[" + formatDims(withBatch(batch, net.analysis.layers[i].output)) + "]",
                      s.params ? withThousands(s.params) : "--",
                      s.macs ? withThousands(s.macs) : "--",
                      s.macs ? percentOf(s.macs, totals.macs) : ""});
    }
    table.addRule();
    table.addRow({"Total", std::to_string(net.network.layers.size()) + " layers", "",
                  withThousands(totals.params), withThousands(totals.macs), "100.00"});
    std::cout << net.network.name << " at batch " << batch << ", input ["
              << formatDims(withBatch(batch, net.network.input)) << "]\n\n"
              << table.render() << "\n"
              << "Forward FLOPs:       " << withThousands(totals.fwd_flops) << "\n"
              << "Backward FLOPs:      " << withThousands(totals.bwd_flops) << "\n"
              << "Activations kept:    " << humanBytes(static_cast<double>(totals.activation_bytes))
              << "\n"
              << "Weight gradients:    " << humanBytes(static_cast<double>(totals.gradient_bytes))
              << "\n";
}

void printCsv(const AnalyzedNetwork& net, int64_t batch, int64_t element_bytes) {
    std::cout << "index,name,type,inputs,output_shape,params,macs,fwd_flops,bwd_flops,"
                 "activation_bytes,gradient_bytes,fwd_bytes_read,fwd_bytes_written,"
                 "bwd_bytes_read,bwd_bytes_written\n";
    for (std::size_t i = 0; i < net.network.layers.size(); ++i) {
        const Layer& layer = net.network.layers[i];
        const LayerStats s = statsAt(net.analysis.layers[i], batch, element_bytes);
        std::string inputs;
        for (std::size_t j : layer.inputs)
            inputs += (inputs.empty() ? "" : " ") + net.network.layers[j].name;
        std::cout << i << ',' << csvField(layer.name) << ',' << csvField(layerTypeLabel(layer))
                  << ',' << csvField(inputs) << ','
                  << formatDims(withBatch(batch, net.analysis.layers[i].output)) << ',' << s.params
                  << ',' << s.macs << ',' << s.fwd_flops << ',' << s.bwd_flops << ','
                  << s.activation_bytes << ',' << s.gradient_bytes << ',' << s.fwd_bytes_read << ','
                  << s.fwd_bytes_written << ',' << s.bwd_bytes_read << ',' << s.bwd_bytes_written
                  << "\n";
    }
}

void printJson(const AnalyzedNetwork& net, int64_t batch, int64_t element_bytes,
               const std::string& precision) {
    const LayerStats totals = totalsAt(net.analysis, batch, element_bytes);
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < net.network.layers.size(); ++i) {
        const Layer& layer = net.network.layers[i];
        const LayerCost& cost = net.analysis.layers[i];
        const LayerStats s = statsAt(cost, batch, element_bytes);
        nlohmann::json inputs = nlohmann::json::array();
        for (std::size_t j : layer.inputs)
            inputs.push_back(net.network.layers[j].name);
        layers.push_back({{"name", layer.name},
                          {"kind", layerKindName(layer.kind)},
                          {"type", layerTypeLabel(layer)},
                          {"inputs", inputs},
                          {"output_shape", withBatch(batch, cost.output)},
                          {"params", s.params},
                          {"macs", s.macs},
                          {"fwd_flops", s.fwd_flops},
                          {"bwd_flops", s.bwd_flops},
                          {"needs_data_grad", cost.needs_data_grad},
                          {"activation_bytes", s.activation_bytes},
                          {"gradient_bytes", s.gradient_bytes},
                          {"fwd_bytes_read", s.fwd_bytes_read},
                          {"fwd_bytes_written", s.fwd_bytes_written},
                          {"bwd_bytes_read", s.bwd_bytes_read},
                          {"bwd_bytes_written", s.bwd_bytes_written}});
    }
    const nlohmann::json out = {{"network", net.network.name},
                                {"source", net.source},
                                {"batch", batch},
                                {"precision", precision},
                                {"input_shape", withBatch(batch, net.network.input)},
                                {"params", totals.params},
                                {"macs", totals.macs},
                                {"fwd_flops", totals.fwd_flops},
                                {"bwd_flops", totals.bwd_flops},
                                {"activation_bytes", totals.activation_bytes},
                                {"gradient_bytes", totals.gradient_bytes},
                                {"layers", layers}};
    std::cout << out.dump(1) << "\n";
}

const CommandRegistration registration{
    20, [](CLI::App& app) {
        auto options = std::make_shared<LayersOptions>();
        auto* cmd = app.add_subcommand("layers", "Per-layer shapes, parameters, MACs and bytes");
        cmd->add_option("network", options->network, "Built-in id or .onnx/.prototxt/.json file")
            ->required();
        cmd->add_option("--batch", options->batch, "Batch size (default 1)")
            ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
        cmd->add_option("--image", options->image, "Square input size in pixels")
            ->check(CLI::Range(int64_t{1}, int64_t{65536}));
        cmd->add_option("--precision", options->precision, "Element size for bytes: fp32 or fp16")
            ->check(CLI::IsMember({"fp32", "fp16"}));
        cmd->add_option("--format", options->format, "table, csv or json")
            ->check(CLI::IsMember({"table", "csv", "json"}));
        cmd->callback([options] {
            LoadOptions load;
            load.image = options->image;
            load.batch = options->batch;
            std::vector<std::string> warnings;
            load.warnings = &warnings;
            const auto net = loadNetwork(options->network, load);
            for (const std::string& w : warnings)
                std::cerr << "iterscope-cli: warning: " << w << "\n";
            const int64_t element_bytes = options->precision == "fp16" ? 2 : 4;
            try {
                (void)totalsAt(net->analysis, options->batch, element_bytes);
            } catch (const InputError& e) {
                rethrowWithContext(options->network + " at batch " + std::to_string(options->batch),
                                   e);
            }
            if (options->format == "json")
                printJson(*net, options->batch, element_bytes, options->precision);
            else if (options->format == "csv")
                printCsv(*net, options->batch, element_bytes);
            else
                printTable(*net, options->batch, element_bytes);
        });
    }};

} // namespace
} // namespace iterscope::cli
