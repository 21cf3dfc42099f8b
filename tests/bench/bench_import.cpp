// Import speed and memory: a VGG-16-sized ONNX file with its ~550 MB of weights embedded as
// raw_data (target: read + analyze in <= 2 s, peak RSS <= 1.2 GB), and a ~100 KB prototxt
// (target: <= 20 ms). The ONNX file is written by a child process so that building it does
// not count towards this process's peak memory.
//
// Usage: bench_import [dir-for-the-temporary-file]   (default /tmp)
#include "../support/onnx_builder.h"

#include "io/caffe_reader.h"
#include "io/onnx_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace iterscope;
using onnx_test::OnnxBuilder;
using onnx_test::Weights;

namespace {

double peakRssMb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux reports KiB
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : "/tmp";
    const std::string path = dir + "/iterscope-bench-vgg16-" + std::to_string(getpid()) + ".onnx";

    const pid_t child = fork();
    if (child == 0) {
        writeVgg16(path);
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_import: could not write %s\n", path.c_str());
        return 1;
    }
    std::ifstream probe(path, std::ios::binary | std::ios::ate);
    const double file_mb = static_cast<double>(probe.tellg()) / 1e6;

    int rc = 0;
    try {
        const double rss_before = peakRssMb();
        const auto start = std::chrono::steady_clock::now();
        const Network net = readOnnxFile(path);
        const NetworkAnalysis a = analyze(net);
        const double seconds = secondsSince(start);
        std::printf("onnx: %.0f MB file, %zu layers, %lld params, %lld MACs: %.3f s "
                    "(target <= 2 s), peak RSS %.0f MB (before %.0f MB; target <= 1200 MB)\n",
                    file_mb, net.layers.size(), static_cast<long long>(a.total_params),
                    static_cast<long long>(a.total_macs), seconds, peakRssMb(), rss_before);
        if (a.total_params != 138357544) {
            std::fprintf(stderr, "bench_import: VGG-16 should have 138357544 parameters\n");
            rc = 1;
        }

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
    std::remove(path.c_str());
    return rc;
}
