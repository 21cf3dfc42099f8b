// predict(): one iteration of data-parallel SGD on one representative GPU (the other
// parallel strategies live in parallel_*.cpp and are built from the pieces below).
// Streams: input (H2D copy of the next minibatch), compute (forward, then backward in
// reverse layer order), communication (gradient buckets), update (optimizer step).
#include "model/model.h"

#include "model/communication_model.h"
#include "model/compute_model.h"
#include "model/iteration.h"
#include "model/memory_model.h"
#include "model/timeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace iterscope {

namespace {

constexpr double kBytesPerMsPerGbps = 1e6;
constexpr double kMsPerUs = 1e-3;
constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr double kPcie3X16Gbps = 15.75; // per direction, before the host's own limits
constexpr int64_t kFp32Bytes = 4;

double hostLinkGbps(const Scenario& s) {
    if (s.gpu.cpu_link == "nvlink-c2c" && s.gpu.cpu_link_gbps > 0)
        return s.gpu.cpu_link_gbps;
    if (s.system.pcie_gbps > 0)
        return s.system.pcie_gbps;
    return kPcie3X16Gbps * std::pow(2.0, std::clamp(s.gpu.pcie_gen, 1, 6) - 3) *
           std::clamp(s.gpu.pcie_lanes, 1, 16) / 16.0;
}

// Parameter tensors an unfused optimizer visits: a weight and, where there is one, a bias;
// batch norm's scale and shift.
double paramTensors(const Network& net, const NetworkAnalysis& analysis) {
    double tensors = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        if (analysis.layers[i].params <= 0)
            continue;
        const Layer& l = net.layers[i];
        switch (l.kind) {
        case LayerKind::Convolution:
        case LayerKind::Deconvolution:
            tensors += l.conv.bias ? 2 : 1;
            break;
        case LayerKind::FullyConnected:
            tensors += l.fc.bias ? 2 : 1;
            break;
        case LayerKind::BatchNorm:
            tensors += 2;
            break;
        case LayerKind::Scale:
            tensors += l.scale.bias ? 2 : 1;
            break;
        default:
            tensors += 1;
        }
    }
    return tensors;
}

// Expected maximum of n standard normal variables (Blom's approximation of the order
// statistic, within 1% of the exact value for n >= 2): how far the slowest of n GPUs with
// independent run-to-run spread lags their mean, in standard deviations.
double expectedMaxOfNormals(int n) {
    if (n <= 1)
        return 0;
    const double p = (n - 0.375) / (n + 0.25);
    // Inverse of the standard normal CDF for p in (0.5, 1): Abramowitz and Stegun 26.2.23,
    // absolute error below 4.5e-4.
    const double t = std::sqrt(-2.0 * std::log(1.0 - p));
    return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                   (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

// Runs on real data: the time the node's host cores take to decode and augment one
// minibatch for each of its GPUs. The loader runs `loader_workers_per_gpu` processes per
// GPU when the software fixes it (on at most every hardware thread), else one per core.
double hostInputMs(const Scenario& s) {
    const SoftwareProfile& sw = s.software;
    const SystemProfile& sys = s.system;
    if (!(sw.host_images_per_core_s > 0) || sys.cpu_cores_per_node <= 0)
        return 0;
    const double threads = std::max(sys.cpu_threads_per_node, sys.cpu_cores_per_node);
    // Loader processes beyond the cores run on their hyperthreads, which the decoding keeps
    // about as busy.
    const double workers = sw.loader_workers_per_gpu > 0
                               ? std::min(sw.loader_workers_per_gpu * s.gpus_per_node, threads)
                               : static_cast<double>(sys.cpu_cores_per_node);
    const double node_images_per_ms = workers * sw.host_images_per_core_s / 1000.0;
    // A learned augmentation policy applies a few more image operations to every image at
    // its output size: extra host time in proportion to its pixels.
    double per_image = 1.0;
    if (s.augmentationInEffect() != Augmentation::Standard) {
        const Dims& in = s.network->network.input;
        const double pixels = in.size() == 3 ? static_cast<double>(in[1] * in[2]) : 224.0 * 224.0;
        per_image += sw.policy_augment_cost * pixels / (224.0 * 224.0);
    }
    return per_image * static_cast<double>(s.batch_per_gpu) * s.gpus_per_node / node_images_per_ms;
}

using Timeline = detail::TimelineSink;

EventKind exchangeKind(SyncStrategy sync) {
    switch (sync) {
    case SyncStrategy::AllreduceNccl:
        return EventKind::AllReduce;
    case SyncStrategy::AllreduceCopy:
        return EventKind::CopyAllReduce;
    default:
        return EventKind::PushPull;
    }
}

// The rest of predict() once the scenario is valid and the table is its own.
Prediction predictChecked(const Scenario& s, const LayerPassTable& table, PredictDetail detail);

} // namespace

namespace {
struct NetworkFacts {
    NetworkMemoryFacts memory;
    double param_tensors = 0;
};
// Facts of the network alone. A sweep, a scaling curve or a slider drag makes many tables of
// one network, so each thread keeps the last network's; the weak pointer makes sure it is
// still that very network, not another one at the same address.
const NetworkFacts& networkFacts(const std::shared_ptr<const AnalyzedNetwork>& network) {
    thread_local std::weak_ptr<const AnalyzedNetwork> last;
    thread_local NetworkFacts facts;
    const bool same = !last.expired() && !last.owner_before(network) && !network.owner_before(last);
    if (!same) {
        facts.memory = networkMemoryFacts(network->network, network->analysis);
        facts.param_tensors = paramTensors(network->network, network->analysis);
        last = network;
    }
    return facts;
}
} // namespace

LayerPassTable layerPassTable(const Scenario& s) {
    validateScenario(s);
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    LayerPassTable table;
    table.network = s.network.get();
    table.batch = s.kernelBatch();
    table.rates = computeRates(s.gpu, s.software, s.precision, s.nhwc());
    table.passes.resize(net.layers.size());
    const std::vector<LayerFusion> fusions = planFusions(net, analysis, s.software, s.nhwc());
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        const Dims& in = layer.inputs.empty() ? net.input : analysis.layers[layer.inputs[0]].output;
        table.passes[i] =
            layerPasses(layer, analysis.layers[i], in, table.batch, table.rates, fusions[i]);
    }
    const NetworkFacts& facts = networkFacts(s.network);
    table.memory = facts.memory;
    table.param_tensors = facts.param_tensors;
    return table;
}

Prediction predict(const Scenario& s, PredictDetail detail) {
    return predictChecked(s, layerPassTable(s), detail); // the table's making validated s
}

Prediction predict(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    validateScenario(s);
    if (table.network != s.network.get() || table.batch != s.kernelBatch() ||
        !(table.rates == computeRates(s.gpu, s.software, s.precision, s.nhwc())) ||
        table.passes.size() != s.network->network.layers.size())
        throw std::invalid_argument("predict: the layer pass table was made for another "
                                    "network, batch, GPU, software or precision");
    return predictChecked(s, table, detail);
}

double singleGpuImagesPerSecond(const Scenario& s, const LayerPassTable* table) {
    Scenario one = s;
    one.nodes = 1;
    one.gpus_per_node = 1;
    one.parallel = ParallelStrategy::Data;
    one.ps_count = 0;
    one.sync = SyncStrategy::None;
    LayerPassTable own;
    if (!table || table->batch != one.batch_per_gpu || table->network != one.network.get()) {
        own = layerPassTable(one);
        table = &own;
    }
    double best = predict(one, *table, PredictDetail::Totals).images_per_second;
    if (s.sync == SyncStrategy::PsCpu || s.sync == SyncStrategy::PsAsync ||
        s.sync == SyncStrategy::DistributedReplicated) {
        one.sync = s.sync;
        best = std::max(best, predict(one, *table, PredictDetail::Totals).images_per_second);
    }
    return best;
}

namespace detail {

double paramTensors(const Network& net, const NetworkAnalysis& analysis) {
    return iterscope::paramTensors(net, analysis);
}

double layerParamTensors(const Layer& layer, const LayerCost& cost) {
    if (cost.params <= 0)
        return 0;
    switch (layer.kind) {
    case LayerKind::Convolution:
    case LayerKind::Deconvolution:
        return layer.conv.bias ? 2 : 1;
    case LayerKind::FullyConnected:
        return layer.fc.bias ? 2 : 1;
    case LayerKind::BatchNorm:
        return 2;
    case LayerKind::Scale:
        return layer.scale.bias ? 2 : 1;
    default:
        return 1;
    }
}

double beginIteration(const Scenario& s, const ComputeRates& rates, int64_t batch, Prediction& p,
                      const TimelineSink& timeline) {
    const Network& net = s.network->network;
    const SoftwareProfile& sw = s.software;
    // Input. Real images: the H2D copy of the minibatch (of the next one, when overlapped)
    // and any GPU work of the input pipeline (DALI); synthetic ones are made on the GPU.
    const bool real = s.realData();
    int64_t input_elems = 1;
    for (int64_t d : net.input)
        input_elems *= std::max<int64_t>(d, 1);
    const double input_bytes = static_cast<double>(batch) * static_cast<double>(input_elems) *
                               static_cast<double>(rates.elem_bytes);
    p.input_ms = real ? input_bytes / (hostLinkGbps(s) * kBytesPerMsPerGbps) : 0.0;
    double t = sw.overlap_input ? 0.0 : p.input_ms;
    if (p.input_ms > 0)
        timeline.add(Stream::Input, EventKind::InputCopy, 0, p.input_ms);
    const double pipeline_ms =
        real ? sw.input_gpu_us_per_image * kMsPerUs * static_cast<double>(batch) : 0.0;
    if (pipeline_ms > 0) {
        timeline.add(Stream::Compute, EventKind::InputPipeline, t, pipeline_ms);
        t += pipeline_ms;
    }
    p.host_input_ms = real ? hostInputMs(s) : 0.0;
    if (p.host_input_ms > 0)
        timeline.add(Stream::Input, EventKind::HostInput, 0, p.host_input_ms);

    return t;
}

double optimizerStepMs(const Scenario& s, const ComputeRates& rates, double params, double tensors,
                       int trainable_layers) {
    // Optimizer step on the GPU over its share of the parameters: read parameter, gradient
    // and state, write parameter and state (and the FP16 copy under amp). Unfused
    // optimizers launch a few kernels per parameter tensor; their launches hide behind
    // backward unless the host waits for the GPU first (the AMP loss scaler's check).
    const SoftwareProfile& sw = s.software;
    if (!(params > 0))
        return 0;
    const double bytes_per_param = 3.0 * kFp32Bytes + 2.0 * sw.optimizer_state_bytes_per_param +
                                   (halfPrecision(s.precision) ? 2.0 : 0.0);
    const double launches = sw.optimizer_ops_per_tensor > 0 ? sw.optimizer_ops_per_tensor * tensors
                                                            : static_cast<double>(trainable_layers);
    const double gpu_ms =
        params * bytes_per_param / rates.bytes_per_ms + launches * rates.kernel_gap_ms;
    const double host_ms = launches * rates.host_overhead_ms;
    const bool host_waits = s.precision == Precision::AMP && sw.amp_host_sync;
    return host_waits || sw.optimizer_ops_per_tensor <= 0 ? std::max(gpu_ms, host_ms) : gpu_ms;
}

double replicaRefreshMs(const ComputeRates& rates, double params, double tensors) {
    // One assignment kernel per tensor, reading the copied values and writing the replica.
    const double gpu_ms =
        params * 2.0 * kFp32Bytes / rates.bytes_per_ms + tensors * rates.kernel_gap_ms;
    return std::max(gpu_ms, tensors * rates.host_overhead_ms);
}

void endIteration(const Scenario& s, Prediction& p, double gpu_iteration_ms, bool synchronous,
                  const TimelineSink& timeline) {
    const SoftwareProfile& sw = s.software;
    if (synchronous && s.totalGpus() > 1 && sw.sync_jitter > 0) {
        p.straggler_ms = gpu_iteration_ms * sw.sync_jitter * expectedMaxOfNormals(s.totalGpus());
        timeline.add(Stream::Compute, EventKind::StragglerWait, gpu_iteration_ms, p.straggler_ms);
        gpu_iteration_ms += p.straggler_ms;
    }
    // The host's decoding and the GPU's step are a producer and a consumer with variable
    // service times: the pair delivers less than the slower of the two alone, which a soft
    // maximum describes (exponent 3: within 26% of the slower when both are equal, within 1%
    // when one is a third of the other).
    constexpr double kPipelineExponent = 3;
    p.iteration_ms = p.host_input_ms > 0
                         ? std::pow(std::pow(gpu_iteration_ms, kPipelineExponent) +
                                        std::pow(p.host_input_ms, kPipelineExponent),
                                    1.0 / kPipelineExponent)
                         : gpu_iteration_ms;
    p.input_wait_ms = p.iteration_ms - gpu_iteration_ms;
    if (p.input_wait_ms > 0)
        timeline.add(Stream::Compute, EventKind::InputWait, gpu_iteration_ms, p.input_wait_ms);
    p.input_bound = p.input_wait_ms > 0.02 * p.iteration_ms;
    p.images_per_second = p.iteration_ms > 0 ? static_cast<double>(s.batch_per_gpu) *
                                                   s.totalGpus() * 1000.0 / p.iteration_ms
                                             : 0;
}

void setMemory(Prediction& p, const MemoryEstimate& mem) {
    p.weights_bytes = mem.weights_bytes;
    p.gradients_bytes = mem.gradients_bytes;
    p.optimizer_bytes = mem.optimizer_bytes;
    p.activations_bytes = mem.activations_bytes;
    p.workspace_bytes = mem.workspace_bytes;
    p.memory_per_gpu_bytes = mem.total_bytes;
    p.fits_in_memory = mem.fits;
    p.max_batch_that_fits = mem.max_batch_that_fits;
}

int64_t gradientElementBytes(const Scenario& s) {
    return halfPrecision(s.precision) ? s.software.gradient_bytes_amp : kFp32Bytes;
}

} // namespace detail

namespace {

// A PCIe card in a system whose GPUs are joined by an NVLink mesh or switch (an RTX 3090 in
// a DGX-1, asked as a what-if): the card cannot use links it does not have, and a card's
// NVLink connector takes a bridge to one other card, not a baseboard's wiring. Its GPUs talk
// over the system's PCIe tree, never over an NVLink of zero time (scenarioWarnings says so).
bool gpuLacksTheSystemsNvlink(const Scenario& s) {
    return s.system.intra_node != "pcie" &&
           (s.gpu.nvlink_links <= 0 || s.gpu.form_factor == "pcie");
}

SystemProfile overItsPcie(SystemProfile system) {
    system.intra_node = "pcie";
    system.nvlink_pairs.clear();
    system.nvswitch_gbps_per_gpu = 0;
    system.nvlink_sharp = false;
    return system;
}

// How many of the scenario's nodes one NVLink domain joins (GB200 NVL72: up to 18 trays):
// the largest divisor of the node count within the domain, as a scheduler fills racks
// evenly. 1 where the domain is a node. A hybrid run splits its FC layers across a node's
// GPUs, and a pipeline maps stages onto nodes: a domain keeps their meaning only where
// its GPU count still divides as the scenario's node did. Only NCCL crosses the domain's
// NVLink between trays (NVIDIA's multi-node NVLink is a NCCL transport); parameter servers
// live in the hosts' memory, and each tray keeps its own host and OS, so their traffic
// still takes the NICs.
int nodesPerDomain(const Scenario& s) {
    const int domain = std::min(s.system.nvlink_domain_nodes, s.nodes);
    if (domain <= 1 || s.parallel == ParallelStrategy::Hybrid)
        return 1;
    if (s.sync != SyncStrategy::AllreduceNccl && s.sync != SyncStrategy::None)
        return 1;
    int per = domain;
    while (s.nodes % per != 0)
        --per;
    if (s.parallel == ParallelStrategy::Pipeline) {
        const int p = s.pipeline_stages;
        const int g = s.gpus_per_node * per;
        if (p <= g ? g % p != 0 : p % g != 0)
            return 1;
    }
    return per;
}

// Nodes of one NVLink domain as one node of their GPUs, NICs, CPUs and host links: inside
// it every GPU reaches every other through the NVLink switches, and only traffic between
// domains takes the network.
Scenario oneNodePerDomain(const Scenario& s, int per) {
    Scenario d = s;
    d.nodes = s.nodes / per;
    d.gpus_per_node = s.gpus_per_node * per;
    SystemProfile& y = d.system;
    y.gpus_per_node *= per;
    y.max_nodes = std::max(1, y.max_nodes / per);
    y.nvlink_domain_nodes = 1;
    y.nics_per_node *= per;
    y.cpu_cores_per_node *= per;
    y.cpu_threads_per_node *= per;
    y.cpu_sockets *= per;
    y.host_pcie_gbps *= per;
    y.cpu_memory_bandwidth_gbps *= per;
    y.host_watts_per_node *= per;
    return d;
}

Prediction predictChecked(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    if (gpuLacksTheSystemsNvlink(s)) {
        Scenario pcie = s;
        pcie.system = overItsPcie(s.system);
        return predictChecked(pcie, table, detail);
    }
    if (const int per = nodesPerDomain(s); per > 1)
        return predictChecked(oneNodePerDomain(s, per), table, detail);
    switch (s.parallel) {
    case ParallelStrategy::Data:
        break;
    case ParallelStrategy::Hybrid:
        return predictHybrid(s, table, detail);
    case ParallelStrategy::Pipeline:
        return predictPipeline(s, table, detail);
    case ParallelStrategy::Zero1:
    case ParallelStrategy::Zero2:
    case ParallelStrategy::Zero3:
        return predictZero(s, table, detail);
    }
    return predictData(s, table, detail);
}

} // namespace

Prediction predictData(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    const ComputeRates& rates = table.rates;
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    const SoftwareProfile& sw = s.software;
    const std::size_t n_layers = net.layers.size();
    const int64_t batch = s.batch_per_gpu;

    Prediction p;
    p.layers.resize(n_layers);
    const bool full = detail == PredictDetail::Full;
    if (full)
        p.timeline.reserve(2 * n_layers + 8);
    const Timeline timeline{full ? &p.timeline : nullptr};

    double t = detail::beginIteration(s, rates, batch, p, timeline);

    // Forward, then backward in reverse order.
    const std::vector<LayerPasses>& passes = table.passes;
    std::vector<double> backward_end(n_layers, 0.0);
    std::vector<int64_t> params(n_layers, 0);
    int trainable_layers = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
        const LayerCost& cost = analysis.layers[i];
        params[i] = cost.params;
        if (cost.params > 0)
            ++trainable_layers;
        LayerTiming& lt = p.layers[i];
        detail::setPassTimes(lt, i, passes[i]);
        if (lt.forward_ms > 0) {
            timeline.add(Stream::Compute, EventKind::Forward, t, lt.forward_ms,
                         static_cast<long>(i));
            t += lt.forward_ms;
        }
        p.forward_ms += lt.forward_ms;
    }
    for (std::size_t i = n_layers; i-- > 0;) {
        const double d = p.layers[i].backward_ms;
        if (d > 0) {
            timeline.add(Stream::Compute, EventKind::Backward, t, d, static_cast<long>(i));
            t += d;
        }
        backward_end[i] = t;
        p.backward_ms += d;
    }
    const double backward_end_ms = t;

    // Gradient exchange in buckets, overlapped with the rest of backward.
    const ExchangeModel exchange = exchangeModel(s);
    double comm_end = backward_end_ms;
    int64_t total_gradient_bytes = 0;
    std::vector<int64_t> bucket_bytes_list;
    if (exchange.active) {
        const int64_t grad_elem = halfPrecision(s.precision) ? sw.gradient_bytes_amp : kFp32Bytes;
        const auto bucket_bytes = static_cast<int64_t>(std::max(1.0, s.bucket_mb * kBytesPerMb));
        std::vector<Bucket> buckets =
            makeBuckets(p.layers, backward_end, bucket_bytes, grad_elem, params);
        const bool overlap = s.overlap && sw.overlap_communication;
        comm_end = scheduleExchange(buckets, exchange, overlap, backward_end_ms);
        int64_t largest = -1;
        const EventKind kind = exchangeKind(s.sync);
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            const Bucket& bk = buckets[b];
            total_gradient_bytes += bk.bytes;
            if (!exchange.barrier)
                bucket_bytes_list.push_back(bk.bytes);
            p.exchanged_bytes_per_gpu += static_cast<int64_t>(
                exchangeSentBytes(exchange, static_cast<double>(bk.bytes), bk.algorithm));
            p.communication_ms += bk.duration_ms;
            timeline.add(Stream::Communication, kind, bk.start_ms, bk.duration_ms, -1,
                         static_cast<int>(b));
            if (s.sync == SyncStrategy::AllreduceNccl && bk.bytes > largest) {
                largest = bk.bytes;
                p.allreduce_algorithm = allreduceAlgorithmName(bk.algorithm);
            }
        }
    }
    p.exposed_communication_ms = std::max(0.0, comm_end - backward_end_ms);

    // The optimizer step on the GPU over its share of the parameters.
    const double share = exchange.active ? exchange.gpu_update_share : 1.0;
    if (share > 0 && analysis.total_params > 0)
        p.update_ms =
            detail::optimizerStepMs(s, rates, share * static_cast<double>(analysis.total_params),
                                    table.param_tensors, trainable_layers);
    if (exchange.active && exchange.broadcast_after_update && share > 0 && share < 1) {
        // ps-gpu: before its update an owner sums the N gradients of its shard that reached
        // it (TensorFlow aggregates on the variable's device with AddN): N reads and one
        // write of the shard. With the broadcast below, this keeps the sharded update from
        // beating one GPU alone.
        const double shard_bytes = share * static_cast<double>(analysis.total_params) * kFp32Bytes;
        p.update_ms += (1.0 / share + 1.0) * shard_bytes / rates.bytes_per_ms;
    }
    if (exchange.active && exchange.refresh_replicas && analysis.total_params > 0)
        p.update_ms = detail::replicaRefreshMs(rates, static_cast<double>(analysis.total_params),
                                               table.param_tensors);
    const double update_start = std::max(backward_end_ms, comm_end);
    if (p.update_ms > 0)
        timeline.add(Stream::Update, EventKind::Update, update_start, p.update_ms);
    double step_end = update_start + p.update_ms;
    if (exchange.active && exchange.broadcast_after_update) {
        // ps-gpu: every owner sends its updated shard to every GPU before the next forward
        // pass can read it. This is what keeps a sharded update from scaling past linear:
        // each GPU receives (N-1)/N of the parameters over its links, slower than the
        // update of the shards it no longer does.
        const double bytes = static_cast<double>(total_gradient_bytes);
        const double d = exchange.after_update.at(bytes);
        timeline.add(Stream::Communication, EventKind::ParamBroadcast, step_end, d);
        p.communication_ms += d;
        p.exposed_communication_ms += d;
        p.exchanged_bytes_per_gpu +=
            static_cast<int64_t>(exchange.after_update_sent_per_byte * bytes);
        step_end += d;
    }
    double gpu_iteration_ms = std::max(step_end, sw.overlap_input ? p.input_ms : 0.0);
    if (exchange.active && !exchange.barrier && s.totalGpus() > 1) {
        // ps-async: each worker runs at its own pace, unless the servers cannot take in one
        // step of every worker in that time; then every worker waits its share of theirs.
        double server_ms = 0;
        for (const int64_t bytes : bucket_bytes_list)
            server_ms += exchange.server_round.at(static_cast<double>(bytes));
        if (server_ms > gpu_iteration_ms) {
            timeline.add(Stream::Compute, EventKind::ServerWait, gpu_iteration_ms,
                         server_ms - gpu_iteration_ms);
            gpu_iteration_ms = server_ms;
        }
        // Between a worker's read of the parameters and the update with its gradient, the
        // other workers' gradients arrive at the same rate as its own: one step of each.
        p.staleness = s.totalGpus() - 1;
    }
    detail::endIteration(s, p, gpu_iteration_ms, exchange.active && exchange.barrier, timeline);

    detail::setMemory(p, estimateMemory(s, table.memory));
    p.groups = {{"every GPU", s.totalGpus()}};
    if (!full)
        p.layers = {};
    return p;
}

} // namespace iterscope
