// iterscope-cli networks: the built-in network ids, one a line (DESIGN.md); --format table
// groups them by family with their default image, parameters and MACs.
#include "cli/command.h"
#include "cli/table.h"
#include "network/analysis.h"
#include "network/zoo.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace iterscope::cli {
namespace {

struct Row {
    std::string id, family;
    int64_t image = 0, params = 0, macs = 0;
};

std::vector<Row> rows() {
    std::vector<Row> out;
    for (const std::string& id : zooIds()) {
        Row r;
        r.id = id;
        r.family = std::string(zooFamily(id));
        r.image = zooDefaultImage(id);
        const NetworkAnalysis a = analyze(*zooNetwork(id));
        r.params = a.total_params;
        r.macs = a.total_macs;
        out.push_back(std::move(r));
    }
    return out;
}

void printTable() {
    TextTable table;
    table.addColumn("Family", TextTable::Align::Left);
    table.addColumn("Id", TextTable::Align::Left);
    table.addColumn("Image", TextTable::Align::Right);
    table.addColumn("Params", TextTable::Align::Right);
    table.addColumn("GMACs", TextTable::Align::Right);
    std::string family;
    for (const Row& r : rows()) {
        // The family's name heads its first row only, so the groups stand out.
        const bool first = r.family != family;
        if (first && !family.empty())
            table.addRule();
        family = r.family;
        table.addRow({first ? r.family : "", r.id, std::to_string(r.image), withThousands(r.params),
                      fixed(static_cast<double>(r.macs) / 1e9, 2)});
    }
    std::cout << table.render();
}

void printCsv() {
    std::cout << "family,id,image,params,macs\n";
    for (const Row& r : rows())
        std::cout << csvField(r.family) << ',' << r.id << ',' << r.image << ',' << r.params << ','
                  << r.macs << "\n";
}

void printJson() {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows())
        out.push_back({{"id", r.id},
                       {"family", r.family},
                       {"image", r.image},
                       {"params", r.params},
                       {"macs", r.macs}});
    std::cout << out.dump(1) << "\n";
}

const CommandRegistration registration{
    10, [](CLI::App& app) {
        auto format = std::make_shared<std::string>("list");
        auto* cmd = app.add_subcommand("networks", "List the built-in network ids, one a line");
        cmd->add_option("--format", *format,
                        "list (ids, one a line), or table, csv or json grouped by family with "
                        "image size, parameters and MACs")
            ->check(CLI::IsMember({"list", "table", "csv", "json"}));
        cmd->callback([format] {
            if (*format == "table")
                printTable();
            else if (*format == "csv")
                printCsv();
            else if (*format == "json")
                printJson();
            else
                for (const std::string& id : zooIds())
                    std::cout << id << "\n";
        });
    }};

} // namespace
} // namespace iterscope::cli
