#include "trace/trace_steps.h"

#include "util/error.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace iterscope {

std::int64_t TraceStep::busyNs() const {
    std::int64_t busy = 0, covered_to = INT64_MIN;
    for (const MeasuredActivity& a : activities) {
        const std::int64_t end = a.start_ns + a.dur_ns;
        if (end <= covered_to)
            continue;
        busy += end - std::max(a.start_ns, covered_to);
        covered_to = end;
    }
    return busy;
}

namespace {

bool isCpuSide(const TraceEvent& e) {
    return e.kind == TraceEventKind::CpuOp || e.kind == TraceEventKind::Annotation;
}
bool isGpuSide(const TraceEvent& e) {
    return e.kind == TraceEventKind::Kernel || e.kind == TraceEventKind::Memcpy ||
           e.kind == TraceEventKind::Memset;
}
bool startsWith(const std::string& s, std::string_view prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}
bool isLayerKind(OpKind k) {
    return k != OpKind::Other && k != OpKind::Copy && k != OpKind::Reshape && k != OpKind::Loss;
}

// For every CPU op its enclosing op on the same thread, and for every runtime call the
// innermost op it ran in: one sweep per thread over events ordered by start, a stack of the
// ops still open.
struct Nesting {
    std::vector<int> parent;    // per event; -1 at the top or for other kinds
    std::vector<int> enclosing; // per runtime event; -1 outside every op
};

Nesting nest(const KinetoTrace& t) {
    Nesting n;
    n.parent.assign(t.events.size(), -1);
    n.enclosing.assign(t.events.size(), -1);
    std::vector<int> order;
    order.reserve(t.events.size());
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (isCpuSide(t.events[i]) || t.events[i].kind == TraceEventKind::Runtime)
            order.push_back(static_cast<int>(i));
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const TraceEvent& x = t.events[static_cast<std::size_t>(a)];
        const TraceEvent& y = t.events[static_cast<std::size_t>(b)];
        const bool rx = x.kind == TraceEventKind::Runtime, ry = y.kind == TraceEventKind::Runtime;
        // Ops before the calls that start with them; an enclosing op before its children.
        return std::tie(x.pid, x.tid, x.ts_ns, rx, y.dur_ns, a) <
               std::tie(y.pid, y.tid, y.ts_ns, ry, x.dur_ns, b);
    });
    std::vector<int> open;
    std::int64_t pid = 0, tid = 0;
    for (int i : order) {
        const TraceEvent& e = t.events[static_cast<std::size_t>(i)];
        if (open.empty() || e.pid != pid || e.tid != tid) {
            open.clear();
            pid = e.pid;
            tid = e.tid;
        }
        const auto closed = [&](std::int64_t end) {
            return t.events[static_cast<std::size_t>(open.back())].endNs() < end;
        };
        if (e.kind == TraceEventKind::Runtime) {
            while (!open.empty() && closed(e.ts_ns))
                open.pop_back();
            n.enclosing[static_cast<std::size_t>(i)] = open.empty() ? -1 : open.back();
        } else {
            while (!open.empty() && closed(e.endNs()))
                open.pop_back();
            n.parent[static_cast<std::size_t>(i)] = open.empty() ? -1 : open.back();
            open.push_back(i);
        }
    }
    return n;
}

// What the ops around a launch say: the op instance that names the work, its kind, pass
// and autograd sequence number.
struct ChainInfo {
    int instance = -1;
    OpKind kind = OpKind::Other;
    TracePass pass = TracePass::Forward;
    std::int64_t sequence = -1;
};

// What each distinct name says, worked out once: a trace repeats a few hundred names in
// every step, and classifying them is most of the work otherwise.
class NameFacts {
  public:
    struct Facts {
        bool known = false;
        OpKind kind = OpKind::Other;
        bool comm = false, optimizer = false, backward = false;
    };
    explicit NameFacts(const KinetoTrace& t)
        : m_trace(t)
        , m_facts(t.strings.size()) {}
    const Facts& of(const TraceEvent& e) {
        if (e.name < 0 || static_cast<std::size_t>(e.name) >= m_facts.size())
            return m_none;
        Facts& f = m_facts[static_cast<std::size_t>(e.name)];
        if (!f.known) {
            const std::string& name = m_trace.nameOf(e);
            f.known = true;
            f.kind = opKindOfName(name);
            f.comm = isCommunicationName(name);
            f.optimizer = isOptimizerOpName(name);
            f.backward = isBackwardOpName(name);
        }
        return f;
    }

  private:
    const KinetoTrace& m_trace;
    std::vector<Facts> m_facts;
    Facts m_none;
};

ChainInfo chainOf(const KinetoTrace& t, const Nesting& n, NameFacts& names, int leaf) {
    ChainInfo info;
    std::vector<int> chain; // leaf first
    for (int op = leaf; op >= 0 && chain.size() < 256; op = n.parent[static_cast<std::size_t>(op)])
        chain.push_back(op);
    bool comm = false, optimizer = false, backward = false;
    for (int op : chain) {
        const NameFacts::Facts& f = names.of(t.events[static_cast<std::size_t>(op)]);
        comm = comm || f.comm;
        optimizer = optimizer || f.optimizer;
        backward = backward || f.backward;
    }
    info.pass = comm        ? TracePass::Communication
                : optimizer ? TracePass::Optimizer
                : backward  ? TracePass::Backward
                            : TracePass::Forward;
    std::size_t at = chain.size();
    for (std::size_t k = chain.size(); k-- > 0;) {
        const OpKind kind = names.of(t.events[static_cast<std::size_t>(chain[k])]).kind;
        if (kind != OpKind::Other) {
            info.kind = kind;
            at = k;
            break;
        }
    }
    if (at == chain.size())
        at = 0; // no known kind: the innermost op names it
    info.instance = chain.empty() ? -1 : chain[at];
    for (std::size_t k = at + 1; k-- > 0;) {
        const std::int64_t seq = t.events[static_cast<std::size_t>(chain[k])].sequence;
        if (seq >= 0) {
            info.sequence = seq;
            break;
        }
    }
    return info;
}

bool mentions(const std::string& s, std::initializer_list<std::string_view> needles) {
    for (std::string_view n : needles)
        if (s.find(n) != std::string::npos)
            return true;
    return false;
}

struct Activity {
    int event = -1;
    std::int64_t launch_ns = 0;
    ChainInfo chain;
};

struct Span {
    std::string label;
    std::int64_t start = 0, end = 0;
};

// Without ProfilerStep#N, the step is an annotation repeated around the layers' launches:
// its innermost instances (an annotation may be recorded twice, nested), of the name that
// encloses no other such name; of several, the one with most instances, then the one that
// comes last (warm-up runs come first).
std::vector<Span> annotationSteps(const KinetoTrace& t, const Nesting& n,
                                  const std::vector<std::int64_t>& layer_launches,
                                  std::string& source) {
    std::vector<int> candidates;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const TraceEvent& e = t.events[i];
        if (e.kind != TraceEventKind::Annotation)
            continue;
        auto it = std::lower_bound(layer_launches.begin(), layer_launches.end(), e.ts_ns);
        if (it != layer_launches.end() && *it <= e.endNs())
            candidates.push_back(static_cast<int>(i));
    }
    std::set<int> candidate_set(candidates.begin(), candidates.end());
    std::set<int> not_innermost;
    std::set<std::int32_t> enclosing_names;
    for (int c : candidates) {
        const std::int32_t name = t.events[static_cast<std::size_t>(c)].name;
        for (int up = n.parent[static_cast<std::size_t>(c)]; up >= 0;
             up = n.parent[static_cast<std::size_t>(up)]) {
            if (!candidate_set.count(up))
                continue;
            if (t.events[static_cast<std::size_t>(up)].name == name)
                not_innermost.insert(up);
            else
                enclosing_names.insert(t.events[static_cast<std::size_t>(up)].name);
        }
    }
    std::map<std::int32_t, std::vector<int>> by_name;
    for (int c : candidates)
        if (!not_innermost.count(c) &&
            !enclosing_names.count(t.events[static_cast<std::size_t>(c)].name))
            by_name[t.events[static_cast<std::size_t>(c)].name].push_back(c);
    const std::vector<int>* best = nullptr;
    std::int64_t best_start = 0;
    for (const auto& [name, list] : by_name) {
        std::int64_t first = INT64_MAX;
        for (int c : list)
            first = std::min(first, t.events[static_cast<std::size_t>(c)].ts_ns);
        if (!best || list.size() > best->size() ||
            (list.size() == best->size() && first > best_start)) {
            best = &list;
            best_start = first;
        }
    }
    std::vector<Span> steps;
    if (!best)
        return steps;
    for (int c : *best) {
        const TraceEvent& e = t.events[static_cast<std::size_t>(c)];
        steps.push_back({t.nameOf(e), e.ts_ns, e.endNs()});
    }
    source = "annotation '" + steps.front().label + "'";
    return steps;
}

} // namespace

TraceAnalysis analyzeTrace(const KinetoTrace& t) {
    TraceAnalysis out;
    out.file = t.file;
    const Nesting n = nest(t);
    std::unordered_map<std::int64_t, int> launch_of, op_of_external;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const TraceEvent& e = t.events[i];
        if (e.kind == TraceEventKind::Runtime && e.correlation >= 0)
            launch_of.emplace(e.correlation, static_cast<int>(i));
        else if (e.kind == TraceEventKind::CpuOp && e.external_id >= 0)
            op_of_external.emplace(e.external_id, static_cast<int>(i));
    }

    // The busiest GPU is the one analysed (a rank's trace lists every GPU of the node).
    std::map<int, std::int64_t> busy_by_device;
    for (const TraceEvent& e : t.events)
        if (e.kind == TraceEventKind::Kernel)
            busy_by_device[e.device >= 0 ? e.device : static_cast<int>(e.pid)] += e.dur_ns;
    int device = busy_by_device.begin()->first;
    for (const auto& [d, ns] : busy_by_device)
        if (ns > busy_by_device[device])
            device = d;
    out.facts.gpus_with_work = static_cast<int>(busy_by_device.size());
    for (const TraceDevice& d : t.devices)
        if (d.id == device) {
            out.facts.device = d;
            out.facts.has_device = true;
        }
    out.facts.world_size = std::max(1, t.world_size);

    std::unordered_map<int, ChainInfo> chain_memo;
    NameFacts names(t);
    std::vector<Activity> activities;
    activities.reserve(t.events.size() / 2);
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const TraceEvent& e = t.events[i];
        if (!isGpuSide(e) || (e.device >= 0 ? e.device : static_cast<int>(e.pid)) != device)
            continue;
        Activity a;
        a.event = static_cast<int>(i);
        a.launch_ns = e.ts_ns;
        int leaf = -1;
        if (auto it = launch_of.find(e.correlation); e.correlation >= 0 && it != launch_of.end()) {
            leaf = n.enclosing[static_cast<std::size_t>(it->second)];
            a.launch_ns = t.events[static_cast<std::size_t>(it->second)].ts_ns;
        } else if (auto op = op_of_external.find(e.external_id);
                   e.external_id >= 0 && op != op_of_external.end()) {
            leaf = op->second;
            a.launch_ns = t.events[static_cast<std::size_t>(leaf)].ts_ns;
        }
        if (leaf >= 0) {
            auto memo = chain_memo.find(leaf);
            if (memo == chain_memo.end())
                memo = chain_memo.emplace(leaf, chainOf(t, n, names, leaf)).first;
            a.chain = memo->second;
        }
        const std::string& name = t.nameOf(e);
        if (e.kind == TraceEventKind::Kernel && names.of(e).comm)
            a.chain.pass = TracePass::Communication;
        else if (e.kind == TraceEventKind::Memcpy && a.chain.pass == TracePass::Forward &&
                 !isLayerKind(a.chain.kind) && name.find("HtoD") != std::string::npos)
            a.chain.pass = TracePass::Input;
        activities.push_back(a);
    }
    std::sort(activities.begin(), activities.end(), [&](const Activity& a, const Activity& b) {
        return std::tie(t.events[static_cast<std::size_t>(a.event)].ts_ns, a.event) <
               std::tie(t.events[static_cast<std::size_t>(b.event)].ts_ns, b.event);
    });

    std::vector<Span> spans;
    for (const TraceEvent& e : t.events)
        if (isCpuSide(e) && startsWith(t.nameOf(e), "ProfilerStep#"))
            spans.push_back({t.nameOf(e), e.ts_ns, e.endNs()});
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    // Some releases record a step both as an op and as an annotation.
    spans.erase(std::unique(spans.begin(), spans.end(),
                            [](const Span& a, const Span& b) { return a.start == b.start; }),
                spans.end());
    if (!spans.empty()) {
        out.facts.step_source = "ProfilerStep#N";
    } else {
        std::vector<std::int64_t> layer_launches;
        for (const Activity& a : activities)
            if (a.chain.pass == TracePass::Forward && isLayerKind(a.chain.kind))
                layer_launches.push_back(a.launch_ns);
        std::sort(layer_launches.begin(), layer_launches.end());
        spans = annotationSteps(t, n, layer_launches, out.facts.step_source);
        std::sort(spans.begin(), spans.end(),
                  [](const Span& a, const Span& b) { return a.start < b.start; });
    }
    if (spans.empty()) {
        Span whole{"whole trace", INT64_MAX, INT64_MIN};
        for (const Activity& a : activities) {
            const TraceEvent& e = t.events[static_cast<std::size_t>(a.event)];
            whole.start = std::min({whole.start, a.launch_ns, e.ts_ns});
            whole.end = std::max({whole.end, a.launch_ns, e.endNs()});
        }
        spans.push_back(whole);
        out.facts.step_source = "whole trace";
    }

    out.steps.resize(spans.size());
    std::vector<std::unordered_map<int, int>> op_index(spans.size());
    for (std::size_t s = 0; s < spans.size(); ++s) {
        out.steps[s].label = spans[s].label;
        out.steps[s].start_ns = spans[s].start;
        out.steps[s].end_ns = spans[s].end;
    }
    for (std::size_t k = 0; k < activities.size(); ++k) {
        const Activity& a = activities[k];
        const TraceEvent& e = t.events[static_cast<std::size_t>(a.event)];
        auto after = std::upper_bound(spans.begin(), spans.end(), a.launch_ns,
                                      [](std::int64_t v, const Span& s) { return v < s.start; });
        if (after == spans.begin() || a.launch_ns > std::prev(after)->end) {
            ++out.facts.activities_outside_steps;
            continue;
        }
        const auto s = static_cast<std::size_t>(std::prev(after) - spans.begin());
        TraceStep& step = out.steps[s];
        // Work with no op of its own (a kernel launched outside any op) is an op by itself.
        const int key = a.chain.instance >= 0 ? a.chain.instance : -1 - static_cast<int>(k);
        auto [slot, fresh] = op_index[s].emplace(key, static_cast<int>(step.ops.size()));
        if (fresh) {
            MeasuredOp op;
            const TraceEvent* named =
                a.chain.instance >= 0 ? &t.events[static_cast<std::size_t>(a.chain.instance)] : &e;
            op.name = t.nameOf(*named);
            op.kind = a.chain.kind;
            op.pass = a.chain.pass;
            op.launch_ns = a.launch_ns;
            op.gpu_start_ns = e.ts_ns;
            op.gpu_end_ns = e.endNs();
            op.sequence = a.chain.sequence;
            if (named->dims_count > 0)
                op.input_dims.assign(t.dims.begin() + named->dims_offset,
                                     t.dims.begin() + named->dims_offset + named->dims_count);
            if (named->input_type >= 0)
                op.input_type = t.strings[static_cast<std::size_t>(named->input_type)];
            step.ops.push_back(std::move(op));
        }
        MeasuredOp& op = step.ops[static_cast<std::size_t>(slot->second)];
        op.kernel_ns += e.dur_ns;
        ++op.kernels;
        op.launch_ns = std::min(op.launch_ns, a.launch_ns);
        op.gpu_start_ns = std::min(op.gpu_start_ns, e.ts_ns);
        op.gpu_end_ns = std::max(op.gpu_end_ns, e.endNs());
        if (e.kind == TraceEventKind::Kernel) {
            const std::string& kernel = t.nameOf(e);
            op.tf32 = op.tf32 || kernel.find("tf32") != std::string::npos;
            op.tensor_core =
                op.tensor_core || op.tf32 ||
                mentions(kernel, {"fp16", "f16f16", "bf16", "h884", "h1688", "h16816", "hmma"});
        }
        step.activities.push_back({e.kind, e.ts_ns, e.dur_ns, e.stream, slot->second, e.bytes});
        step.end_ns = std::max(step.end_ns, e.endNs());
    }
    for (std::size_t s = 0; s < out.steps.size(); ++s) {
        TraceStep& step = out.steps[s];
        // A step's GPU work that runs on past the next step's start belongs to the next
        // step's wall time, not to both.
        if (s + 1 < out.steps.size())
            step.end_ns = std::min(step.end_ns, std::max(spans[s].end, out.steps[s + 1].start_ns));
        std::vector<int> order(step.ops.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = static_cast<int>(i);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return step.ops[static_cast<std::size_t>(a)].launch_ns <
                   step.ops[static_cast<std::size_t>(b)].launch_ns;
        });
        std::vector<int> rank(order.size());
        std::vector<MeasuredOp> sorted;
        for (std::size_t i = 0; i < order.size(); ++i) {
            rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
            sorted.push_back(std::move(step.ops[static_cast<std::size_t>(order[i])]));
        }
        step.ops = std::move(sorted);
        for (MeasuredActivity& a : step.activities)
            a.op = rank[static_cast<std::size_t>(a.op)];
    }
    out.steps.erase(std::remove_if(out.steps.begin(), out.steps.end(),
                                   [](const TraceStep& s) { return s.ops.empty(); }),
                    out.steps.end());
    if (out.steps.empty())
        throw InputError(t.file + ": no GPU work inside the trace's steps (" +
                         out.facts.step_source + ")");

    TraceFacts& f = out.facts;
    const TraceStep& first = out.steps.front();
    const MeasuredOp* first_layer = nullptr;
    bool amp = false, tf32 = false, fp32_linear = false;
    for (const MeasuredOp& op : first.ops) {
        f.has_backward = f.has_backward || op.pass == TracePass::Backward;
        f.has_optimizer = f.has_optimizer || op.pass == TracePass::Optimizer;
        f.has_communication = f.has_communication || op.pass == TracePass::Communication;
        const bool gemm = op.kind == OpKind::Convolution || op.kind == OpKind::Linear;
        if (op.pass == TracePass::Forward && gemm) {
            amp = amp || (op.tensor_core && !op.tf32);
            tf32 = tf32 || op.tf32;
            fp32_linear = fp32_linear || (op.kind == OpKind::Linear && !op.tensor_core);
            if (!first_layer || (first_layer->kind != OpKind::Convolution &&
                                 op.kind == OpKind::Convolution && first_layer->input_dims.empty()))
                first_layer = &op;
        }
    }
    for (const MeasuredActivity& a : first.activities)
        if (a.kind == TraceEventKind::Memcpy &&
            first.ops[static_cast<std::size_t>(a.op)].pass == TracePass::Input)
            f.input_copy_bytes = std::max(f.input_copy_bytes, a.bytes);
    if (first_layer) {
        f.first_layer_input_dims = first_layer->input_dims;
        f.first_layer_input_type = first_layer->input_type;
    }
    if (f.first_layer_input_type == "c10::Half") {
        f.precision = "amp";
        f.precision_source = "op input types (c10::Half)";
    } else if (f.first_layer_input_type == "c10::BFloat16") {
        f.precision = "bf16";
        f.precision_source = "op input types (c10::BFloat16)";
    } else if (amp) {
        f.precision = "amp";
        f.precision_source = "FP16 tensor-core kernel names";
    } else if (tf32) {
        f.precision = "tf32";
        // PyTorch lets cuDNN use TF32 by default but not matmul (allow_tf32): say so.
        f.precision_source =
            fp32_linear ? "TF32 kernel names; the linear layers ran FP32" : "TF32 kernel names";
    } else {
        f.precision_source = "no tensor-core kernels";
    }
    return out;
}

} // namespace iterscope
