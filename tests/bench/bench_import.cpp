// Import speed and memory: ONNX files with their weights embedded as raw_data, the way users'
// exports are, read and analyzed (targets: under 1 s and under 100 MB peak RSS):
//   - ViT-B/16 as torch.onnx writes it at opset 13 (86.6M parameters, 346 MB): attention as
//     reshapes, transposes and products, LayerNorm and GELU written out op by op;
//   - VGG-16 (138M parameters, 553 MB);
// and a ~100 KB prototxt (target: <= 20 ms). Each ONNX file is written by one child process
// and imported by another, so that building it and the other imports do not count towards
// the peak memory reported.
//
// Usage: bench_import [dir-for-the-temporary-files]   (default /tmp)
#include "../support/onnx_builder.h"
#include "bench_process.h"

#include "io/caffe_reader.h"
#include "io/onnx_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace iterscope;
using onnx_test::OnnxBuilder;
using onnx_test::Weights;

namespace {

// VGG-16 (configuration D) at 224x224: 138,357,544 parameters, all embedded.
void writeVgg16(const std::string& path) {
    OnnxBuilder b(13);
    b.input("input", {1, 3, 224, 224});
    const int64_t widths[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                              0,  512, 512, 512, 0,   512, 512, 512, 0};
    std::string x = "input";
    int64_t channels = 3;
    int index = 0;
    for (int64_t w : widths) {
        const std::string y = "features." + std::to_string(index++);
        if (w == 0) {
            auto& pool = b.node("MaxPool", {x}, {y});
            OnnxBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
            OnnxBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
        } else {
            b.conv(x, y, channels, w, 3, 1, 1, Weights::Raw);
            b.node("Relu", {y}, {y + ".relu"});
            channels = w;
            x = y + ".relu";
            continue;
        }
        x = y;
    }
    b.node("Flatten", {x}, {"flat"});
    b.gemm("flat", "fc6", 512 * 7 * 7, 4096, Weights::Raw);
    b.node("Relu", {"fc6"}, {"fc6.relu"});
    b.gemm("fc6.relu", "fc7", 4096, 4096, Weights::Raw);
    b.node("Relu", {"fc7"}, {"fc7.relu"});
    b.gemm("fc7.relu", "fc8", 4096, 1000, Weights::Raw);
    b.output("fc8", {1, 1000});
    std::ofstream out(path, std::ios::binary);
    if (!b.model.SerializeToOstream(&out))
        std::_Exit(1);
}

// ViT-B/16 as PyTorch 1.13 exports torchvision's vit_b_16 at opset 13 (batch 1): the same
// ops in the same arrangement, so the importer does all its work (layout tracking, fusion).
class VitWriter {
  public:
    explicit VitWriter(OnnxBuilder& b)
        : b_(b) {}

    std::string scalar(float v) {
        const std::string name = "c" + std::to_string(next_++);
        b_.scalar(name, v);
        return name;
    }
    std::string shape(std::vector<int64_t> v) {
        const std::string name = "s" + std::to_string(next_++);
        b_.ints(name, v);
        return name;
    }
    std::string op(const std::string& type, std::vector<std::string> in) {
        const std::string out = type + "_" + std::to_string(next_++);
        b_.node(type, in, {out});
        return out;
    }
    std::string transpose(const std::string& x, std::vector<int64_t> perm) {
        const std::string out = "t" + std::to_string(next_++);
        OnnxBuilder::attr(b_.node("Transpose", {x}, {out}), "perm", perm);
        return out;
    }
    std::string weight(const std::string& name, std::vector<int64_t> dims) {
        b_.floats(name, dims, Weights::Raw);
        return name;
    }
    std::string layerNorm(const std::string& p, const std::string& x) {
        auto mean = [&](const std::string& in) {
            const std::string out = op("ReduceMean", {in});
            auto& n = b_.graph().mutable_node()->at(b_.graph().node_size() - 1);
            OnnxBuilder::attr(n, "axes", std::vector<int64_t>{-1});
            return out;
        };
        const std::string d = op("Sub", {x, mean(x)});
        const std::string var = mean(op("Pow", {d, scalar(2.0F)}));
        const std::string n = op("Div", {d, op("Sqrt", {op("Add", {var, scalar(1e-6F)})})});
        return op("Add",
                  {op("Mul", {n, weight(p + ".weight", {768})}), weight(p + ".bias", {768})});
    }
    std::string linear(const std::string& p, const std::string& x, int64_t in, int64_t out) {
        const std::string w = transpose(weight(p + ".weight", {out, in}), {1, 0});
        return op("Add", {weight(p + ".bias", {out}), op("MatMul", {x, w})});
    }
    std::string gelu(const std::string& x) {
        const std::string e = op("Erf", {op("Div", {x, scalar(1.4142135F)})});
        return op("Mul", {op("Mul", {x, op("Add", {e, scalar(1.0F)})}), scalar(0.5F)});
    }
    std::string attention(const std::string& p, const std::string& x) {
        const std::string seq = transpose(x, {1, 0, 2}); // [197, 1, 768]
        const std::string qkv = linear(p + ".in_proj", seq, 768, 2304);
        auto part = [&](int64_t i) {
            const std::string s =
                op("Slice", {qkv, shape({768 * i}), shape({768 * (i + 1)}), shape({-1})});
            return op("Reshape", {s, shape({197, 12, 64})});
        };
        const std::string q = op("Div", {transpose(part(0), {1, 0, 2}), scalar(8.0F)});
        const std::string kt = transpose(part(1), {1, 2, 0});
        const std::string v = transpose(part(2), {1, 0, 2});
        const std::string scores = op("MatMul", {q, kt});
        const std::string probs = "p" + std::to_string(next_++);
        OnnxBuilder::attr(b_.node("Softmax", {scores}, {probs}), "axis", int64_t{-1});
        const std::string ctx = transpose(op("MatMul", {probs, v}), {1, 0, 2});
        const std::string rows = op("Reshape", {ctx, shape({197, 768})});
        const std::string out = "o" + std::to_string(next_++);
        b_.floats(p + ".out_proj.weight", {768, 768}, Weights::Raw);
        b_.floats(p + ".out_proj.bias", {768}, Weights::Raw);
        OnnxBuilder::attr(
            b_.node("Gemm", {rows, p + ".out_proj.weight", p + ".out_proj.bias"}, {out}), "transB",
            int64_t{1});
        return transpose(op("Reshape", {out, shape({197, 1, 768})}), {1, 0, 2});
    }

  private:
    OnnxBuilder& b_;
    int next_ = 0;
};

void writeVitB16(const std::string& path) {
    OnnxBuilder b(13);
    b.input("input", {1, 3, 224, 224});
    VitWriter w(b);
    b.conv("input", "conv_proj", 3, 768, 16, 16, 0, Weights::Raw);
    const std::string patches =
        w.transpose(w.op("Reshape", {"conv_proj", w.shape({1, 768, 196})}), {0, 2, 1});
    const std::string token = w.weight("class_token", {1, 1, 768});
    std::string x = "cat";
    OnnxBuilder::attr(b.node("Concat", {token, patches}, {x}), "axis", int64_t{1});
    x = w.op("Add", {x, w.weight("encoder.pos_embedding", {1, 197, 768})});
    for (int i = 0; i < 12; ++i) {
        const std::string p = "encoder.layers.encoder_layer_" + std::to_string(i);
        x = w.op("Add", {w.attention(p + ".self_attention", w.layerNorm(p + ".ln_1", x)), x});
        std::string y = w.linear(p + ".mlp.0", w.layerNorm(p + ".ln_2", x), 768, 3072);
        y = w.linear(p + ".mlp.3", w.gelu(y), 3072, 768);
        x = w.op("Add", {y, x});
    }
    x = w.layerNorm("encoder.ln", x);
    b.ints("first", {0}, true);
    OnnxBuilder::attr(b.node("Gather", {x, "first"}, {"cls"}), "axis", int64_t{1});
    b.gemm("cls", "heads.head", 768, 1000, Weights::Raw);
    b.output("heads.head", {1, 1000});
    std::ofstream out(path, std::ios::binary);
    if (!b.model.SerializeToOstream(&out))
        std::_Exit(1);
}

// A Caffe network of repeated conv + BN + Scale + ReLU blocks, about 100 KB of text.
std::string largePrototxt() {
    std::ostringstream s;
    s << "name: \"Bench\"\ninput: \"data\"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 224\n"
         "input_dim: 224\n";
    std::string bottom = "data";
    for (int i = 0; i < 200; ++i) {
        const std::string c = "conv" + std::to_string(i);
        s << "layer {\n  name: \"" << c << "\"\n  type: \"Convolution\"\n  bottom: \"" << bottom
          << "\"\n  top: \"" << c
          << "\"\n  convolution_param {\n    num_output: 64\n    kernel_size: 3\n    pad: 1\n"
             "    bias_term: false\n  }\n}\n";
        s << "layer {\n  name: \"bn" << i << "\"\n  type: \"BatchNorm\"\n  bottom: \"" << c
          << "\"\n  top: \"" << c << "\"\n}\n";
        s << "layer {\n  name: \"scale" << i << "\"\n  type: \"Scale\"\n  bottom: \"" << c
          << "\"\n  top: \"" << c << "\"\n  scale_param { bias_term: true }\n}\n";
        s << "layer {\n  name: \"relu" << i << "\"\n  type: \"ReLU\"\n  bottom: \"" << c
          << "\"\n  top: \"" << c << "\"\n}\n";
        bottom = c;
    }
    return s.str();
}

// The whole command a user runs, `iterscope-cli layers FILE --format json`, as a process of
// its own: wall time and peak resident memory from the kernel's accounting (wait4).
void benchCli(const std::string& name, const std::string& path) {
    const ProcessRun run =
        runProgram(ITERSCOPE_CLI_PATH, {"layers", path.c_str(), "--format", "json"});
    if (!run.ok) {
        std::printf("onnx %s: iterscope-cli layers failed\n", name.c_str());
        return;
    }
    std::printf("onnx %s: iterscope-cli layers FILE --format json: %.3f s, peak RSS %.0f MB "
                "(the whole process)\n",
                name.c_str(), run.seconds, run.peak_rss_mb);
}

// Imports `path` in a fresh process and prints its time and that process's peak memory.
bool benchOnnx(const std::string& name, const std::string& path, int64_t expected_params) {
    std::ifstream probe(path, std::ios::binary | std::ios::ate);
    const double file_mb = static_cast<double>(probe.tellg()) / 1e6;
    return inChild([&] {
        try {
            const double rss_before = peakRssMb();
            const auto start = std::chrono::steady_clock::now();
            const Network net = readOnnxFile(path);
            const NetworkAnalysis a = analyze(net);
            const double seconds = secondsSince(start);
            std::printf("onnx %s: %.0f MB file, %zu layers, %lld params, %lld MACs: %.3f s "
                        "(target < 1 s), peak RSS %.0f MB (%.0f MB before reading; "
                        "target < 100 MB)\n",
                        name.c_str(), file_mb, net.layers.size(),
                        static_cast<long long>(a.total_params),
                        static_cast<long long>(a.total_macs), seconds, peakRssMb(), rss_before);
            if (a.total_params != expected_params) {
                std::fprintf(stderr, "bench_import: %s should have %lld parameters\n", name.c_str(),
                             static_cast<long long>(expected_params));
                return 1;
            }
        } catch (const InputError& e) {
            std::fprintf(stderr, "bench_import: %s\n", e.what());
            return 1;
        }
        return 0;
    });
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : "/tmp";
    const std::string stem = dir + "/iterscope-bench-" + std::to_string(getpid());
    int rc = 0;
    const struct {
        const char* name;
        void (*write)(const std::string&);
        int64_t params;
    } models[] = {{"vit-b-16", writeVitB16, 86567656}, {"vgg16", writeVgg16, 138357544}};
    for (const auto& m : models) {
        const std::string path = stem + "-" + m.name + ".onnx";
        if (!inChild([&] {
                m.write(path);
                return 0;
            })) {
            std::fprintf(stderr, "bench_import: could not write %s\n", path.c_str());
            return 1;
        }
        if (!benchOnnx(m.name, path, m.params))
            rc = 1;
        benchCli(m.name, path);
        std::remove(path.c_str());
    }

    try {
        const std::string text = largePrototxt();
        constexpr int kRuns = 20;
        double best = 1e9;
        int64_t params = 0;
        for (int i = 0; i < kRuns; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            const Network caffe = readCaffeText(text, "bench.prototxt");
            params = analyze(caffe).total_params;
            best = std::min(best, secondsSince(t0));
        }
        std::printf("caffe: %.0f KB prototxt, %lld params: best of %d %.2f ms (target <= 20 ms)\n",
                    static_cast<double>(text.size()) / 1e3, static_cast<long long>(params), kRuns,
                    best * 1e3);
    } catch (const InputError& e) {
        std::fprintf(stderr, "bench_import: %s\n", e.what());
        rc = 1;
    }
    return rc;
}
