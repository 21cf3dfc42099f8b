#include "cli/plan_output.h"

#include "cli/table.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace iterscope::cli {

namespace {

using nlohmann::ordered_json;

const GpuProfile& gpuOf(const PlanRequest& r, const PlanPoint& p) {
    return r.gpus[static_cast<std::size_t>(p.gpu)];
}
const SystemProfile& systemOf(const PlanRequest& r, const PlanPoint& p) {
    return r.systems[static_cast<std::size_t>(p.system)];
}

// The rows a default listing shows: the front, and the fastest and the cheapest when they
// are not on it (the fastest may have no price), by hours.
std::vector<std::size_t> shownRows(const PlanResult& result, bool with_all) {
    std::vector<std::size_t> rows;
    if (with_all) {
        for (std::size_t i = 0; i < result.candidates.size(); ++i)
            rows.push_back(i);
        return rows;
    }
    const PlanSelection& s = result.selection;
    std::set<std::size_t> set(s.pareto.begin(), s.pareto.end());
    if (s.fastest)
        set.insert(*s.fastest);
    if (s.cheapest)
        set.insert(*s.cheapest);
    rows.assign(set.begin(), set.end());
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
        return result.candidates[a].hours < result.candidates[b].hours;
    });
    return rows;
}

std::string money(double usd) {
    return usd >= 100 ? withThousands(static_cast<int64_t>(usd + 0.5)) : fixed(usd, 2);
}

std::string hoursText(double h) {
    if (h >= 100)
        return withThousands(static_cast<int64_t>(h + 0.5));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", h); // 0.0172, 1.54, 13.8
    return buffer;
}

std::string counted(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "data", "pipeline x4", "zero3".
std::string strategyText(const PlanPoint& p) {
    std::string s = parallelStrategyName(p.parallel);
    if (p.parallel == ParallelStrategy::Pipeline)
        s += " x" + std::to_string(p.pipeline_stages);
    return s;
}

std::string oneLine(const PlanRequest& r, const PlanPoint& p) {
    std::string s = gpuOf(r, p).id + " on " + systemOf(r, p).id + ", " +
                    counted(p.nodes, "node", "nodes") + " x " +
                    counted(p.gpus_per_node, "GPU", "GPUs") + ", batch " +
                    std::to_string(p.batch_per_gpu) + " per GPU, " + precisionName(p.precision) +
                    ", " + syncStrategyName(p.sync) +
                    (p.parallel == ParallelStrategy::Data ? "" : ", " + strategyText(p)) + ": " +
                    hoursText(p.hours) + " h (" + hoursText(p.low(p.hours)) + "-" +
                    hoursText(p.high(p.hours)) + ")";
    s += p.cost_usd ? ", $" + money(*p.cost_usd) + " ($" + money(p.low(*p.cost_usd)) + "-" +
                          money(p.high(*p.cost_usd)) + ")"
                    : ", no price";
    return s + ", " + fixed(p.energy_kwh, 0) + " kWh";
}

} // namespace

ordered_json planPointJson(const PlanRequest& request, const PlanPoint& p) {
    const GpuProfile& gpu = gpuOf(request, p);
    ordered_json j{{"gpu", gpu.id},
                   {"system", systemOf(request, p).id},
                   {"nodes", p.nodes},
                   {"gpus_per_node", p.gpus_per_node},
                   {"gpus", p.totalGpus()},
                   {"batch_per_gpu", p.batch_per_gpu},
                   {"global_batch", p.globalBatch()},
                   {"precision", precisionName(p.precision)},
                   {"sync", syncStrategyName(p.sync)},
                   {"parallel", parallelStrategyName(p.parallel)},
                   {"pipeline_stages", p.pipeline_stages},
                   {"iteration_ms", p.iteration_ms},
                   {"images_per_second", p.images_per_second},
                   {"hours", p.hours},
                   {"hours_low", p.low(p.hours)},
                   {"hours_high", p.high(p.hours)}};
    j["cost_usd"] = p.cost_usd ? ordered_json(*p.cost_usd) : ordered_json(nullptr);
    j["cost_usd_low"] = p.cost_usd ? ordered_json(p.low(*p.cost_usd)) : ordered_json(nullptr);
    j["cost_usd_high"] = p.cost_usd ? ordered_json(p.high(*p.cost_usd)) : ordered_json(nullptr);
    j["usd_per_gpu_hour"] =
        gpu.usd_per_gpu_hour ? ordered_json(*gpu.usd_per_gpu_hour) : ordered_json(nullptr);
    j["energy_kwh"] = p.energy_kwh;
    j["energy_kwh_low"] = p.low(p.energy_kwh);
    j["energy_kwh_high"] = p.high(p.energy_kwh);
    j["gpu_busy_share"] = p.gpu_busy_share;
    return j;
}

ordered_json planJson(const PlanReport& report, bool with_all) {
    const PlanRequest& r = report.request;
    const PlanResult& result = report.result;
    const PlanSelection& s = result.selection;
    const PlanConstraints& c = r.constraints;
    auto optional = [](const auto& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    ordered_json out;
    out["network"] = r.network->source;
    out["software"] = r.software.id;
    out["dataset_images"] = r.dataset_images;
    out["epochs"] = r.epochs;
    out["constraints"] = {{"max_gpus", c.max_gpus},
                          {"max_global_batch", optional(c.max_global_batch)},
                          {"deadline_hours", optional(c.deadline_hours)},
                          {"budget_usd", optional(c.budget_usd)}};
    out["candidates"] = result.candidates.size();
    out["meeting_constraints"] = s.meeting_constraints;
    out["priced"] = s.priced;
    ordered_json pareto = ordered_json::array();
    for (const std::size_t i : s.pareto)
        pareto.push_back(planPointJson(r, result.candidates[i]));
    out["pareto"] = std::move(pareto);
    out["fastest"] = s.fastest ? planPointJson(r, result.candidates[*s.fastest]) : nullptr;
    out["cheapest"] = s.cheapest ? planPointJson(r, result.candidates[*s.cheapest]) : nullptr;
    out["notes"] = report.notes;
    if (with_all) {
        ordered_json all = ordered_json::array();
        for (const PlanPoint& p : result.candidates) {
            ordered_json j = planPointJson(r, p);
            j["meets_constraints"] = meetsConstraints(p, c);
            all.push_back(std::move(j));
        }
        out["all"] = std::move(all);
    }
    return out;
}

std::string planCsv(const PlanReport& report, bool with_all) {
    const PlanRequest& r = report.request;
    const PlanResult& result = report.result;
    const PlanSelection& s = result.selection;
    const std::set<std::size_t> front(s.pareto.begin(), s.pareto.end());
    std::string out = "gpu,system,nodes,gpus_per_node,gpus,batch_per_gpu,global_batch,precision,"
                      "sync,iteration_ms,images_per_second,hours,cost_usd,energy_kwh,"
                      "meets_constraints,pareto,fastest,cheapest,parallel,pipeline_stages\n";
    char numbers[256];
    for (const std::size_t i : shownRows(result, with_all)) {
        const PlanPoint& p = result.candidates[i];
        std::snprintf(numbers, sizeof numbers, "%.6g,%.6g,%.6g,", p.iteration_ms,
                      p.images_per_second, p.hours);
        std::string cost;
        if (p.cost_usd) {
            char buffer[64];
            std::snprintf(buffer, sizeof buffer, "%.6g", *p.cost_usd);
            cost = buffer;
        }
        char energy[64];
        std::snprintf(energy, sizeof energy, "%.6g", p.energy_kwh);
        auto flag = [](bool b) { return b ? std::string("true") : std::string("false"); };
        out += csvField(gpuOf(r, p).id) + "," + csvField(systemOf(r, p).id) + "," +
               std::to_string(p.nodes) + "," + std::to_string(p.gpus_per_node) + "," +
               std::to_string(p.totalGpus()) + "," + std::to_string(p.batch_per_gpu) + "," +
               std::to_string(p.globalBatch()) + "," + precisionName(p.precision) + "," +
               syncStrategyName(p.sync) + "," + numbers + cost + "," + energy + "," +
               flag(meetsConstraints(p, r.constraints)) + "," + flag(front.contains(i)) + "," +
               flag(s.fastest == i) + "," + flag(s.cheapest == i) + "," +
               parallelStrategyName(p.parallel) + "," + std::to_string(p.pipeline_stages) + "\n";
    }
    return out;
}

std::string planTable(const PlanReport& report, bool with_all) {
    const PlanRequest& r = report.request;
    const PlanResult& result = report.result;
    const PlanSelection& s = result.selection;
    const std::set<std::size_t> front(s.pareto.begin(), s.pareto.end());
    std::string out =
        "Plan: " + r.network->source + ", " + std::to_string(r.epochs) + " epochs of " +
        withThousands(r.dataset_images) + " images, " + r.software.id + "\n" +
        withThousands(static_cast<int64_t>(result.candidates.size())) +
        " candidates fit in memory; " + withThousands(static_cast<int64_t>(s.meeting_constraints)) +
        " meet the constraints, " + withThousands(static_cast<int64_t>(s.priced)) +
        " of them with a price.\n\n";
    out += with_all ? "Every candidate (* Pareto front of time against cost):\n"
                    : "Pareto front of time against cost (F fastest, C cheapest):\n";
    TextTable t;
    t.addColumn("", TextTable::Align::Left);
    for (const char* h : {"GPU", "system"})
        t.addColumn(h, TextTable::Align::Left);
    for (const char* h : {"nodes", "GPUs/node", "batch/GPU"})
        t.addColumn(h, TextTable::Align::Right);
    for (const char* h : {"precision", "sync", "parallel"})
        t.addColumn(h, TextTable::Align::Left);
    for (const char* h : {"images/s", "hours", "cost $", "energy kWh"})
        t.addColumn(h, TextTable::Align::Right);
    for (const std::size_t i : shownRows(result, with_all)) {
        const PlanPoint& p = result.candidates[i];
        std::string mark = front.contains(i) ? "*" : "";
        if (s.fastest == i)
            mark += "F";
        if (s.cheapest == i)
            mark += "C";
        t.addRow({mark, gpuOf(r, p).id, systemOf(r, p).id, std::to_string(p.nodes),
                  std::to_string(p.gpus_per_node), std::to_string(p.batch_per_gpu),
                  precisionName(p.precision), syncStrategyName(p.sync), strategyText(p),
                  fixed(p.images_per_second, 0), hoursText(p.hours),
                  p.cost_usd ? money(*p.cost_usd) : "-", fixed(p.energy_kwh, 0)});
    }
    out += t.render() + "\n";
    if (s.fastest)
        out += "Fastest:  " + oneLine(r, result.candidates[*s.fastest]) + "\n";
    if (s.cheapest)
        out += "Cheapest: " + oneLine(r, result.candidates[*s.cheapest]) + "\n";
    for (const std::string& note : report.notes)
        out += "Note: " + note + "\n";
    return out;
}

std::vector<std::string> planNotes(const PlanRequest& request, const PlanResult& result,
                                   const std::optional<int64_t>& max_global_batch_flag) {
    std::vector<std::string> notes;
    std::set<int> unpriced_gpus;
    for (const PlanPoint& p : result.candidates)
        if (!p.cost_usd)
            unpriced_gpus.insert(p.gpu);
    if (!unpriced_gpus.empty()) {
        std::string ids;
        for (const int g : unpriced_gpus)
            ids += (ids.empty() ? "" : ", ") + request.gpus[static_cast<std::size_t>(g)].id;
        notes.push_back("no price for " + ids +
                        ": left out of the cost ranking (give prices with --prices FILE; "
                        "docs/planning.md)");
    }
    const PlanSelection& s = result.selection;
    std::vector<std::size_t> chosen(s.pareto.begin(), s.pareto.end());
    for (const auto& i : {s.fastest, s.cheapest})
        if (i)
            chosen.push_back(*i);
    std::set<int> no_host_power;
    for (const std::size_t i : chosen) {
        const PlanPoint& p = result.candidates[i];
        if (!(request.systems[static_cast<std::size_t>(p.system)].host_watts_per_node > 0))
            no_host_power.insert(p.system);
    }
    if (!no_host_power.empty()) {
        std::string ids;
        for (const int sys : no_host_power)
            ids += (ids.empty() ? "" : ", ") + request.systems[static_cast<std::size_t>(sys)].id;
        notes.push_back("energy counts the GPUs only on " + ids +
                        ": their host power is not known (host_watts_per_node)");
    }
    if (!max_global_batch_flag)
        notes.push_back("the global batch is at most " + withThousands(kDefaultMaxGlobalBatch) +
                        " by default, as far as ResNet-50 is known to keep its accuracy on "
                        "ImageNet (Goyal et al. 2017); --max-global-batch 0 lifts the bound");
    if (max_global_batch_flag && *max_global_batch_flag == 0) {
        for (const auto& [label, index] :
             {std::pair{"fastest", s.fastest}, std::pair{"cheapest", s.cheapest}}) {
            if (!index)
                continue;
            const PlanPoint& p = result.candidates[*index];
            if (p.globalBatch() > kLargeGlobalBatch)
                notes.push_back(std::string("the ") + label +
                                " point trains with a global batch of " +
                                withThousands(p.globalBatch()) + " images; beyond about " +
                                withThousands(kLargeGlobalBatch) +
                                " (Goyal et al. 2017, ResNet-50 on ImageNet) accuracy usually "
                                "suffers unless the optimizer is adapted, and more epochs may be "
                                "needed: bound it with --max-global-batch");
        }
    }
    return notes;
}

} // namespace iterscope::cli
