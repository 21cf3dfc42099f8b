// A synthetic torch.profiler trace of training steps of the zoo's AlexNet (torchvision's):
// each step copies the input, runs forward (and the loss), backward on the autograd thread
// with each node linked to its forward op by the sequence number, an NCCL all-reduce on its
// own stream that outlasts backward, and an SGD step; ProfilerStep#N around each. It keeps
// what it wrote, so tests can check the reader against sums they did not compute with it.
#pragma once

#include "kineto_builder.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

struct TrainingTraceOptions {
    int steps = 1;
    bool backward = true; // false: forward (and loss) only, no NCCL, no optimizer
    std::string gpu_name = "NVIDIA H100 80GB HBM3";
    int sms = 132, cc_major = 9, cc_minor = 0;
    std::int64_t memory_bytes = std::int64_t{80} << 30;
    int world_size = 2;
    std::int64_t batch = 64;
    bool shapes = false;             // record_shapes: dims on the ops, no input copy needed
    bool input_copy = true;          // the batch copied from the host
    bool scrambled_backward = false; // backward nodes in an order unlike the reverse layers
    // When set, per layer index: the layer's kernel time in microseconds, split evenly over
    // its kernels (a layer without kernels ignores it).
    std::vector<double> forward_us, backward_us;
};

struct TrainingTrace {
    std::string json;
    // Per network layer index (zoo alexnet), the kernel microseconds summed over the steps.
    std::vector<double> forward_us, backward_us;
    std::vector<std::string> kinds; // per layer: "conv", "linear", ... or "" for none
    double nccl_us = 0, optimizer_us = 0, loss_us = 0; // over the steps
    double nccl_exposed_us = 0;
    std::vector<double> step_us; // each ProfilerStep's wall time as the reader should see it
};

inline TrainingTrace alexnetTrainingTrace(const TrainingTraceOptions& o) {
    struct Layer {
        const char* kind;
        const char* op;    // outer forward op
        const char* inner; // the autograd-recorded op inside it
        const char* node;  // backward node
        int kernels_fwd, kernels_bwd;
    };
    // zoo "alexnet" layer order: Input, then these (flatten runs no kernel).
    const std::vector<Layer> layers{
        {"", "", "", "", 0, 0}, // input
        {"conv", "aten::conv2d", "aten::convolution", "ConvolutionBackward0", 2, 2},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"pooling", "aten::max_pool2d", "aten::max_pool2d_with_indices",
         "MaxPool2DWithIndicesBackward0", 1, 2},
        {"conv", "aten::conv2d", "aten::convolution", "ConvolutionBackward0", 3, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"pooling", "aten::max_pool2d", "aten::max_pool2d_with_indices",
         "MaxPool2DWithIndicesBackward0", 1, 2},
        {"conv", "aten::conv2d", "aten::convolution", "ConvolutionBackward0", 2, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"conv", "aten::conv2d", "aten::convolution", "ConvolutionBackward0", 2, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"conv", "aten::conv2d", "aten::convolution", "ConvolutionBackward0", 2, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"pooling", "aten::max_pool2d", "aten::max_pool2d_with_indices",
         "MaxPool2DWithIndicesBackward0", 1, 2},
        {"pooling", "aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d",
         "AdaptiveAvgPool2DBackward0", 1, 1},
        {"", "aten::flatten", "aten::view", "ViewBackward0", 0, 0},
        {"dropout", "aten::dropout", "aten::native_dropout", "NativeDropoutBackward0", 1, 1},
        {"linear", "aten::linear", "aten::addmm", "AddmmBackward0", 2, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"dropout", "aten::dropout", "aten::native_dropout", "NativeDropoutBackward0", 1, 1},
        {"linear", "aten::linear", "aten::addmm", "AddmmBackward0", 2, 3},
        {"activation", "aten::relu_", "aten::relu_", "ReluBackward0", 1, 1},
        {"linear", "aten::linear", "aten::addmm", "AddmmBackward0", 2, 3},
    };
    KinetoBuilder b;
    b.device(0, o.gpu_name, o.sms, o.cc_major, o.cc_minor, o.memory_bytes);
    b.device(1, o.gpu_name, o.sms, o.cc_major, o.cc_minor, o.memory_bytes);
    b.world_size = o.backward ? o.world_size : 1;
    TrainingTrace out;
    out.forward_us.assign(layers.size(), 0);
    out.backward_us.assign(layers.size(), 0);
    for (const Layer& l : layers)
        out.kinds.push_back(l.kind);
    const int main_thread = 11, autograd_thread = 12, comm_thread = 13;
    double cpu = 1.0e12 + 0.125; // microseconds since the epoch, with a fraction
    double gpu = cpu + 50;
    std::int64_t sequence = 1000;
    std::vector<std::pair<double, double>> busy; // GPU intervals of the step but NCCL's
    // Kernels launched inside an op: each launch 3 us after the last, each kernel starting
    // when both its launch has reached the GPU and the stream is free.
    const auto kernels = [&](int tid, double& t, int count, const std::string& name, double base,
                             double& sum, int stream = 7, double total = -1) {
        for (int k = 0; k < count; ++k) {
            t += 3;
            const double dur = total >= 0 ? total / count : base + 7.25 * k;
            gpu = std::max(gpu, t + 5) + 0.5;
            b.launch(tid, t, name + std::to_string(k), gpu, dur, stream);
            busy.emplace_back(gpu, gpu + dur);
            gpu += dur;
            sum += dur;
        }
        t += 2;
    };
    for (int s = 0; s < o.steps; ++s) {
        busy.clear();
        const double step_start = cpu;
        double t = cpu + 1;
        if (o.input_copy) {
            const std::int64_t bytes = o.batch * 3 * 224 * 224 * 4;
            b.op("aten::to", main_thread, t, 10);
            b.op("aten::copy_", main_thread, t + 1, 8);
            gpu = std::max(gpu, t + 7);
            b.launch(main_thread, t + 2, "Memcpy HtoD (Pinned -> Device)", gpu, 400.5, 7,
                     "gpu_memcpy", bytes);
            busy.emplace_back(gpu, gpu + 400.5);
            gpu += 401;
            t += 12;
        }
        std::vector<std::int64_t> seq_of(layers.size(), -1);
        for (std::size_t i = 1; i < layers.size(); ++i) {
            const Layer& l = layers[i];
            const double start = t;
            double sum = 0;
            seq_of[i] = sequence++;
            double inner_t = t + 1;
            kernels(main_thread, inner_t, l.kernels_fwd,
                    std::string("void fwd_kernel_") + l.kind + "_", 20.125 + 3.5 * double(i) + s,
                    sum, 7, o.forward_us.empty() ? -1.0 : o.forward_us[i]);
            const std::vector<std::int64_t> dims =
                o.shapes && i == 1 ? std::vector<std::int64_t>{o.batch, 3, 224, 224}
                                   : std::vector<std::int64_t>{};
            b.op(l.op, main_thread, start, inner_t - start + 1, -1, dims);
            b.op(l.inner, main_thread, start + 0.5, inner_t - start, seq_of[i]);
            t = inner_t + 2;
            out.forward_us[i] += sum;
        }
        {
            const double start = t;
            double inner_t = t + 1;
            kernels(main_thread, inner_t, 2, "void softmax_loss_", 9.5, out.loss_us);
            b.op("aten::cross_entropy_loss", main_thread, start, inner_t - start + 1, -1);
            t = inner_t + 2;
        }
        if (o.backward) {
            // loss.backward() blocks the main thread while the autograd thread runs.
            const double backward_start = t;
            double bt = t + 2;
            {
                double inner = bt + 1;
                kernels(autograd_thread, inner, 2, "void nll_loss_backward_", 8.25, out.loss_us);
                b.op("autograd::engine::evaluate_function: NllLossBackward0", autograd_thread, bt,
                     inner - bt + 1, sequence++);
                bt = inner + 2;
            }
            std::vector<std::size_t> order;
            for (std::size_t i = layers.size() - 1; i >= 1; --i)
                if (layers[i].kernels_bwd > 0)
                    order.push_back(i);
            if (o.scrambled_backward && order.size() > 6)
                std::swap(order[2], order[5]); // linear 2 and linear 1 change places
            double nccl_start_cpu = 0;
            for (std::size_t n = 0; n < order.size(); ++n) {
                const std::size_t i = order[n];
                const Layer& l = layers[i];
                double inner = bt + 1;
                double sum = 0;
                kernels(autograd_thread, inner, l.kernels_bwd,
                        std::string("void bwd_kernel_") + l.kind + "_",
                        30.375 + 2.25 * double(i) + s, sum, 7,
                        o.backward_us.empty() ? -1.0 : o.backward_us[i]);
                b.op(std::string("autograd::engine::evaluate_function: ") + l.node, autograd_thread,
                     bt, inner - bt + 1, seq_of[i]);
                b.op(l.node, autograd_thread, bt + 0.5, inner - bt, seq_of[i]);
                bt = inner + 2;
                out.backward_us[i] += sum;
                double acc = bt + 1;
                double acc_sum = 0;
                kernels(autograd_thread, acc, 1, "void accumulate_grad_", 4.5, acc_sum);
                b.op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                     autograd_thread, bt, acc - bt + 1);
                bt = acc + 2;
                if (n == order.size() / 2)
                    nccl_start_cpu = bt;
            }
            // DDP's all-reduce, launched mid-backward on its own stream, outlasting it.
            const double nccl_gpu = gpu - 200;
            const double nccl_dur = 450.75;
            b.op("nccl:all_reduce", comm_thread, nccl_start_cpu, 6);
            b.launch(
                comm_thread, nccl_start_cpu + 1,
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                nccl_gpu, nccl_dur, 20);
            out.nccl_us += nccl_dur;
            // Exposed: the all-reduce's time no other kernel covers, counted on the 1/8 us
            // grid every time here lies on (an oracle independent of the reader's sweep).
            for (double tick = nccl_gpu; tick < nccl_gpu + nccl_dur; tick += 0.125) {
                bool covered = false;
                for (const auto& [from, to] : busy)
                    covered = covered || (tick + 0.0625 > from && tick + 0.0625 < to);
                out.nccl_exposed_us += covered ? 0 : 0.125;
            }
            gpu = std::max(gpu, nccl_gpu + nccl_dur);
            b.annotation("## backward ##", main_thread, backward_start, bt - backward_start);
            t = bt + 2;
            // The optimizer waits for the all-reduce (DDP's hook) on the compute stream.
            const double opt_start = t;
            double inner = t + 1;
            kernels(main_thread, inner, 2, "void multi_tensor_apply_kernel_", 40.5,
                    out.optimizer_us);
            b.op("Optimizer.step#SGD.step", main_thread, opt_start, inner - opt_start + 2);
            b.op("aten::_foreach_add_", main_thread, opt_start + 0.5, inner - opt_start);
            t = inner + 3;
        }
        // The next step starts when this one's CPU work ends; its GPU work may run on.
        const double step_end = t + 1;
        b.op("ProfilerStep#" + std::to_string(s + 1), main_thread, step_start,
             step_end - step_start);
        const bool last = s + 1 == o.steps;
        out.step_us.push_back(last ? std::max(step_end, gpu) - step_start : step_end - step_start);
        cpu = step_end;
    }
    out.json = b.text();
    return out;
}
