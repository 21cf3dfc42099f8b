#include "advisor/advisor.h"

#include "advisor/advisor_text.h"
#include "hardware/compatibility.h"
#include "hardware/profile_loader.h"
#include "model/breakdown.h"
#include "model/model.h"
#include "model/scenario_warnings.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>

namespace iterscope {

namespace {

// A speed-up within this of 1x is no change at all (the model is deterministic; this
// only keeps rounding from ranking a no-op).
constexpr double kNoEffect = 0.002;
// The knee of the batch curve: the smallest batch within this share of the best one's
// images per second, which keeps the global batch (and the learning-rate retuning) small.
constexpr double kKneeShare = 0.95;
// Of several upgrades of one kind (bucket sizes, NIC speeds), the smallest step within this
// share of the best one's speed-up is suggested: the rest costs more and adds little.
constexpr double kEnoughOfBest = 0.98;
// Bucket sizes PyTorch DDP and Horovod users set (MB); 25 is DDP's default.
constexpr double kBucketSizesMb[] = {1, 5, 10, 25, 50, 100, 200};

struct Candidate {
    Change change;
    Scenario scenario;
};

int64_t globalBatch(const Scenario& s) {
    return s.batch_per_gpu * s.totalGpus();
}

bool withinGlobalBatch(const Scenario& s, const AdviceOptions& o) {
    return o.max_global_batch <= 0 || globalBatch(s) <= o.max_global_batch;
}

Change makeChange(std::string kind, std::string words, std::vector<std::string> flags,
                  std::vector<std::string> band_kinds, std::function<void(Scenario&)> apply) {
    return Change{std::move(kind), std::move(words), std::move(flags), std::move(band_kinds),
                  std::move(apply)};
}

bool exchanges(const Scenario& s) {
    return s.totalGpus() > 1 && s.sync != SyncStrategy::None;
}

// Whether a choice is one the model would warn about where the scenario did not: TF32 on a
// GPU without TF32 tensor cores, and the like. Such a change does not apply.
std::optional<std::string> newCaution(const Scenario& base, const Scenario& changed) {
    std::set<std::string> before;
    for (const ScenarioWarning& w : scenarioWarnings(base))
        before.insert(w.id);
    for (const ScenarioWarning& w : scenarioWarnings(changed))
        if (w.level == ScenarioWarning::Level::Caution && !before.count(w.id))
            return w.text;
    return std::nullopt;
}

// The shipped GPU profiles and the NIC rates of the shipped systems, read once per profile
// folder: an advice with hardware would otherwise parse some sixty JSON files.
struct ShippedHardware {
    std::vector<GpuProfile> gpus;
    std::vector<double> nic_gbps; // ascending, distinct
};

const ShippedHardware& shippedHardware() {
    static std::mutex mutex;
    static std::map<std::string, ShippedHardware> by_dir;
    const std::string dir = profilesDir();
    std::lock_guard lock(mutex);
    auto it = by_dir.find(dir);
    if (it == by_dir.end()) {
        ShippedHardware h;
        for (const std::string& id : gpuIds()) {
            try {
                h.gpus.push_back(loadGpuProfile(id));
            } catch (const InputError&) {
                // A profile that does not load is not offered; predict says why when named.
            }
        }
        std::set<double> rates;
        for (const std::string& id : systemIds()) {
            try {
                const SystemProfile sys = loadSystemProfile(id);
                if (sys.nic_gbps > 0)
                    rates.insert(sys.nic_gbps);
            } catch (const InputError&) {
            }
        }
        h.nic_gbps.assign(rates.begin(), rates.end());
        it = by_dir.emplace(dir, std::move(h)).first;
    }
    return it->second;
}

class Advisor {
  public:
    Advisor(const Scenario& s, const AdviceOptions& o)
        : m_base(s)
        , m_options(o) {
        m_full = predict(s);
    }

    Advice run() {
        Advice advice;
        advice.iteration_ms = m_full.iteration_ms;
        advice.images_per_second = m_full.images_per_second;
        advice.global_batch = globalBatch(m_base);
        advice.diagnosis = diagnose(m_base, m_full);
        if (m_options.software) {
            precision();
            layout();
            batch();
            overlap();
            bucket();
            allreduce();
            sync();
            parallel();
            input();
        }
        if (m_options.hardware) {
            gpuCount();
            network();
            gpu();
        }
        advice.kinds_considered = m_kinds;
        advice.suggestions = std::move(m_suggestions);
        advice.not_suggested = std::move(m_not_suggested);
        sortBySpeedup(advice.suggestions);
        advice.combinations = combinations(advice.suggestions);
        return advice;
    }

  private:
    void consider(const std::string& kind) {
        if (std::find(m_kinds.begin(), m_kinds.end(), kind) == m_kinds.end())
            m_kinds.push_back(kind);
    }

    // Predicts a change; nullopt when it cannot apply, with the reason filed apart.
    std::optional<Suggestion> evaluate(const std::vector<Change>& parts, bool file_rejects) {
        Scenario s = m_base;
        for (const Change& c : parts)
            c.apply(s);
        Suggestion out;
        for (const Change& c : parts) {
            out.kind += (out.kind.empty() ? "" : "+") + c.kind;
            out.change += (out.change.empty() ? "" : "; ") + c.words;
            out.flags.insert(out.flags.end(), c.flags.begin(), c.flags.end());
        }
        out.parts = parts;
        out.global_batch = globalBatch(s);
        auto reject = [&](std::string reason) -> std::optional<Suggestion> {
            out.reason = std::move(reason);
            if (file_rejects)
                m_not_suggested.push_back(out);
            return std::nullopt;
        };
        try {
            validateScenario(s);
        } catch (const InputError& e) {
            return reject(std::string("does not apply: ") + e.what());
        }
        if (auto caution = newCaution(m_base, s))
            return reject("does not apply: " + *caution);
        if (!withinGlobalBatch(s, m_options))
            return reject("does not apply: the global batch would be " +
                          groupedInteger(out.global_batch) + ", over the bound of " +
                          groupedInteger(m_options.max_global_batch) + " (--max-global-batch)");
        Prediction p;
        try {
            p = predict(s, PredictDetail::Totals);
        } catch (const InputError& e) {
            return reject(std::string("does not apply: ") + e.what());
        }
        out.iteration_ms = p.iteration_ms;
        out.images_per_second = p.images_per_second;
        out.fits_in_memory = p.fits_in_memory;
        out.speedup = p.images_per_second / m_full.images_per_second;
        std::vector<std::string> band_kinds;
        for (const Change& c : parts)
            for (const std::string& k : c.band_kinds)
                if (std::find(band_kinds.begin(), band_kinds.end(), k) == band_kinds.end())
                    band_kinds.push_back(k);
        out.band = ratioBandFor(shippedRatioBands(), band_kinds, out.speedup);
        out.cost = costOf(m_base, m_full, s, p);
        out.why = whyItHelps(m_base, m_full, s, p, parts);
        if (!p.fits_in_memory)
            return reject("does not fit in memory: " + memoryText(p, s));
        // A change that makes a scenario that does not fit run helps whatever its speed.
        if (!m_full.fits_in_memory) {
            out.why = "makes it fit in memory (" + memoryText(p, s) + "): " + out.why;
            return out;
        }
        if (std::abs(out.speedup - 1) < kNoEffect)
            return reject("no effect: the same images per second");
        if (out.speedup < 1)
            return reject("slower: " + plainNumber(std::round((1 - out.speedup) * 1000) / 10) +
                          "% fewer images/s");
        if (out.band.pairs > 0 && out.band.holdsOne())
            return reject("not a clear win: its band " + ratioText(out.band.low) + " to " +
                          ratioText(out.band.high) + " holds 1x");
        return out;
    }

    // Of candidates of one kind, the best that helps becomes a suggestion, or the smallest
    // step near it (`prefer_smallest`: candidates ordered smallest step first); the others
    // are dropped silently unless none helps, when the best is filed apart with its reason.
    void pick(const std::string& kind, const std::vector<Change>& options,
              bool prefer_smallest = false) {
        consider(kind);
        std::vector<Suggestion> helping;
        std::optional<Suggestion> best_rejected;
        for (const Change& c : options) {
            const std::size_t filed = m_not_suggested.size();
            if (auto s = evaluate({c}, true))
                helping.push_back(std::move(*s));
            else if (m_not_suggested.size() > filed &&
                     m_not_suggested.back().reason.rfind("does not fit", 0) == 0) {
                // What does not fit is said, apart, whatever else of its kind helps.
                continue;
            } else if (m_not_suggested.size() > filed) {
                // Keep the most telling reject of the kind: one that fits and runs wins over
                // one that does not apply.
                Suggestion r = std::move(m_not_suggested.back());
                m_not_suggested.pop_back();
                if (!best_rejected || rejectRank(r) > rejectRank(*best_rejected) ||
                    (rejectRank(r) == rejectRank(*best_rejected) &&
                     r.speedup > best_rejected->speedup))
                    best_rejected = std::move(r);
            }
        }
        if (helping.empty()) {
            if (best_rejected)
                m_not_suggested.push_back(std::move(*best_rejected));
            return;
        }
        const auto best = std::max_element(
            helping.begin(), helping.end(),
            [](const Suggestion& a, const Suggestion& b) { return a.speedup < b.speedup; });
        const Suggestion* chosen = &*best;
        if (prefer_smallest)
            for (const Suggestion& h : helping)
                if (h.speedup - 1 >= kEnoughOfBest * (best->speedup - 1)) {
                    chosen = &h;
                    break;
                }
        m_suggestions.push_back(*chosen);
    }

    static int rejectRank(const Suggestion& s) {
        if (s.reason.rfind("not a clear win", 0) == 0)
            return 3;
        if (s.reason.rfind("does not fit", 0) == 0)
            return 2;
        if (s.reason.rfind("slower", 0) == 0 || s.reason.rfind("no effect", 0) == 0)
            return 1;
        return 0;
    }

    void notApplicable(const std::string& kind, const std::string& words,
                       const std::string& reason) {
        consider(kind);
        Suggestion s;
        s.kind = kind;
        s.change = words;
        s.iteration_ms = m_full.iteration_ms;
        s.images_per_second = m_full.images_per_second;
        s.global_batch = globalBatch(m_base);
        s.fits_in_memory = m_full.fits_in_memory;
        s.reason = "does not apply: " + reason;
        m_not_suggested.push_back(std::move(s));
    }

    // --- harness and software -------------------------------------------------------------

    void precision() {
        std::vector<Change> options;
        for (const Precision p : {Precision::AMP, Precision::BF16, Precision::TF32}) {
            if (p == m_base.precision)
                continue;
            options.push_back(makeChange("precision", precisionWords(p),
                                         {"--precision", precisionName(p)}, {"precision"},
                                         [p](Scenario& s) { s.precision = p; }));
        }
        pick("precision", options);
    }

    void layout() {
        if (m_base.nhwc()) {
            notApplicable("layout", "channels-last (NHWC) activations",
                          "the activations are channels-last already");
            return;
        }
        pick("layout",
             {makeChange("layout", "channels-last (NHWC) activations", {"--layout", "nhwc"},
                         {"layout"}, [](Scenario& s) { s.layout = ActivationLayout::NHWC; })});
    }

    void batch() {
        consider("batch");
        const int64_t per_gpu_cap = m_options.max_global_batch > 0
                                        ? m_options.max_global_batch / m_base.totalGpus()
                                        : int64_t{1} << 20;
        const int64_t largest = std::min(m_full.max_batch_that_fits, per_gpu_cap);
        if (!m_full.fits_in_memory) {
            // Nothing else matters until it runs: the largest batch that fits, smaller.
            if (m_full.max_batch_that_fits >= 1) {
                const int64_t b = m_full.max_batch_that_fits;
                pick("batch",
                     {makeChange("batch",
                                 "batch " + groupedInteger(b) + " per GPU (the largest that fits)",
                                 {"--batch", std::to_string(b)}, {"batch"},
                                 [b](Scenario& s) { s.batch_per_gpu = b; })});
            } else {
                notApplicable("batch", "a smaller batch per GPU",
                              "not even a batch of one fits in memory");
            }
            return;
        }
        if (largest <= m_base.batch_per_gpu) {
            notApplicable("batch", "a larger batch per GPU",
                          m_full.max_batch_that_fits <= m_base.batch_per_gpu
                              ? "no larger batch per GPU fits in memory"
                              : "a larger batch would take the global batch over " +
                                    groupedInteger(m_options.max_global_batch));
            return;
        }
        // The batch curve at powers of two up to the largest that fits, and that one.
        std::vector<int64_t> batches;
        for (int64_t b = 1; b < largest; b *= 2)
            if (b > m_base.batch_per_gpu)
                batches.push_back(b);
        batches.push_back(largest);
        double best = 0;
        std::vector<std::pair<int64_t, double>> curve;
        for (int64_t b : batches) {
            Scenario s = m_base;
            s.batch_per_gpu = b;
            try {
                validateScenario(s);
                const Prediction p = predict(s, PredictDetail::Totals);
                if (!p.fits_in_memory)
                    continue;
                curve.emplace_back(b, p.images_per_second);
                best = std::max(best, p.images_per_second);
            } catch (const InputError&) {
            }
        }
        std::vector<Change> options;
        auto batchChange = [](int64_t b, const std::string& what) {
            return makeChange("batch", "batch " + groupedInteger(b) + " per GPU (" + what + ")",
                              {"--batch", std::to_string(b)}, {"batch"},
                              [b](Scenario& s) { s.batch_per_gpu = b; });
        };
        // The knee: the first batch within reach of the best; none when the scenario's own
        // batch is already there.
        int64_t knee = 0;
        if (m_full.images_per_second < kKneeShare * best)
            for (const auto& [b, ips] : curve)
                if (ips >= kKneeShare * best) {
                    knee = b;
                    break;
                }
        if (!curve.empty()) {
            const int64_t top = curve.back().first;
            options.push_back(batchChange(top, top == m_full.max_batch_that_fits
                                                   ? "the largest that fits"
                                                   : "the largest the global batch bound allows"));
            if (knee > 0 && knee != top)
                options.push_back(batchChange(knee, "the knee of the batch curve"));
        }
        // Both are worth showing: the knee keeps the global batch small, the largest is
        // fastest; the knee is listed only when it is a real step on its own.
        const std::size_t before = m_suggestions.size();
        for (const Change& c : options)
            if (auto s = evaluate({c}, true))
                m_suggestions.push_back(std::move(*s));
        if (m_suggestions.size() == before + 2 &&
            m_suggestions[before].speedup - m_suggestions[before + 1].speedup < kNoEffect)
            m_suggestions.erase(m_suggestions.begin() + static_cast<std::ptrdiff_t>(before));
    }

    void overlap() {
        if (!exchanges(m_base))
            return notApplicable("overlap", "overlap the gradient exchange with backward",
                                 "nothing is exchanged on one GPU");
        if (m_base.overlap)
            return notApplicable("overlap", "overlap the gradient exchange with backward",
                                 "the exchange overlaps backward already");
        pick("overlap",
             {makeChange("overlap", "overlap the gradient exchange with backward",
                         {"--overlap", "on"}, {"overlap"}, [](Scenario& s) { s.overlap = true; })});
    }

    void bucket() {
        if (!exchanges(m_base))
            return notApplicable("bucket", "another gradient bucket size",
                                 "nothing is exchanged on one GPU");
        std::vector<Change> options;
        for (const double mb : kBucketSizesMb)
            if (std::abs(mb - m_base.bucket_mb) > 1e-9)
                options.push_back(makeChange("bucket",
                                             "gradient buckets of " + plainNumber(mb) + " MB",
                                             {"--bucket-mb", plainNumber(mb)}, {"bucket"},
                                             [mb](Scenario& s) { s.bucket_mb = mb; }));
        pick("bucket", options);
    }

    void allreduce() {
        if (!exchanges(m_base) || (m_base.sync != SyncStrategy::AllreduceNccl))
            return notApplicable("allreduce", "another all-reduce algorithm",
                                 "the exchange is not an NCCL all-reduce");
        std::vector<Change> options;
        for (const AllreduceAlgorithm a :
             {AllreduceAlgorithm::Ring, AllreduceAlgorithm::Tree, AllreduceAlgorithm::Hierarchical,
              AllreduceAlgorithm::Nvls, AllreduceAlgorithm::CollNet}) {
            if (a == m_base.allreduce || m_full.allreduce_algorithm == allreduceAlgorithmName(a))
                continue;
            if (a == AllreduceAlgorithm::Nvls && !m_base.system.nvlink_sharp)
                continue;
            if (a == AllreduceAlgorithm::CollNet && !m_base.system.network_sharp)
                continue;
            options.push_back(makeChange(
                "allreduce", std::string("the ") + allreduceAlgorithmName(a) + " all-reduce",
                {"--allreduce", allreduceAlgorithmName(a)}, {"allreduce"},
                [a](Scenario& s) { s.allreduce = a; }));
        }
        pick("allreduce", options);
    }

    void sync() {
        if (m_base.totalGpus() <= 1)
            return notApplicable("sync", "another gradient exchange",
                                 "nothing is exchanged on one GPU");
        std::vector<Change> options;
        for (const SyncStrategy x :
             {SyncStrategy::AllreduceNccl, SyncStrategy::AllreduceCopy, SyncStrategy::PsGpu,
              SyncStrategy::PsCpu, SyncStrategy::DistributedReplicated, SyncStrategy::PsAsync}) {
            if (x == m_base.sync)
                continue;
            options.push_back(makeChange("sync", syncWords(x), {"--sync", syncStrategyName(x)},
                                         {"sync"}, [x](Scenario& s) { s.sync = x; }));
        }
        pick("sync", options);
    }

    void parallel() {
        if (m_base.totalGpus() <= 1)
            return notApplicable("parallel", "another parallel strategy",
                                 "one GPU has nothing to share");
        std::vector<Change> options;
        for (const ParallelStrategy p :
             {ParallelStrategy::Data, ParallelStrategy::Zero1, ParallelStrategy::Zero2,
              ParallelStrategy::Zero3, ParallelStrategy::Hybrid}) {
            if (p == m_base.parallel)
                continue;
            options.push_back(makeChange("parallel", parallelWords(p),
                                         {"--parallel", parallelStrategyName(p)}, {"parallel"},
                                         [p](Scenario& s) { s.parallel = p; }));
        }
        for (const int stages : {2, 4}) {
            if (m_base.parallel == ParallelStrategy::Pipeline && m_base.pipeline_stages == stages)
                continue;
            options.push_back(makeChange("parallel",
                                         "a " + std::to_string(stages) + "-stage 1F1B pipeline",
                                         {"--parallel", "pipeline", "--pipeline-stages",
                                          std::to_string(stages), "--schedule", "1f1b"},
                                         {"parallel"}, [stages](Scenario& s) {
                                             s.parallel = ParallelStrategy::Pipeline;
                                             s.pipeline_stages = stages;
                                             s.schedule = PipelineSchedule::OneFOneB;
                                         }));
        }
        pick("parallel", options);
    }

    void input() {
        consider("loader-workers");
        if (!m_base.realData())
            return notApplicable("loader-workers", "more data-loader workers",
                                 "the images are synthetic: nothing is decoded");
        const SystemProfile& sys = m_base.system;
        const SoftwareProfile& sw = m_base.software;
        if (!(sw.host_images_per_core_s > 0) || sys.cpu_cores_per_node <= 0)
            return notApplicable("loader-workers", "more data-loader workers",
                                 sw.input_gpu_us_per_image > 0
                                     ? "the software decodes on the GPU (DALI)"
                                     : "the host's decoding rate is not known for this system");
        const int threads = std::max(sys.cpu_threads_per_node, sys.cpu_cores_per_node);
        const int per_gpu = std::max(1, threads / std::max(1, m_base.gpus_per_node));
        const double now = sw.loader_workers_per_gpu > 0
                               ? sw.loader_workers_per_gpu
                               : double(sys.cpu_cores_per_node) / m_base.gpus_per_node;
        if (per_gpu <= now + 1e-9)
            return notApplicable("loader-workers", "more data-loader workers",
                                 "the loader uses every hardware thread of the node already");
        pick("loader-workers",
             {makeChange("loader-workers",
                         std::to_string(per_gpu) + " data-loader workers per GPU (every " +
                             "hardware thread of the node)",
                         {"--loader-workers", std::to_string(per_gpu)}, {"loader-workers"},
                         [per_gpu](Scenario& s) { s.software.loader_workers_per_gpu = per_gpu; })});
        // GPU decoding needs a software profile that knows its cost on this GPU.
        if (!(sw.input_gpu_us_per_image > 0))
            notApplicable("gpu-decoding", "decode on the GPU (DALI)",
                          "no GPU decoding cost is known for " + sw.id +
                              " (a software profile with input_gpu_us_per_image has one)");
    }

    // --- hardware ---------------------------------------------------------------------------

    void gpuCount() {
        std::vector<Change> options;
        const int full = m_base.system.gpus_per_node;
        if (m_base.gpus_per_node < full)
            options.push_back(makeChange(
                "gpu-count", "every GPU of the node: " + std::to_string(full) + " per node",
                {"--gpus-per-node", std::to_string(full)}, {"gpu-count"},
                [full](Scenario& s) { s.gpus_per_node = full; }));
        if (options.empty())
            notApplicable("gpus-per-node", "more GPUs per node",
                          "every GPU of the node is used already");
        else
            pick("gpus-per-node", options);
        if (m_base.system.max_nodes <= 1 || m_base.system.network == "none")
            return notApplicable("nodes", "more nodes", "the system is one node");
        const int nodes = m_base.nodes * 2;
        pick("nodes", {makeChange("gpu-count", "twice the nodes: " + std::to_string(nodes),
                                  {"--nodes", std::to_string(nodes)}, {"gpu-count"},
                                  [nodes](Scenario& s) { s.nodes = nodes; })});
    }

    void network() {
        if (m_base.nodes <= 1)
            return notApplicable("network", "a faster network",
                                 "one node: nothing crosses the network");
        // The line rates of the shipped systems' NICs, the faster ones, slowest first.
        std::vector<Change> options;
        for (const double r : shippedHardware().nic_gbps)
            if (r > m_base.system.nic_gbps * 1.01)
                options.push_back(makeChange("network", "faster NICs: " + networkRateWords(r),
                                             {"--nic-gbps", plainNumber(r)}, {"network"},
                                             [r](Scenario& s) { s.system.nic_gbps = r; }));
        pick("network", options, true);
        const int nics = m_base.system.nics_per_node * 2;
        if (nics > 0 && nics <= std::max(1, m_base.gpus_per_node))
            pick("nics", {makeChange("network",
                                     std::to_string(nics) + " NICs per node instead of " +
                                         std::to_string(m_base.system.nics_per_node),
                                     {"--nics-per-node", std::to_string(nics)}, {"network"},
                                     [nics](Scenario& s) { s.system.nics_per_node = nics; })});
    }

    void gpu() {
        const std::vector<GpuProfile>& gpus =
            m_options.gpus.empty() ? shippedHardware().gpus : m_options.gpus;
        std::vector<Change> options;
        for (const GpuProfile& g : gpus) {
            if (g.id == m_base.gpu.id || !gpuFitsSystem(g, m_base.system))
                continue;
            options.push_back(makeChange("gpu", "the " + g.name, {"--gpu", g.id}, {"gpu"},
                                         [g](Scenario& s) { s.gpu = g; }));
        }
        if (options.empty())
            return notApplicable("gpu", "another GPU",
                                 "no other shipped GPU fits " + m_base.system.name + " (" +
                                     systemGpuRule(m_base.system) + ")");
        pick("gpu", options);
    }

    // --- combinations ---------------------------------------------------------------------

    std::vector<Suggestion> combinations(const std::vector<Suggestion>& singles) {
        std::vector<const Suggestion*> pool;
        std::set<std::string> kinds;
        for (const Suggestion& s : singles)
            if (static_cast<int>(pool.size()) < m_options.combination_pool &&
                kinds.insert(s.kind).second)
                pool.push_back(&s);
        std::vector<Suggestion> out;
        auto tryParts = [&](std::vector<Change> parts, double best_single) {
            // Files nothing apart: a combination that does not fit is not news.
            if (auto c = evaluate(parts, false); c && c->speedup > best_single * (1 + kNoEffect))
                out.push_back(std::move(*c));
        };
        const std::size_t n = pool.size();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) {
                const double best2 = std::max(pool[i]->speedup, pool[j]->speedup);
                tryParts({pool[i]->parts[0], pool[j]->parts[0]}, best2);
                for (std::size_t k = j + 1; k < n; ++k)
                    tryParts({pool[i]->parts[0], pool[j]->parts[0], pool[k]->parts[0]},
                             std::max(best2, pool[k]->speedup));
            }
        sortBySpeedup(out);
        if (static_cast<int>(out.size()) > m_options.max_combinations)
            out.resize(static_cast<std::size_t>(m_options.max_combinations));
        return out;
    }

    static void sortBySpeedup(std::vector<Suggestion>& v) {
        std::stable_sort(v.begin(), v.end(), [](const Suggestion& a, const Suggestion& b) {
            return a.speedup > b.speedup;
        });
    }

    const Scenario& m_base;
    const AdviceOptions& m_options;
    Prediction m_full;
    std::vector<std::string> m_kinds;
    std::vector<Suggestion> m_suggestions;
    std::vector<Suggestion> m_not_suggested;
};

} // namespace

Advice advise(const Scenario& scenario, const AdviceOptions& options) {
    validateScenario(scenario);
    return Advisor(scenario, options).run();
}

Scenario applySuggestion(const Scenario& scenario, const Suggestion& suggestion) {
    Scenario s = scenario;
    for (const Change& c : suggestion.parts)
        c.apply(s);
    return s;
}

} // namespace iterscope
