// Pipeline parallelism: the network cut into P stages of equal predicted time on
// consecutive GPUs (GPipe, Huang et al. 2019; PipeDream's 1F1B, Narayanan et al. 2019 and
// its flushing form, 2021). A replica of P GPUs trains on batch_per_gpu x P samples an
// iteration in M micro-batches; stages hand activations forward and gradients backward
// over the real link between their GPUs; with more GPUs than P, the replicas are data
// parallel and each stage all-reduces its gradients with the same stage of the others.
#include "model/communication_model.h"
#include "model/iteration.h"
#include "model/pipeline_schedule.h"

#include <algorithm>
#include <string>

namespace iterscope {

namespace {

constexpr double kBytesPerMsPerGbps = 1e6;
constexpr double kMsPerUs = 1e-3;
constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr double kFp32Bytes = 4;
constexpr double kFp16Bytes = 2;

struct Link {
    double latency_ms = 0;
    double gbps = 0;
    double ms(double bytes) const {
        return bytes > 0 ? latency_ms + bytes / (gbps * kBytesPerMsPerGbps) : 0;
    }
};

struct PipelinePlan {
    int stages = 1;
    int micro = 1;
    int replicas = 1;
    int64_t micro_batch = 1;
    std::vector<std::size_t> first;     // first layer of each stage, plus the layer count
    std::vector<double> boundary_elems; // per sample, crossing from stage s to s + 1
    std::vector<Link> links;            // from stage s to s + 1
};

// Per-sample elements of the outputs that layers up to `cut` produce and layers after it
// read: what crosses a stage boundary after layer `cut`.
std::vector<double> crossingElems(const Network& net, const NetworkAnalysis& a,
                                  const std::vector<std::size_t>& first) {
    const std::size_t n = net.layers.size();
    std::vector<std::size_t> last_use(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (const std::size_t in : net.layers[i].inputs)
            last_use[in] = std::max(last_use[in], i);
    std::vector<double> out;
    for (std::size_t s = 1; s + 1 < first.size(); ++s) {
        const std::size_t cut = first[s]; // first layer of the next stage
        double elems = 0;
        for (std::size_t j = 0; j < cut; ++j)
            if (last_use[j] >= cut)
                elems += static_cast<double>(a.layers[j].output_elems);
        out.push_back(elems);
    }
    return out;
}

Link stageLink(const Scenario& s, const std::vector<int>& order, int from) {
    const SystemProfile& sys = s.system;
    const int g = s.gpus_per_node;
    const int p = s.stages();
    // Replica 0: stage k on the k-th GPU of the node's chain (P <= G), or on the
    // (k mod G)-th GPU of node k / G.
    const int a = order[static_cast<std::size_t>(p <= g ? from : from % g)];
    const int b = order[static_cast<std::size_t>(p <= g ? from + 1 : (from + 1) % g)];
    const bool across = p > g && from / g != (from + 1) / g;
    Link link;
    if (across) {
        link.latency_ms =
            (s.software.collective_hop_latency_us + sys.network_latency_us) * kMsPerUs;
        link.gbps = sys.nic_gbps * s.software.network_efficiency;
    } else {
        link.latency_ms = s.software.collective_hop_latency_us * kMsPerUs;
        link.gbps = peerGbps(sys, s.gpu, a, b) * s.software.memcpy_efficiency;
    }
    return link;
}

PipelinePlan planPipeline(const Scenario& s, const LayerPassTable& table) {
    const Network& net = s.network->network;
    PipelinePlan plan;
    plan.stages = s.stages();
    plan.micro = s.microBatches();
    plan.replicas = s.totalGpus() / plan.stages;
    plan.micro_batch = s.kernelBatch();
    // Layers in order, balanced by their predicted time at the batch per GPU; the input
    // layer (no work) goes with the first stage. The cut is made once for the network, as
    // torchgpipe's balance_by_time profiles it once: the micro-batches then flow through
    // the same stages whatever their number.
    const LayerPassTable* at_batch = &table;
    LayerPassTable own;
    if (table.batch != s.batch_per_gpu) {
        Scenario whole = s;
        whole.parallel = ParallelStrategy::Data;
        own = layerPassTable(whole);
        at_batch = &own;
    }
    std::vector<double> ms;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        if (net.layers[i].kind == LayerKind::Input)
            continue;
        index.push_back(i);
        ms.push_back(at_batch->passes[i].forward.ms + at_batch->passes[i].backward.ms);
    }
    const std::vector<std::size_t> cuts = balanceStages(ms, plan.stages);
    plan.first.push_back(0);
    for (std::size_t k = 1; k < cuts.size(); ++k)
        plan.first.push_back(index[cuts[k]]);
    plan.first.push_back(net.layers.size());
    plan.boundary_elems = crossingElems(net, s.network->analysis, plan.first);
    // Consecutive stages on GPUs joined by the fastest links: the replica's GPUs (P <= G),
    // or a node's, in the order whose slowest hop is fastest.
    const std::vector<int> order =
        chainOrder(s.system, s.gpu, std::min(plan.stages, s.gpus_per_node));
    for (int k = 0; k + 1 < plan.stages; ++k)
        plan.links.push_back(stageLink(s, order, k));
    return plan;
}

// Stages of one replica run every micro-batch's activations they keep: GPipe all M,
// 1F1B at most P - s (Narayanan et al.).
int inFlight(const Scenario& s, int stage) {
    const int m = s.microBatches();
    return s.schedule == PipelineSchedule::GPipe ? m : std::min(s.stages() - stage, m);
}

// `saved`: savedElementsByLayer of the network, made once for all stages.
MemoryEstimate stageMemory(const Scenario& s, const PipelinePlan& plan, int stage,
                           const std::vector<double>& saved) {
    const Network& net = s.network->network;
    const NetworkAnalysis& a = s.network->analysis;
    const auto su = static_cast<std::size_t>(stage);
    double params = 0, kept = 0, largest = 0, workspace = 0;
    for (std::size_t i = plan.first[su]; i < plan.first[su + 1]; ++i) {
        const LayerCost& c = a.layers[i];
        params += static_cast<double>(c.params);
        kept += saved[i];
        largest = std::max(largest, static_cast<double>(c.output_elems));
        const Layer& l = net.layers[i];
        if (l.kind == LayerKind::Convolution && !c.output.empty() && c.output[0] > 0)
            workspace =
                std::max(workspace, static_cast<double>(c.macs) *
                                        static_cast<double>(std::max<int64_t>(l.conv.groups, 1)) /
                                        static_cast<double>(c.output[0]));
    }
    const double elem = activationBytes(s.precision);
    // Per sample of batch_per_gpu: a micro-batch is batch_per_gpu x P / M samples.
    const double per_batch = static_cast<double>(plan.stages) / plan.micro;
    MemoryInputs in;
    in.weights = params * (kFp32Bytes + (halfPrecision(s.precision) ? kFp16Bytes : 0));
    in.gradients = params * kFp32Bytes;
    in.optimizer = params * s.software.optimizer_state_bytes_per_param;
    in.activations_per_sample = (kept * inFlight(s, stage) + 2 * largest) * elem * per_batch;
    in.workspace_per_sample = workspace * elem * per_batch;
    return memoryFor(s, in);
}

// The stage that needs the most memory.
MemoryEstimate planMemory(const Scenario& s, const PipelinePlan& plan) {
    MemoryEstimate worst;
    const std::vector<double> saved = savedElementsByLayer(s.network->network, s.network->analysis);
    for (int k = 0; k < plan.stages; ++k) {
        const MemoryEstimate m = stageMemory(s, plan, k, saved);
        if (k == 0 || m.total_bytes > worst.total_bytes)
            worst = m;
    }
    return worst;
}

// The all-reduce of one stage's gradients over the replicas: the same stage of every
// replica, G/P of them in each of the M nodes (P <= G), or one in each node group.
ExchangeModel replicaExchange(const Scenario& s) {
    const int p = s.stages(), g = s.gpus_per_node;
    const int nodes = p <= g ? s.nodes : s.totalGpus() / p;
    const int per_node = p <= g ? g / p : 1;
    ExchangeModel model = exchangeModel(s, nodes, per_node);
    if (nodes > 1) {
        // Every stage of a node all-reduces at about the same time through its NICs.
        const int groups = p <= g ? p : g;
        const double sharing =
            static_cast<double>(groups * std::min(per_node, s.system.nics_per_node)) /
            std::max(1, s.system.nics_per_node);
        if (sharing > 1)
            for (int i = 0; i < model.candidate_count; ++i)
                model.candidates[static_cast<std::size_t>(i)].cost.ms_per_byte *= sharing;
    }
    return model;
}

} // namespace

MemoryEstimate pipelineMemory(const Scenario& s) {
    const LayerPassTable table = layerPassTable(s);
    return planMemory(s, planPipeline(s, table));
}

Prediction predictPipeline(const Scenario& s, const LayerPassTable& table, PredictDetail detail) {
    if (s.stages() == 1 && s.microBatches() == 1)
        return predictData(s, table, detail); // one stage, one micro-batch: data parallelism
    const ComputeRates& rates = table.rates;
    const Network& net = s.network->network;
    const NetworkAnalysis& analysis = s.network->analysis;
    const SoftwareProfile& sw = s.software;
    const std::size_t n_layers = net.layers.size();
    const PipelinePlan plan = planPipeline(s, table);
    const int p_stages = plan.stages, m = plan.micro;
    const double elem = activationBytes(s.precision);
    const double grad_elem = static_cast<double>(detail::gradientElementBytes(s));
    const double micro_batch = static_cast<double>(plan.micro_batch);

    Prediction p;
    p.pipeline_stages = p_stages;
    p.micro_batches = m;
    p.layers.resize(n_layers);
    const bool full = detail == PredictDetail::Full;
    if (full)
        p.timeline.reserve(static_cast<std::size_t>(p_stages) *
                           (4 * static_cast<std::size_t>(m) + 8));
    const detail::TimelineSink timeline{full ? &p.timeline : nullptr};

    // Stage 0 loads the replica's batch.
    const double t0 =
        detail::beginIteration(s, rates, s.batch_per_gpu * p_stages, p, timeline.forGroup(0));

    std::vector<StageCost> costs(static_cast<std::size_t>(p_stages));
    std::vector<double> stage_params(static_cast<std::size_t>(p_stages), 0.0);
    std::vector<double> stage_tensors(static_cast<std::size_t>(p_stages), 0.0);
    std::vector<int> stage_trainable(static_cast<std::size_t>(p_stages), 0);
    for (int k = 0; k < p_stages; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        StageCost& c = costs[ku];
        for (std::size_t i = plan.first[ku]; i < plan.first[ku + 1]; ++i) {
            c.forward_ms += table.passes[i].forward.ms;
            c.backward_ms += table.passes[i].backward.ms;
            const LayerCost& lc = analysis.layers[i];
            stage_params[ku] += static_cast<double>(lc.params);
            stage_tensors[ku] += detail::layerParamTensors(net.layers[i], lc);
            stage_trainable[ku] += lc.params > 0 ? 1 : 0;
            LayerTiming& lt = p.layers[i];
            detail::setPassTimes(lt, i, table.passes[i], m);
            lt.gradient_bytes = static_cast<int64_t>(static_cast<double>(lc.params) * grad_elem);
        }
        const double bytes_out =
            k + 1 < p_stages ? plan.boundary_elems[ku] * micro_batch * elem : 0.0;
        if (k + 1 < p_stages)
            c.send_activations_ms = plan.links[ku].ms(bytes_out);
        if (k > 0)
            costs[ku].send_gradients_ms =
                plan.links[ku - 1].ms(plan.boundary_elems[ku - 1] * micro_batch * elem);
    }
    const PipelineRun run = runPipeline(costs, m, s.schedule);

    if (full) {
        for (const PipelineOp& op : run.ops) {
            const detail::TimelineSink sink = timeline.forGroup(op.stage);
            const auto first = static_cast<long>(plan.first[static_cast<std::size_t>(op.stage)]);
            switch (op.kind) {
            case PipelineOp::Kind::Forward:
                sink.add(Stream::Compute, EventKind::StageForward, t0 + op.start_ms, op.duration_ms,
                         first, op.micro);
                break;
            case PipelineOp::Kind::Backward:
                sink.add(Stream::Compute, EventKind::StageBackward, t0 + op.start_ms,
                         op.duration_ms, first, op.micro);
                break;
            case PipelineOp::Kind::SendActivations:
                sink.add(Stream::Communication, EventKind::SendActivations, t0 + op.start_ms,
                         op.duration_ms, -1, op.micro, 0);
                break;
            case PipelineOp::Kind::SendGradients:
                sink.add(Stream::Communication, EventKind::SendGradients, t0 + op.start_ms,
                         op.duration_ms, -1, op.micro, 1);
                break;
            }
        }
    }

    // Each stage: its gradients all-reduced with the other replicas' same stage, then its
    // update. The iteration ends when the slowest stage is done.
    const ExchangeModel replicas = plan.replicas > 1 ? replicaExchange(s) : ExchangeModel{};
    const auto bucket_bytes = std::max(1.0, s.bucket_mb * kBytesPerMb);
    double gpu_end = 0;
    int64_t most_sent = 0;
    const int busiest = run.busiest_stage;
    for (int k = 0; k < p_stages; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        const detail::TimelineSink sink = timeline.forGroup(k);
        const double end = t0 + run.stage_end_ms[ku];
        double t = end, comm = 0;
        double sent = m *
                      ((k + 1 < p_stages ? plan.boundary_elems[ku] : 0.0) +
                       (k > 0 ? plan.boundary_elems[ku - 1] : 0.0)) *
                      micro_batch * elem;
        for (const PipelineOp& op : run.ops)
            if (op.stage == k && (op.kind == PipelineOp::Kind::SendActivations ||
                                  op.kind == PipelineOp::Kind::SendGradients))
                comm += op.duration_ms;
        if (replicas.active) {
            double left = stage_params[ku] * grad_elem;
            int bucket = 0;
            while (left > 0) {
                const double bytes = std::min(left, bucket_bytes);
                AllreduceAlgorithm chosen = AllreduceAlgorithm::Ring;
                const double d = exchangeMs(replicas, bytes, &chosen);
                sink.add(Stream::Communication,
                         s.sync == SyncStrategy::AllreduceCopy ? EventKind::CopyAllReduce
                                                               : EventKind::AllReduce,
                         t, d, -1, bucket++);
                t += d;
                comm += d;
                sent += exchangeSentBytes(replicas, bytes, chosen);
                if (s.sync == SyncStrategy::AllreduceNccl && k == busiest)
                    p.allreduce_algorithm = allreduceAlgorithmName(chosen);
                left -= bytes;
            }
        }
        const double update = detail::optimizerStepMs(s, rates, stage_params[ku], stage_tensors[ku],
                                                      stage_trainable[ku]);
        if (update > 0)
            sink.add(Stream::Update, EventKind::Update, t, update);
        p.update_ms = std::max(p.update_ms, update);
        p.communication_ms = std::max(p.communication_ms, comm);
        p.exposed_communication_ms = std::max(p.exposed_communication_ms, t - end);
        most_sent = std::max(most_sent, static_cast<int64_t>(sent));
        gpu_end = std::max(gpu_end, t + update);
    }
    const auto bu = static_cast<std::size_t>(busiest);
    p.forward_ms = m * costs[bu].forward_ms;
    p.backward_ms = m * costs[bu].backward_ms;
    p.pipeline_bubble_ms = run.bubble_ms;
    p.exchanged_bytes_per_gpu = most_sent;
    gpu_end = std::max(gpu_end, sw.overlap_input ? p.input_ms : 0.0);
    const std::size_t before = p.timeline.size();
    detail::endIteration(s, p, gpu_end, s.totalGpus() > 1, timeline.forGroup(0));
    // Every stage waits at the end of the step alike.
    const std::size_t added = p.timeline.size() - before;
    for (int k = 1; k < p_stages; ++k)
        for (std::size_t e = before; e < before + added; ++e) {
            TimelineEvent copy = p.timeline[e];
            copy.group = k;
            p.timeline.push_back(copy);
        }

    detail::setMemory(p, planMemory(s, plan));
    for (int k = 0; k < p_stages; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        const std::string& a = net.layers[plan.first[ku]].name;
        const std::string& b = net.layers[plan.first[ku + 1] - 1].name;
        p.groups.push_back(
            {"stage " + std::to_string(k) + " (" + a + (a == b ? "" : " to " + b) + ")",
             plan.replicas});
    }
    if (!full)
        p.layers = {};
    return p;
}

} // namespace iterscope
