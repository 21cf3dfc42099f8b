// Hybrid parallelism, Krizhevsky's "one weird trick" (arXiv:1404.5997, 2014): convolutions
// data-parallel over every GPU; each fully connected classifier layer split by output
// features over the G GPUs of a node. Every GPU computes its 1/G of the layer for the G x B
// samples of the node, which means gathering the node's input activations first and
// reduce-scattering their gradients back afterwards; the split layers' weights never leave
// the node, except that the same slice on every node is all-reduced across nodes.
#include "model/communication_model.h"
#include "model/iteration.h"
#include "model/parallel_exchange.h"
#include "model/timeline.h"

#include <algorithm>
#include <cmath>

namespace iterscope {

bool splitInHybrid(const Layer& layer) {
    return layer.kind == LayerKind::FullyConnected && layer.fc.flatten;
}

namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

// The layer as each of `g` GPUs runs it: ceil(out/g) of its output features.
struct SplitLayer {
    Layer layer;
    LayerCost cost;
};

SplitLayer splitLayer(const Layer& layer, const LayerCost& cost, int g) {
    SplitLayer out{layer, cost};
    const int64_t features = std::max<int64_t>(1, (layer.fc.out_features + g - 1) / g);
    const double share = static_cast<double>(features) /
                         static_cast<double>(std::max<int64_t>(layer.fc.out_features, 1));
    const auto scaled = [share](int64_t v) {
        return static_cast<int64_t>(std::llround(static_cast<double>(v) * share));
    };
    out.layer.fc.out_features = features;
    out.cost.params = scaled(cost.params);
    out.cost.macs = scaled(cost.macs);
    out.cost.fwd_flops = scaled(cost.fwd_flops);
    out.cost.bwd_data_flops = scaled(cost.bwd_data_flops);
    out.cost.bwd_weight_flops = scaled(cost.bwd_weight_flops);
    out.cost.output_elems = scaled(cost.output_elems);
    if (!out.cost.output.empty())
        out.cost.output.back() = features;
    return out;
}

// The same collective over G GPUs of one node, or over one GPU of each node.
ExchangeModel nodeExchange(const Scenario& s) {
    return exchangeModel(s, 1, s.gpus_per_node);
}

// The split layers' slices across nodes: G such all-reduces run at once, one per slice,
// and share the node's NICs.
ExchangeModel sliceExchange(const Scenario& s) {
    ExchangeModel model = exchangeModel(s, s.nodes, 1);
    const int g = s.gpus_per_node;
    const double sharing =
        static_cast<double>(g) / std::max(1, std::min(s.system.nics_per_node, g));
    for (int i = 0; i < model.candidate_count; ++i)
        model.candidates[static_cast<std::size_t>(i)].cost.ms_per_byte *= sharing;
    return model;
}

} // namespace

HybridExchange hybridForwardExchange(const Scenario& s) {
    HybridExchange x;
    const int g = s.gpus_per_node;
    if (g <= 1)
        return x;
    const Network& net = s.network->network;
    const NetworkAnalysis& a = s.network->analysis;
    const double elem = activationBytes(s.precision);
    const double b = static_cast<double>(s.batch_per_gpu);
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        if (splitInHybrid(net.layers[i]))
            x.gathered_bytes += static_cast<int64_t>(
                (g - 1) * b * static_cast<double>(a.layers[i].input_elems) * elem);
    // A ring all-gather passes on, at each of its G-1 steps, the share it received: what a
    // GPU sends equals what it gathers.
    x.sent_bytes = x.gathered_bytes;
    return x;
}

MemoryInputs hybridMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts) {
    MemoryInputs in = dataMemoryInputs(s, facts);
    const int g = s.gpus_per_node;
    if (g <= 1)
        return in;
    const Network& net = s.network->network;
    const NetworkAnalysis& a = s.network->analysis;
    double split_params = 0, gathered_inputs = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        if (splitInHybrid(net.layers[i])) {
            split_params += static_cast<double>(a.layers[i].params);
            gathered_inputs += static_cast<double>(a.layers[i].input_elems);
        }
    const double params = static_cast<double>(a.total_params);
    if (params > 0) {
        const double kept = (params - split_params + split_params / g) / params;
        in.weights *= kept;
        in.gradients *= kept;
        in.optimizer *= kept;
    }
    // Each split layer keeps, for its weight gradient, the inputs of the node's G x B
    // samples; its output slice holds as many elements as one GPU's full output.
    in.activations_per_sample += (g - 1) * gathered_inputs * activationBytes(s.precision);
    return in;
}

Prediction predictHybrid(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    const int g = s.gpus_per_node;
    if (g <= 1) {
        // One GPU per node splits nothing: data parallelism exactly.
        return predictData(s, table, detail);
    }
    const ComputeRates& rates = table.rates;
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    const SoftwareProfile& sw = s.software;
    const std::size_t n_layers = net.layers.size();
    const int64_t batch = s.batch_per_gpu;
    const double elem = activationBytes(s.precision);
    const int64_t grad_elem = detail::gradientElementBytes(s);

    Prediction p;
    p.layers.resize(n_layers);
    const bool full = detail == PredictDetail::Full;
    if (full)
        p.timeline.reserve(3 * n_layers + 16);
    const detail::TimelineSink timeline{full ? &p.timeline : nullptr};
    // Activation exchanges block the compute stream; they get a row of their own beside
    // the gradient buckets, which may run at the same time.
    constexpr int kActivationLane = 1;

    double t = detail::beginIteration(s, rates, batch, p, timeline);

    // Split layers run on the node's G x B samples with 1/G of the features.
    std::vector<LayerPasses> passes = table.passes;
    std::vector<char> split(n_layers, 0);
    double split_params = 0;
    std::size_t last_split = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
        if (!splitInHybrid(net.layers[i]))
            continue;
        split[i] = 1;
        last_split = i;
        const Layer& layer = net.layers[i];
        const Dims& in = layer.inputs.empty() ? net.input : analysis.layers[layer.inputs[0]].output;
        const SplitLayer part = splitLayer(layer, analysis.layers[i], g);
        passes[i] = layerPasses(part.layer, part.cost, in, batch * g, rates);
        split_params += static_cast<double>(part.cost.params);
    }
    const ExchangeModel node = nodeExchange(s);
    const double gb = static_cast<double>(g) * static_cast<double>(batch);
    double activation_sent = 0;

    // The node's G x B samples of one tensor, all-gathered before the compute that needs it.
    const auto gatherActivations = [&](double elems_per_sample, std::size_t layer) {
        const double bytes = gb * elems_per_sample * elem;
        const double d = collectiveMs(node, Collective::AllGather, bytes);
        timeline.add(Stream::Communication, EventKind::ActivationGather, t, d,
                     static_cast<long>(layer), -1, kActivationLane);
        t += d;
        p.communication_ms += d;
        p.exposed_communication_ms += d;
        activation_sent += collectiveSentBytes(Collective::AllGather, bytes, g);
    };
    std::vector<double> backward_end(n_layers, 0.0);
    std::vector<int64_t> params(n_layers, 0);
    int trainable_layers = 0;
    for (std::size_t i = 0; i < n_layers; ++i) {
        const LayerCost& cost = analysis.layers[i];
        params[i] = split[i] ? 0 : cost.params; // the buckets carry the convolutions only
        if (cost.params > 0)
            ++trainable_layers;
        LayerTiming& lt = p.layers[i];
        detail::setPassTimes(lt, i, passes[i]);
        if (split[i]) // each GPU needs every sample's input to its slice
            gatherActivations(static_cast<double>(cost.input_elems), i);
        if (lt.forward_ms > 0) {
            timeline.add(Stream::Compute, EventKind::Forward, t, lt.forward_ms,
                         static_cast<long>(i));
            t += lt.forward_ms;
        }
        p.forward_ms += lt.forward_ms;
        if (i == last_split) // the loss needs whole rows of the last split layer's output
            gatherActivations(static_cast<double>(cost.output_elems), i);
    }
    double slices_ready = 0;
    for (std::size_t i = n_layers; i-- > 0;) {
        const double d = p.layers[i].backward_ms;
        if (d > 0) {
            timeline.add(Stream::Compute, EventKind::Backward, t, d, static_cast<long>(i));
            t += d;
        }
        p.backward_ms += d;
        if (split[i]) {
            slices_ready = t;
            if (analysis.layers[i].needs_data_grad) {
                const double bytes =
                    gb * static_cast<double>(analysis.layers[i].input_elems) * elem;
                const double x = collectiveMs(node, Collective::ReduceScatter, bytes);
                timeline.add(Stream::Communication, EventKind::GradientScatter, t, x,
                             static_cast<long>(i), -1, kActivationLane);
                t += x;
                p.communication_ms += x;
                p.exposed_communication_ms += x;
                activation_sent += collectiveSentBytes(Collective::ReduceScatter, bytes, g);
            }
        }
        backward_end[i] = t;
    }
    const double backward_end_ms = t;

    // Gradients: the split layers' slices across nodes (ready once the last split layer's
    // backward is done), then the convolutions' buckets over every GPU.
    double stream_free = 0, comm_end = backward_end_ms;
    if (s.nodes > 1 && split_params > 0) {
        const ExchangeModel slices = sliceExchange(s);
        const double bytes = split_params * static_cast<double>(grad_elem);
        const double d = exchangeMs(slices, bytes);
        timeline.add(Stream::Communication, EventKind::SliceAllReduce, slices_ready, d);
        p.communication_ms += d;
        p.exchanged_bytes_per_gpu +=
            static_cast<int64_t>(collectiveSentBytes(Collective::AllReduce, bytes, s.nodes));
        stream_free = slices_ready + d;
        comm_end = std::max(comm_end, stream_free);
    }
    const ExchangeModel exchange = exchangeModel(s);
    if (exchange.active) {
        const auto bucket_bytes = static_cast<int64_t>(std::max(1.0, s.bucket_mb * kBytesPerMb));
        std::vector<Bucket> buckets =
            makeBuckets(p.layers, backward_end, bucket_bytes, grad_elem, params);
        const bool overlap = s.overlap && sw.overlap_communication;
        comm_end = std::max(
            comm_end, scheduleExchange(buckets, exchange, overlap, backward_end_ms, stream_free));
        const EventKind kind =
            s.sync == SyncStrategy::AllreduceCopy ? EventKind::CopyAllReduce : EventKind::AllReduce;
        int64_t largest = -1;
        for (std::size_t b = 0; b < buckets.size(); ++b) {
            const Bucket& bk = buckets[b];
            p.communication_ms += bk.duration_ms;
            p.exchanged_bytes_per_gpu += static_cast<int64_t>(
                exchangeSentBytes(exchange, static_cast<double>(bk.bytes), bk.algorithm));
            timeline.add(Stream::Communication, kind, bk.start_ms, bk.duration_ms, -1,
                         static_cast<int>(b));
            if (s.sync == SyncStrategy::AllreduceNccl && bk.bytes > largest) {
                largest = bk.bytes;
                p.allreduce_algorithm = allreduceAlgorithmName(bk.algorithm);
            }
        }
    }
    p.exposed_communication_ms += std::max(0.0, comm_end - backward_end_ms);
    p.exchanged_bytes_per_gpu += static_cast<int64_t>(activation_sent);

    // Each GPU updates the convolutions and its slices.
    const double own_params = static_cast<double>(analysis.total_params);
    double split_total = 0;
    for (std::size_t i = 0; i < n_layers; ++i)
        if (split[i])
            split_total += static_cast<double>(analysis.layers[i].params);
    p.update_ms = detail::optimizerStepMs(s, rates, own_params - split_total + split_params,
                                          table.param_tensors, trainable_layers);
    const double update_start = std::max(backward_end_ms, comm_end);
    if (p.update_ms > 0)
        timeline.add(Stream::Update, EventKind::Update, update_start, p.update_ms);
    const double gpu_end =
        std::max(update_start + p.update_ms, sw.overlap_input ? p.input_ms : 0.0);
    detail::endIteration(s, p, gpu_end, s.totalGpus() > 1, timeline);

    detail::setMemory(p, estimateMemory(s, table.memory));
    p.groups = {{"every GPU", s.totalGpus()}};
    if (!full)
        p.layers = {};
    return p;
}

} // namespace iterscope
