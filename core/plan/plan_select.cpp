// What the constraints leave of the candidates: the Pareto front of time against cost, the
// fastest and the cheapest, and, when nothing is left, which constraint to relax.
#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace iterscope {

namespace {

enum class Check { MaxGpus, MaxGlobalBatch, Deadline, Budget };

bool passes(const PlanPoint& p, const PlanConstraints& c, Check check) {
    switch (check) {
    case Check::MaxGpus:
        return p.totalGpus() <= c.max_gpus;
    case Check::MaxGlobalBatch:
        return !c.max_global_batch || p.globalBatch() <= *c.max_global_batch;
    case Check::Deadline:
        return !c.deadline_hours || p.hours <= *c.deadline_hours;
    case Check::Budget:
        // Only a priced candidate can be shown to stay within a budget.
        return !c.budget_usd || (p.cost_usd && *p.cost_usd <= *c.budget_usd);
    }
    return true;
}

bool passesAllBut(const PlanPoint& p, const PlanConstraints& c, Check skipped) {
    for (const Check check :
         {Check::MaxGpus, Check::MaxGlobalBatch, Check::Deadline, Check::Budget})
        if (check != skipped && !passes(p, c, check))
            return false;
    return true;
}

// Fewer digits than printf's %g for money and hours a person reads; rounded up, so that
// relaxing to the printed value is enough.
std::string roundedUp(double v) {
    const double digits =
        std::pow(10.0, std::max(0.0, 2.0 - std::floor(std::log10(std::max(v, 1e-9)))));
    std::ostringstream out;
    out << std::ceil(v * digits) / digits;
    return out.str();
}

} // namespace

bool meetsConstraints(const PlanPoint& point, const PlanConstraints& constraints) {
    for (const Check check :
         {Check::MaxGpus, Check::MaxGlobalBatch, Check::Deadline, Check::Budget})
        if (!passes(point, constraints, check))
            return false;
    return true;
}

std::vector<std::size_t> paretoFront(const std::vector<PlanPoint>& candidates,
                                     const std::vector<std::size_t>& among) {
    std::vector<std::size_t> priced;
    for (const std::size_t i : among)
        if (candidates[i].cost_usd)
            priced.push_back(i);
    // By hours, then cost: a point is on the front when it is cheaper than every faster one.
    std::sort(priced.begin(), priced.end(), [&](std::size_t a, std::size_t b) {
        const PlanPoint& x = candidates[a];
        const PlanPoint& y = candidates[b];
        if (x.hours != y.hours)
            return x.hours < y.hours;
        if (*x.cost_usd != *y.cost_usd)
            return *x.cost_usd < *y.cost_usd;
        return a < b;
    });
    std::vector<std::size_t> front;
    double cheapest_so_far = std::numeric_limits<double>::infinity();
    for (const std::size_t i : priced) {
        const double cost = *candidates[i].cost_usd;
        if (cost < cheapest_so_far) {
            front.push_back(i);
            cheapest_so_far = cost;
        }
    }
    return front;
}

PlanSelection selectPlan(const std::vector<PlanPoint>& candidates,
                         const PlanConstraints& constraints) {
    PlanSelection s;
    std::vector<std::size_t> meeting;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (meetsConstraints(candidates[i], constraints))
            meeting.push_back(i);
    s.meeting_constraints = meeting.size();
    for (const std::size_t i : meeting) {
        const PlanPoint& p = candidates[i];
        if (p.cost_usd)
            ++s.priced;
        // Ties go to the cheaper, then the earlier candidate (deterministic output).
        if (!s.fastest) {
            s.fastest = i;
        } else {
            const PlanPoint& f = candidates[*s.fastest];
            const bool cheaper = p.cost_usd && (!f.cost_usd || *p.cost_usd < *f.cost_usd);
            if (p.hours < f.hours || (p.hours == f.hours && cheaper))
                s.fastest = i;
        }
        if (p.cost_usd) {
            if (!s.cheapest) {
                s.cheapest = i;
            } else {
                const PlanPoint& c = candidates[*s.cheapest];
                if (*p.cost_usd < *c.cost_usd || (*p.cost_usd == *c.cost_usd && p.hours < c.hours))
                    s.cheapest = i;
            }
        }
    }
    s.pareto = paretoFront(candidates, meeting);
    return s;
}

std::string relaxAdvice(const std::vector<PlanPoint>& candidates,
                        const PlanConstraints& constraints) {
    if (candidates.empty())
        return "no configuration fits in GPU memory";
    if (constraints.budget_usd &&
        std::none_of(candidates.begin(), candidates.end(),
                     [](const PlanPoint& p) { return p.cost_usd.has_value(); }))
        return "no GPU of the plan has a price, so none can be shown to stay within "
               "--budget-usd: give prices with --prices FILE, or drop --budget-usd";

    std::vector<std::string> options;
    struct Relaxable {
        Check check;
        bool active;
    };
    const Relaxable relaxable[] = {
        {Check::Deadline, constraints.deadline_hours.has_value()},
        {Check::Budget, constraints.budget_usd.has_value()},
        {Check::MaxGlobalBatch, constraints.max_global_batch.has_value()},
    };
    for (const Relaxable& r : relaxable) {
        if (!r.active)
            continue;
        // The smallest relaxation that lets something through, given the other constraints.
        double needed = std::numeric_limits<double>::infinity();
        for (const PlanPoint& p : candidates) {
            if (!passesAllBut(p, constraints, r.check))
                continue;
            switch (r.check) {
            case Check::Deadline:
                needed = std::min(needed, p.hours);
                break;
            case Check::Budget:
                if (p.cost_usd)
                    needed = std::min(needed, *p.cost_usd);
                break;
            case Check::MaxGlobalBatch:
                needed = std::min(needed, static_cast<double>(p.globalBatch()));
                break;
            case Check::MaxGpus:
                break;
            }
        }
        if (!std::isfinite(needed))
            continue;
        switch (r.check) {
        case Check::Deadline:
            options.push_back("--deadline-hours to at least " + roundedUp(needed));
            break;
        case Check::Budget:
            options.push_back("--budget-usd to at least " + roundedUp(needed));
            break;
        case Check::MaxGlobalBatch:
            options.push_back("--max-global-batch to at least " +
                              std::to_string(static_cast<int64_t>(needed)));
            break;
        case Check::MaxGpus:
            break;
        }
    }
    if (options.empty())
        return "no candidate meets the constraints, and relaxing any one of them is not "
               "enough: relax --deadline-hours, --budget-usd and --max-global-batch together, or "
               "raise --max-gpus";
    std::string advice = "no candidate meets the constraints: relax ";
    for (std::size_t i = 0; i < options.size(); ++i)
        advice += (i == 0 ? "" : i + 1 == options.size() ? ", or " : ", ") + options[i];
    if (constraints.deadline_hours && constraints.max_gpus < kDefaultPlanMaxGpus)
        advice += " (more GPUs than --max-gpus " + std::to_string(constraints.max_gpus) +
                  " may also meet the deadline)";
    return advice;
}

} // namespace iterscope
