#include "model/memory_model.h"

#include "model/iteration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace iterscope {

namespace {
constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr int64_t kFp32Bytes = 4;
constexpr int64_t kFp16Bytes = 2;

// storage[i]: the layer whose output buffer layer i's output lives in. An activation that
// is its producer's only consumer runs in place, so its output is its input's storage.
std::vector<std::size_t> outputStorage(const Network& net, const NetworkAnalysis& a) {
    const std::size_t n = net.layers.size();
    std::vector<int> consumers(n, 0);
    for (const Layer& l : net.layers)
        for (std::size_t in : l.inputs)
            ++consumers[in];
    std::vector<std::size_t> storage(n);
    for (std::size_t i = 0; i < n; ++i) {
        storage[i] = i;
        const Layer& l = net.layers[i];
        const bool elementwise = l.kind == LayerKind::Activation || l.kind == LayerKind::Dropout;
        if (elementwise && l.inputs.size() == 1 && consumers[l.inputs[0]] == 1 &&
            a.layers[l.inputs[0]].output_elems == a.layers[i].output_elems)
            storage[i] = storage[l.inputs[0]];
    }
    return storage;
}

int64_t toBytes(double v) {
    if (!(v > 0))
        return 0;
    if (v >= static_cast<double>(std::numeric_limits<int64_t>::max()))
        return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(v);
}
// Elements per sample that forward keeps for backward. Layers save their inputs, and
// several layers often save the same tensor (a ReLU's output is the next convolution's
// input): each tensor counts once, by the layer that produced it. An activation that is
// its producer's only consumer runs in place (torchvision's ReLU(inplace=True), fused
// BN + ReLU kernels), so its output is its input's storage. What a layer keeps beyond its
// inputs (a dropout mask, max-pooling's indices) counts on its own.
double savedElementsPerSample(const Network& net, const NetworkAnalysis& a) {
    const std::size_t n = net.layers.size();
    const std::vector<std::size_t> storage = outputStorage(net, a);
    std::vector<char> kept(n, 0);
    double extra = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const LayerCost& c = a.layers[i];
        if (c.saved_elems <= 0)
            continue;
        double inputs = 0;
        for (std::size_t in : net.layers[i].inputs) {
            kept[storage[in]] = 1;
            inputs += static_cast<double>(a.layers[in].output_elems);
        }
        extra += std::max(0.0, static_cast<double>(c.saved_elems) - inputs);
    }
    double saved = extra;
    for (std::size_t i = 0; i < n; ++i)
        if (kept[i])
            saved += static_cast<double>(a.layers[i].output_elems);
    return saved;
}

} // namespace

NetworkMemoryFacts networkMemoryFacts(const Network& net, const NetworkAnalysis& a) {
    // Per sample: what forward keeps for backward, plus the two largest transient tensors
    // (an output and its gradient) alive at the peak; the im2col buffer of the largest
    // convolution bounds the workspace (capped by the framework's workspace limit).
    NetworkMemoryFacts f;
    f.saved = savedElementsPerSample(net, a);
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        const LayerCost& c = a.layers[i];
        f.largest_output = std::max(f.largest_output, static_cast<double>(c.output_elems));
        const Layer& l = net.layers[i];
        if (l.kind == LayerKind::Convolution && !c.output.empty() && c.output[0] > 0) {
            const double groups = static_cast<double>(std::max<int64_t>(l.conv.groups, 1));
            f.workspace = std::max(f.workspace, static_cast<double>(c.macs) * groups /
                                                    static_cast<double>(c.output[0]));
        }
    }
    return f;
}

MemoryInputs dataMemoryInputs(const Scenario& s, const NetworkMemoryFacts& facts) {
    const double elem = activationBytes(s.precision);
    const double params = static_cast<double>(s.network->analysis.total_params);
    MemoryInputs in;
    in.activations_per_sample = (facts.saved + 2 * facts.largest_output) * elem;
    in.workspace_per_sample = facts.workspace * elem;
    in.weights = params * (kFp32Bytes + (halfPrecision(s.precision) ? kFp16Bytes : 0));
    in.gradients = params * kFp32Bytes;
    in.optimizer = params * s.software.optimizer_state_bytes_per_param;
    return in;
}

MemoryEstimate memoryFor(const Scenario& s, const MemoryInputs& in) {
    const double per_sample_act = in.activations_per_sample;
    const double per_sample_ws = in.workspace_per_sample;
    const double ws_cap = s.software.workspace_limit_mb * kBytesPerMb;

    MemoryEstimate m;
    const double weights = in.weights;
    const double grads = in.gradients;
    const double optimizer = in.optimizer;
    const double reserved = s.software.framework_reserved_mb * kBytesPerMb;
    const double b = static_cast<double>(s.batch_per_gpu);
    const double act = per_sample_act * b;
    const double ws = std::min(per_sample_ws * b, ws_cap);
    m.weights_bytes = toBytes(weights);
    m.gradients_bytes = toBytes(grads);
    m.optimizer_bytes = toBytes(optimizer);
    m.activations_bytes = toBytes(act);
    m.workspace_bytes = toBytes(ws);
    m.reserved_bytes = toBytes(reserved + in.transient);
    const double total = weights + grads + optimizer + act + ws + reserved + in.transient;
    m.total_bytes = toBytes(total);
    const double capacity = static_cast<double>(s.gpu.memory_bytes);
    m.fits = total <= capacity;

    // Memory is linear in the batch until the workspace reaches its cap, linear after.
    const double free_bytes = capacity - (weights + grads + optimizer + reserved + in.transient);
    double best = 0;
    if (free_bytes > 0 && per_sample_act + per_sample_ws > 0) {
        best = std::floor(free_bytes / (per_sample_act + per_sample_ws));
        if (per_sample_ws * best > ws_cap && per_sample_act > 0)
            best = std::floor((free_bytes - ws_cap) / per_sample_act);
    }
    m.max_batch_that_fits = toBytes(std::max(best, 0.0));
    return m;
}

std::vector<double> savedElementsByLayer(const Network& net, const NetworkAnalysis& a) {
    // The same accounting as savedElementsPerSample, each kept buffer charged once to the
    // first layer that saves it.
    const std::size_t n = net.layers.size();
    const std::vector<std::size_t> storage = outputStorage(net, a);
    std::vector<double> by_layer(n, 0.0);
    std::vector<char> charged(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const LayerCost& c = a.layers[i];
        if (c.saved_elems <= 0)
            continue;
        double inputs = 0;
        for (std::size_t in : net.layers[i].inputs) {
            inputs += static_cast<double>(a.layers[in].output_elems);
            const std::size_t buffer = storage[in];
            if (!charged[buffer]) {
                charged[buffer] = 1;
                by_layer[i] += static_cast<double>(a.layers[buffer].output_elems);
            }
        }
        by_layer[i] += std::max(0.0, static_cast<double>(c.saved_elems) - inputs);
    }
    return by_layer;
}

MemoryEstimate estimateMemory(const Scenario& s) {
    return estimateMemory(s, networkMemoryFacts(s.network->network, s.network->analysis));
}

MemoryEstimate estimateMemory(const Scenario& s, const NetworkMemoryFacts& facts) {
    switch (s.parallel) {
    case ParallelStrategy::Data:
        break;
    case ParallelStrategy::Hybrid:
        return memoryFor(s, hybridMemoryInputs(s, facts));
    case ParallelStrategy::Pipeline:
        return pipelineMemory(s);
    case ParallelStrategy::Zero1:
    case ParallelStrategy::Zero2:
    case ParallelStrategy::Zero3:
        return memoryFor(s, zeroMemoryInputs(s, facts));
    }
    return memoryFor(s, dataMemoryInputs(s, facts));
}

} // namespace iterscope
