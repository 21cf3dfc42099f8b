// What the calibrator measured on one GPU, as plain values, and its JSON form
// (docs/calibrator.md "Measurement JSON"). The CUDA code fills a Measurement; everything
// that reads one back (fitting, predict --measured, the GUI overlay) needs no GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

inline constexpr const char* kMeasurementFormat = "iterscope-measurement";
inline constexpr int kMeasurementVersion = 1;

// From the CUDA runtime and the libraries' version calls.
struct DeviceFacts {
    int index = 0;
    std::string name;
    int compute_major = 0, compute_minor = 0;
    int sm_count = 0;
    double sm_clock_mhz = 0;     // peak, as the driver reports it
    double memory_clock_mhz = 0; // peak
    int memory_bus_bits = 0;
    int64_t memory_bytes = 0;
    int64_t l2_bytes = 0;
    int max_threads_per_sm = 0;
    std::string pci_bus_id; // "0000:1b:00.0"
    int driver_version = 0; // CUDA encodings: 13000 = 13.0
    int runtime_version = 0;
    int cudnn_version = 0;
    int cublas_version = 0;
    int nccl_version = 0;
    int visible_gpus = 0;
};

// One GEMM size at one precision.
struct GemmPoint {
    std::string precision; // "fp32", "tf32", "fp16", "bf16"
    std::string library;   // "cublas" or "cublaslt"
    int64_t m = 0, n = 0, k = 0;
    double ms = 0;
    double tflops = 0;
};

struct MeasuredPeaks {
    double memory_bandwidth_gbps = 0; // copy kernel: (read + write bytes) / time
    double fp32_tflops = 0;
    double tf32_tflops = 0;
    double fp16_tensor_tflops = 0;
    double bf16_tensor_tflops = 0;
    double launch_overhead_us = 0; // back-to-back empty kernels, per launch
    std::vector<GemmPoint> gemm;
};

// One layer of a measured network. Times are for the whole batch; a layer that runs no
// kernel (Flatten, Dropout at inference-free training set-ups, Identity) has measured=false.
struct LayerMeasurement {
    std::size_t index = 0; // into Network::layers of the measured network
    std::string name;
    std::string kind; // layerKindName()
    bool measured = false;
    double forward_ms = 0;
    double backward_data_ms = 0;   // 0 when the layer needs no data gradient
    double backward_filter_ms = 0; // weight (and bias) gradient; 0 without parameters
    double backward_ms = 0;        // data + filter
    std::string forward_algorithm; // cuDNN's choice, "" where not a convolution
    std::string backward_data_algorithm;
    std::string backward_filter_algorithm;
    int64_t workspace_bytes = 0; // the largest of the three chosen algorithms'
    std::string note;            // why a layer was approximated or skipped, "" normally
};

struct NetworkRun {
    std::string network; // id or path as given
    int64_t batch = 0;
    int64_t image = 0;     // 0: the network's own
    std::string precision; // "fp32", "tf32" or "amp"
    int64_t workspace_limit_bytes = 0;
    int warmup = 0;
    int repetitions = 0;
    std::vector<LayerMeasurement> layers;
    double forward_ms = 0; // sums over the layers
    double backward_ms = 0;
};

struct AllreducePoint {
    int64_t bytes = 0;
    double time_us = 0;
    double algbw_gbps = 0; // bytes / time
    double busbw_gbps = 0; // algbw * 2(n-1)/n (nccl-tests)
};

struct AllreduceRun {
    int ranks = 0;
    std::string dtype = "float";
    std::vector<AllreducePoint> points;
    double latency_us = 0;      // time of the smallest message
    double peak_busbw_gbps = 0; // the largest busbw seen
};

struct Measurement {
    int version = kMeasurementVersion;
    std::string tool;       // "iterscope-calibrate 0.1.0"
    std::string created;    // ISO 8601 UTC
    std::string profile_id; // id of the GPU profile written alongside, "" if none
    DeviceFacts device;
    MeasuredPeaks peaks;
    std::vector<NetworkRun> runs; // one per precision asked for
    std::optional<AllreduceRun> allreduce;
};

std::string measurementToJson(const Measurement& m); // pretty-printed
// Throws InputError("<name_for_errors>: <field>: <problem>") on anything malformed.
Measurement measurementFromJson(const std::string& text, const std::string& name_for_errors);
Measurement readMeasurementFile(const std::string& path);

// nccl-tests' bus-bandwidth factor for all-reduce, 2(n-1)/n: 0 for one rank, as there.
double allreduceBusFactor(int ranks);
AllreducePoint allreducePoint(int64_t bytes, double seconds, int ranks);

// Median of repeated timings; the calibrator's summary statistic (robust to a stray slow
// repetition). 0 for an empty list.
double medianOf(std::vector<double> values);

// Writes text to a file, throwing InputError naming the file when it cannot.
void writeTextFile(const std::string& path, const std::string& text);

} // namespace iterscope
