// iterscope-calibrate: measures the visible GPU with cuDNN, cuBLAS and NCCL and writes a
// measurement JSON and a calibrated GPU profile (docs/calibrator.md).
#include "calibration/calibrated_profile.h"
#include "calibration/compare.h"
#include "calibration/measurement.h"
#include "cuda/cuda_util.h"
#include "cuda/layer_bench.h"
#include "cuda/nccl_bench.h"
#include "cuda/peaks.h"
#include "fitting/layer_fit.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "util/error.h"
#include "util/utc_time.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <sstream>

namespace {

using namespace iterscope;

constexpr const char* kDescription =
    "iterscope-calibrate: measure this machine's GPU and write a calibrated GPU profile.\n"
    "\n"
    "Measures, on --device (all visible GPUs for NCCL):\n"
    "  * device facts from the CUDA runtime (name, SMs, clocks, memory, bus);\n"
    "  * memory bandwidth with a copy kernel (read + write bytes / time);\n"
    "  * GEMM throughput with cuBLASLt at fp32, tf32, fp16 and bf16 (FP32 accumulate);\n"
    "  * kernel launch overhead (1000 back-to-back empty kernels);\n"
    "  * per layer of --network at --batch, for each --precision: convolution forward,\n"
    "    backward-data and backward-filter with the algorithm cuDNN finds fastest within\n"
    "    --workspace-mb; batch norm, activation, pooling, LRN, softmax and element-wise\n"
    "    kernels with cuDNN; fully connected layers with cuBLAS;\n"
    "  * NCCL all-reduce time, algbw and busbw (nccl-tests definitions) from 8 B to\n"
    "    --allreduce-max-mb over the visible GPUs (one GPU works too).\n"
    "Every timing is the median of --repetitions after --warmup untimed runs.\n"
    "\n"
    "How long: about 10-30 s for the peaks, 20-90 s per precision for ResNet-50 at batch 64\n"
    "on a data-centre GPU (cuDNN's find runs every algorithm once per distinct layer\n"
    "shape; repeated shapes are timed once), 5-20 s for the all-reduce sweep. --quick\n"
    "cuts repetitions and sizes to a few seconds in all.\n"
    "\n"
    "Writes --out (measurement JSON), --profile-out (GPU profile in the profiles/gpus\n"
    "schema, loadable with --gpu FILE) and --software-out (the --software profile with\n"
    "efficiencies fitted to the measured layers). Needs a CUDA GPU and driver: without\n"
    "one it says so on one line and exits 1. --from FILE measures nothing and redoes the\n"
    "profile, fit and comparisons from an earlier measurement JSON, without a GPU.";

struct Options {
    std::string network = "resnet50";
    int64_t batch = 64;
    int64_t image = 0;
    std::vector<std::string> precisions{"fp32", "amp"};
    int warmup = 5;
    int repetitions = 20;
    double workspace_mb = 1024;
    std::string algorithm = "find";
    int device = 0;
    std::string base_gpu;
    std::string id;
    std::string software = "pytorch";
    std::string out = "calibration-measurement.json";
    std::string profile_out;
    std::string software_out;
    std::string report_out;
    std::string from;
    bool out_given = false;
    bool no_peaks = false, no_layers = false, no_allreduce = false;
    double allreduce_max_mb = 256;
    int allreduce_gpus = 0;
    bool quick = false;
    bool quiet = false;
};

std::vector<Precision> parsePrecisions(const std::vector<std::string>& names) {
    std::vector<Precision> out;
    for (const std::string& n : names) {
        const auto p = parsePrecision(n);
        if (!p)
            throw InputError("--precision: '" + n + "' is not fp32, tf32, amp or bf16");
        out.push_back(*p);
    }
    return out;
}

using ProgressFn = std::function<void(const std::string&)>;

Measurement measureOnGpu(const Options& o, const std::shared_ptr<const AnalyzedNetwork>& network,
                         const std::vector<Precision>& precisions, const ProgressFn& progress) {
    Measurement m;
    m.tool = std::string("iterscope-calibrate ") + ITERSCOPE_VERSION_STRING;
    m.created = utcTimestamp();
    m.device = cuda::queryDevice(o.device); // throws the one-line "no GPU" error
    progress("GPU " + std::to_string(o.device) + ": " + m.device.name + ", " +
             std::to_string(m.device.sm_count) + " SMs, compute capability " +
             std::to_string(m.device.compute_major) + "." + std::to_string(m.device.compute_minor));

    const int warmup = o.quick ? 2 : o.warmup;
    const int repetitions = o.quick ? 5 : o.repetitions;
    if (!o.no_peaks) {
        cuda::PeakOptions peaks;
        peaks.warmup = warmup;
        peaks.repetitions = repetitions;
        if (o.quick) {
            peaks.bandwidth_bytes = int64_t{256} << 20;
            peaks.gemm_size = 4096;
        }
        m.peaks = cuda::measurePeaks(m.device, peaks, progress);
        std::ostringstream s;
        s << "peaks: " << m.peaks.memory_bandwidth_gbps << " GB/s, fp32 " << m.peaks.fp32_tflops
          << ", tf32 " << m.peaks.tf32_tflops << ", fp16 " << m.peaks.fp16_tensor_tflops
          << ", bf16 " << m.peaks.bf16_tensor_tflops << " TFLOP/s, launch "
          << m.peaks.launch_overhead_us << " us";
        progress(s.str());
    }
    if (network) {
        for (Precision p : precisions) {
            cuda::LayerBenchOptions lb;
            lb.precision = p;
            lb.batch = o.batch;
            lb.warmup = warmup;
            lb.repetitions = repetitions;
            lb.workspace_limit_bytes = static_cast<int64_t>(o.workspace_mb * 1024 * 1024);
            lb.search = o.algorithm == "find" ? cuda::AlgorithmSearch::Find
                                              : cuda::AlgorithmSearch::Heuristic;
            progress(std::string("layers of ") + o.network + " at batch " +
                     std::to_string(o.batch) + ", " + precisionName(p));
            m.runs.push_back(cuda::measureNetwork(
                *network, o.network, lb,
                o.quiet ? cuda::Progress{[](const std::string&) {}} : cuda::Progress{progress}));
            progress(std::string(precisionName(p)) + ": forward " +
                     std::to_string(m.runs.back().forward_ms) + " ms, backward " +
                     std::to_string(m.runs.back().backward_ms) + " ms");
        }
    }
    if (!o.no_allreduce) {
        cuda::AllreduceOptions ar;
        ar.gpus = o.allreduce_gpus;
        ar.max_bytes = static_cast<int64_t>(o.allreduce_max_mb * 1024 * 1024);
        ar.warmup = warmup;
        ar.repetitions = repetitions;
        if (o.quick)
            ar.max_bytes = std::min<int64_t>(ar.max_bytes, int64_t{16} << 20);
        m.allreduce = cuda::measureAllreduce(ar, progress);
    }

    return m;
}

int run(const Options& o) {
    const auto started = std::chrono::steady_clock::now();
    auto progress = [&](const std::string& line) {
        if (!o.quiet) {
            const double s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::fprintf(stderr, "[%6.1f s] %s\n", s, line.c_str());
        }
    };

    // Everything a user can get wrong is checked before the GPU is touched, so that bad
    // flags fail the same way on machines without one.
    const std::vector<Precision> precisions = parsePrecisions(o.precisions);
    if (o.batch < 1 || o.batch > (int64_t{1} << 20))
        throw InputError("--batch: must be between 1 and 1048576");
    if (o.algorithm != "find" && o.algorithm != "heuristic")
        throw InputError("--algorithm: must be find or heuristic");
    if (!(o.workspace_mb >= 0 && o.workspace_mb <= 1 << 20))
        throw InputError("--workspace-mb: must be between 0 and 1048576");
    if (!(o.allreduce_max_mb > 0 && o.allreduce_max_mb <= 1 << 16))
        throw InputError("--allreduce-max-mb: must be in (0, 65536]");
    std::shared_ptr<const AnalyzedNetwork> network;
    if (!o.no_layers) {
        LoadOptions load;
        load.image = o.image;
        load.batch = o.batch;
        network = loadNetwork(o.network, load);
    }
    std::optional<GpuProfile> base_gpu;
    if (!o.base_gpu.empty())
        base_gpu = loadGpuProfile(o.base_gpu);
    std::optional<SoftwareProfile> base_software;
    if (!o.software.empty() && (!o.software_out.empty() || !o.report_out.empty()))
        base_software = loadSoftwareProfile(o.software);

    Measurement m = o.from.empty() ? measureOnGpu(o, network, precisions, progress)
                                   : readMeasurementFile(o.from);
    if (!o.from.empty() && network && m.runs.empty())
        throw InputError(o.from + ": holds no per-layer runs to fit or compare");

    GpuProfile gpu =
        withMeasuredPeaks(base_gpu ? *base_gpu : gpuProfileFromDevice(m.device), m.peaks);
    if (!o.id.empty())
        gpu.id = o.id;
    else if (base_gpu)
        gpu.id = base_gpu->id + "-calibrated";
    if (base_gpu)
        gpu.source = base_gpu->source + "; measured peaks: iterscope-calibrate on " +
                     m.device.name + " " + m.created;
    m.profile_id = gpu.id;

    if (o.from.empty() || o.out_given) {
        writeTextFile(o.out, measurementToJson(m));
        progress("wrote " + o.out);
    }
    const std::string profile_out = o.profile_out.empty() ? gpu.id + ".json" : o.profile_out;
    writeTextFile(profile_out, gpuProfileToJson(gpu, &m));
    progress("wrote " + profile_out);

    // The fit and the comparisons need only the CPU; they run here so that one call on a
    // lent GPU machine yields every number docs/calibrator.md reports.
    if (network && base_software && !m.runs.empty()) {
        const SoftwareFit fit = fitSoftwareProfile(network, gpu, *base_software, m.runs);
        if (!o.software_out.empty()) {
            writeTextFile(o.software_out, softwareProfileToJson(fit.software, describeFit(fit)));
            progress("wrote " + o.software_out);
        }
        std::cout << describeFit(fit) << "\n";
        // Three views of each run: the spec sheet alone, measured peaks with the base
        // efficiencies, and measured peaks with the fitted efficiencies.
        const GpuProfile spec = base_gpu ? *base_gpu : gpuProfileFromDevice(m.device);
        std::string report =
            "{\"fit\": " + nlohmann::json(describeFit(fit)).dump() + ", \"comparisons\": [";
        bool first = true;
        for (const NetworkRun& r : m.runs) {
            const Precision p = *parsePrecision(r.precision);
            for (const auto& [label, g, s] : {std::tuple{"spec-sheet", spec, *base_software},
                                              std::tuple{"measured-peaks", gpu, *base_software},
                                              std::tuple{"calibrated", gpu, fit.software}}) {
                const Prediction pred = predict(kernelScenario(network, g, s, r.batch, p));
                const MeasurementComparison c = compareWithMeasurement(network->network, pred, r);
                std::cout << "== " << r.network << " batch " << r.batch << " " << r.precision
                          << ", " << label << " profile ==\n"
                          << formatComparisonTable(c) << "\n";
                report += std::string(first ? "" : ",") + "{\"profile\": \"" + label +
                          "\", \"comparison\": " + comparisonToJson(c) + "}";
                first = false;
            }
        }
        if (!o.report_out.empty()) {
            writeTextFile(o.report_out, nlohmann::json::parse(report + "]}").dump(2) + "\n");
            progress("wrote " + o.report_out);
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{kDescription, "iterscope-calibrate"};
    app.set_version_flag("--version",
                         std::string("iterscope-calibrate ") + ITERSCOPE_VERSION_STRING);
    app.add_option("--network", o.network, "Network id or file to measure layer by layer")
        ->capture_default_str();
    app.add_option("--batch", o.batch, "Batch size of the layer measurements")
        ->capture_default_str();
    app.add_option("--image", o.image, "Square input size (0: the network's own)");
    app.add_option("--precision", o.precisions, "Precisions to measure: fp32, tf32, amp")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--warmup", o.warmup, "Untimed runs before each timing")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    app.add_option("--repetitions", o.repetitions, "Timed runs; the median is kept")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    app.add_option("--workspace-mb", o.workspace_mb, "cuDNN workspace limit per convolution")
        ->capture_default_str();
    app.add_option("--algorithm", o.algorithm,
                   "find (cuDNN times every algorithm) or heuristic (cuDNN's first guess)")
        ->capture_default_str();
    app.add_option("--device", o.device, "GPU index for everything but NCCL")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str();
    app.add_option("--gpu", o.base_gpu,
                   "Spec-sheet profile (id or file) to calibrate; default: derived from the "
                   "device facts");
    app.add_option("--id", o.id, "Id of the calibrated profile (default <gpu>-calibrated)");
    app.add_option("--software", o.software, "Software profile the efficiencies are fitted on")
        ->capture_default_str();
    CLI::Option* out =
        app.add_option("--out", o.out, "Measurement JSON to write")->capture_default_str();
    app.add_option("--profile-out", o.profile_out, "GPU profile JSON to write (default <id>.json)");
    app.add_option("--software-out", o.software_out,
                   "Software profile JSON with fitted efficiencies (not written when empty)");
    app.add_option("--report-out", o.report_out, "JSON of the fit and the per-layer comparisons");
    app.add_option("--from", o.from,
                   "Measure nothing: redo the profile, fit and comparisons from this measurement "
                   "JSON (no GPU needed)");
    app.add_flag("--no-peaks", o.no_peaks, "Skip bandwidth, GEMM and launch measurements");
    app.add_flag("--no-layers", o.no_layers, "Skip the per-layer measurements");
    app.add_flag("--no-allreduce", o.no_allreduce, "Skip the NCCL all-reduce sweep");
    app.add_option("--allreduce-max-mb", o.allreduce_max_mb, "Largest all-reduce message")
        ->capture_default_str();
    app.add_option("--allreduce-gpus", o.allreduce_gpus, "GPUs in the all-reduce (0: all)")
        ->check(CLI::Range(0, 1024));
    app.add_flag("--quick", o.quick, "Few repetitions and smaller sizes: a smoke test");
    app.add_flag("--quiet", o.quiet, "No progress lines on stderr");
    try {
        app.parse(argc, argv);
        o.out_given = out->count() > 0;
        return run(o);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "iterscope-calibrate: " << e.what() << " (see --help)\n";
        return 1;
    } catch (const InputError& e) {
        std::cerr << "iterscope-calibrate: " << e.what() << "\n";
        return 1;
    } catch (const cuda::CudaError& e) {
        std::cerr << "iterscope-calibrate: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "iterscope-calibrate: out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "iterscope-calibrate: " << e.what() << "\n";
        return 1;
    }
}
