#include "fitting/pin_table.h"
#include "util/number_text.h"

#include "fitting/measurement_fit.h"
#include "util/error.h"
#include "util/parallel_for.h"
#include "validation/error_band.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace iterscope {

namespace {

std::string fixed(double v, int digits) {
    return fixedDecimals(v, digits);
}

// "+1.2", "-0.4", and "0.0" for what rounds to nothing, whichever its sign.
std::string signedFixed(double v, int digits) {
    const std::string text = fixed(std::abs(v), digits);
    if (text.find_first_not_of("0.") == std::string::npos)
        return text;
    return (v > 0 ? "+" : "-") + text;
}

std::string shareName(double share) {
    if (share < 0)
        return "est.";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", share);
    return buf;
}

// One candidate pin: a GPU of a source, its rows and the source's other rows.
struct Candidate {
    std::string source, gpu;
    std::vector<std::size_t> rows, others;
};

std::vector<Candidate> candidates(const FitProblem& problem, int min_rows) {
    std::vector<std::string> sources;
    std::map<std::string, std::vector<std::string>> gpus; // in the order of the rows
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> cells;
    for (std::size_t i = 0; i < problem.rows.size(); ++i) {
        const ValidationRow& r = problem.rows[i];
        if (std::find(sources.begin(), sources.end(), r.source) == sources.end())
            sources.push_back(r.source);
        auto& g = gpus[r.source];
        if (std::find(g.begin(), g.end(), r.gpu) == g.end())
            g.push_back(r.gpu);
        cells[{r.source, r.gpu}].push_back(i);
    }
    std::vector<Candidate> out;
    for (const std::string& source : sources) {
        if (gpus[source].size() < 2)
            continue; // nothing else to predict
        for (const std::string& gpu : gpus[source]) {
            Candidate c{source, gpu, cells[{source, gpu}], {}};
            if (c.rows.size() < static_cast<std::size_t>(std::max(min_rows, 1)))
                continue;
            for (const std::string& other : gpus[source])
                if (other != gpu)
                    for (std::size_t i : cells[{source, other}])
                        c.others.push_back(i);
            std::sort(c.others.begin(), c.others.end());
            out.push_back(std::move(c));
        }
    }
    return out;
}

// The MAPE % of `rows` with `profiles`, and each row's ln(measured / predicted throughput)
// into `log_ratios`.
double mape(const FitProblem& problem, const std::vector<std::size_t>& rows,
            const std::map<std::string, SoftwareProfile>& profiles,
            std::vector<double>& log_ratios) {
    const std::vector<double> predicted = predictRows(problem, rows, profiles);
    log_ratios.clear();
    for (std::size_t k = 0; k < rows.size(); ++k)
        log_ratios.push_back(throughputLogRatio(problem.rows[rows[k]], predicted[k]));
    return scoreRows(problem, rows, predicted, 1e9).mape;
}

PinTableRow makePin(const FitSpec& spec, const FitProblem& problem, const Candidate& c,
                    const CrossValidationFold& fold, const ValidationResolver& resolver,
                    const std::vector<double>& shares) {
    PinTableRow row;
    row.source = c.source;
    row.gpu = c.gpu;
    row.rows = static_cast<int>(c.rows.size());
    std::set<std::string> software;
    std::vector<ValidationRow> measured;
    for (std::size_t i : c.rows) {
        software.insert(problem.rows[i].software);
        measured.push_back(problem.rows[i]);
    }
    row.software = *software.begin();
    if (software.size() > 1) {
        // fit --measurements fits one profile; so does a pin.
        row.skipped = "its rows run on several software profiles";
        return row;
    }
    // The pin changes one profile: the other GPUs' rows on it are what it can move.
    std::vector<std::size_t> others;
    std::set<std::string> other_gpus;
    for (std::size_t i : c.others)
        if (problem.rows[i].software == row.software) {
            others.push_back(i);
            other_gpus.insert(problem.rows[i].gpu);
        }
    row.other_rows = static_cast<int>(others.size());
    row.other_gpus.assign(other_gpus.begin(), other_gpus.end());
    if (others.empty()) {
        row.skipped = "no other GPU of the source runs " + row.software;
        return row;
    }
    const auto unpinned = applyFit(spec, fold.fit.values, problem.baseline);
    row.others_unpinned = mape(problem, others, unpinned, row.others_log_unpinned);
    const std::string label = c.source + " / " + c.gpu;
    try {
        for (double share : shares) {
            SoftwareFitOptions options; // fit --measurements' defaults
            options.harness_share = share;
            const SoftwareFitReport fit =
                fitToMeasurements(measured, resolver, unpinned.at(row.software), options, label);
            auto pinned = unpinned;
            pinned[row.software] = fit.fitted;
            PinOutcome o;
            o.others_pinned = mape(problem, others, pinned, o.others_log);
            o.own_held_out = fit.error_held_out;
            for (std::size_t k = 0; k < fit.rows.size(); ++k)
                o.own_log.push_back(throughputLogRatio(measured[k], fit.rows[k].held_out));
            row.outcomes.push_back(std::move(o));
        }
    } catch (const InputError& e) {
        // What a user would be told: the fit refuses these rows.
        row.outcomes.clear();
        row.skipped = std::string("the fit refused: ") + e.what();
    }
    return row;
}

} // namespace

PinTable leaveOneGpuIn(const FitSpec& spec, const FitProblem& problem,
                       const std::vector<CrossValidationFold>& source_folds,
                       const ValidationResolver& resolver, const PinTableOptions& options) {
    PinTable table;
    table.harness_shares = options.harness_shares;
    if (table.harness_shares.empty())
        table.harness_shares = {-1.0, 0.0, 1.0};
    const std::vector<Candidate> pins = candidates(problem, options.min_rows);
    std::vector<const CrossValidationFold*> folds;
    for (const Candidate& c : pins) {
        auto it = std::find_if(source_folds.begin(), source_folds.end(),
                               [&](const CrossValidationFold& f) { return f.key == c.source; });
        if (it == source_folds.end())
            throw InputError("leave one GPU in: no fold leaves out source " + c.source);
        folds.push_back(&*it);
    }

    table.rows.resize(pins.size());
    // Each pin writes only its own row: the table does not depend on `jobs`.
    parallelFor(pins.size(), options.jobs, [&](std::size_t k) {
        try {
            table.rows[k] =
                makePin(spec, problem, pins[k], *folds[k], resolver, table.harness_shares);
        } catch (const std::exception& e) {
            rethrowWithContext(pins[k].source + " / " + pins[k].gpu, e);
        }
    });

    for (std::size_t s = 0; s < table.harness_shares.size(); ++s) {
        PinTableSummary sum;
        sum.harness_share = table.harness_shares[s];
        double relative = 0, own = 0;
        std::vector<double> unpinned_log, pinned_log, own_log;
        bool first = true;
        for (const PinTableRow& r : table.rows) {
            if (r.outcomes.size() <= s)
                continue;
            const PinOutcome& o = r.outcomes[s];
            ++sum.pins;
            relative += r.others_unpinned > 0
                            ? (o.others_pinned - r.others_unpinned) / r.others_unpinned
                            : 0;
            own += o.own_held_out;
            unpinned_log.insert(unpinned_log.end(), r.others_log_unpinned.begin(),
                                r.others_log_unpinned.end());
            pinned_log.insert(pinned_log.end(), o.others_log.begin(), o.others_log.end());
            own_log.insert(own_log.end(), o.own_log.begin(), o.own_log.end());
            const double change = o.others_pinned - r.others_unpinned;
            if (first || change > sum.worst_change_points) {
                sum.worst_change_points = change;
                sum.worst = r.source + " / " + r.gpu;
                first = false;
            }
        }
        if (sum.pins > 0) {
            sum.mean_relative_change = relative / sum.pins;
            sum.mean_own_held_out = own / sum.pins;
            sum.others_band_unpinned_log = conformalHalfWidth(unpinned_log, kBandCoverage);
            sum.others_band_pinned_log = conformalHalfWidth(pinned_log, kBandCoverage);
            sum.own_band_log = conformalHalfWidth(own_log, kBandCoverage);
        }
        table.summaries.push_back(sum);
    }
    return table;
}

std::string pinTableSummaryLine(const PinTableSummary& s) {
    std::ostringstream line;
    line << "harness share " << shareName(s.harness_share) << ": " << s.pins
         << " pins; the other GPUs' error " << signedFixed(s.mean_relative_change * 100, 1)
         << "% on average (target -20% or lower); worst pin "
         << signedFixed(s.worst_change_points, 2) << " points"
         << (s.worst.empty() ? "" : " (" + s.worst + ")")
         << " (target +1 or lower); the pinned GPU's own error, a row left out, "
         << fixed(s.mean_own_held_out, 2) << "% on average (target 5% or lower)";
    return line.str();
}

std::string pinTableBandLine(const PinTableSummary& s) {
    std::ostringstream line;
    line << "harness share " << shareName(s.harness_share)
         << ", 80% bands (conformal, every pin's rows pooled): the other GPUs "
         << bandPercentText(s.others_band_unpinned_log) << " unpinned, "
         << bandPercentText(s.others_band_pinned_log) << " pinned; the pinned GPU, a row left out, "
         << bandPercentText(s.own_band_log);
    return line.str();
}

std::string pinTableMarkdown(const PinTable& table) {
    std::ostringstream md;
    md << "### Leave one GPU in: a fit to one GPU's runs, the source's other GPUs predicted\n\n"
       << "Each (source, GPU) with enough rows, in a source with two GPUs or more: the "
          "profiles fitted with the whole source left out, then `iterscope-cli fit "
          "--measurements` on that GPU's rows (default fields), then the source's other GPUs "
          "on the same software profile predicted. Errors are MAPE %.\n\n";
    if (table.harness_shares.empty())
        return md.str();
    const std::string main = shareName(table.harness_shares[0]);
    md << "| source | GPU fitted | rows | other GPUs (rows) | others unpinned | pinned (share "
       << main << ") | change, points | change | own, a row left out |";
    for (std::size_t s = 1; s < table.harness_shares.size(); ++s)
        md << " pinned, share " << shareName(table.harness_shares[s]) << " | own |";
    md << "\n|---|---|---|---|---|---|---|---|---|";
    for (std::size_t s = 1; s < table.harness_shares.size(); ++s)
        md << "---|---|";
    md << "\n";
    for (const PinTableRow& r : table.rows) {
        std::string others;
        for (const std::string& g : r.other_gpus)
            others += (others.empty() ? "" : ", ") + g;
        md << "| " << r.source << " | " << r.gpu << " | " << r.rows << " | "
           << (others.empty() ? "-" : others + " (" + std::to_string(r.other_rows) + ")") << " | ";
        if (r.outcomes.empty()) {
            md << (r.other_rows > 0 ? fixed(r.others_unpinned, 1) : "-") << " | "
               << r.skipped.substr(0, 300) << " |";
            for (std::size_t c = 0; c < 3 + 2 * (table.harness_shares.size() - 1); ++c)
                md << " |";
            md << "\n";
            continue;
        }
        const PinOutcome& o = r.outcomes[0];
        md << fixed(r.others_unpinned, 1) << " | " << fixed(o.others_pinned, 1) << " | "
           << signedFixed(o.others_pinned - r.others_unpinned, 1) << " | "
           << (r.others_unpinned > 0
                   ? signedFixed((o.others_pinned - r.others_unpinned) / r.others_unpinned * 100,
                                 0) +
                         "%"
                   : std::string("-"))
           << " | " << fixed(o.own_held_out, 1) << " |";
        for (std::size_t s = 1; s < r.outcomes.size(); ++s)
            md << " " << fixed(r.outcomes[s].others_pinned, 1) << " | "
               << fixed(r.outcomes[s].own_held_out, 1) << " |";
        md << "\n";
    }
    md << "\n";
    for (const PinTableSummary& s : table.summaries)
        md << "- " << pinTableSummaryLine(s) << ".\n";
    for (const PinTableSummary& s : table.summaries)
        md << "- " << pinTableBandLine(s) << ".\n";
    return md.str();
}

} // namespace iterscope
