// Internals shared by the per-layer benchmarks (conv_bench.cpp, op_bench.cpp).
#pragma once

#include "cuda/cuda_util.h"
#include "cuda/kernels.h"
#include "cuda/layer_bench.h"
#include "network/analysis.h"
#include "network/network.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace iterscope::cuda {

void checkCudnn(cudnnStatus_t status, const char* call);
void checkCublas(cublasStatus_t status, const char* call);
#define ITERSCOPE_CUDNN(call) ::iterscope::cuda::checkCudnn((call), #call)
#define ITERSCOPE_CUBLAS(call) ::iterscope::cuda::checkCublas((call), #call)

// A layer this calibrator cannot time (too large for cuDNN's descriptors, a kind it does
// not run); the run records a note and goes on.
class Unmeasurable : public CudaError {
  public:
    using CudaError::CudaError;
};

// A batch of per-sample dims as the 4-D tensor cuDNN wants: CHW as is, a vector {F} as
// F x 1 x 1, anything else folded into channels.
struct Shape4 {
    int n = 1, c = 1, h = 1, w = 1;
    std::size_t elements() const {
        return static_cast<std::size_t>(n) * static_cast<std::size_t>(c) *
               static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
    }
};

// Throws Unmeasurable when a dimension or the element count leaves
// what cuDNN's int-based descriptors can describe.
Shape4 shapeOf(const Dims& per_sample, int64_t batch);

// RAII wrappers for the descriptors one benchmark needs.
struct TensorDesc {
    cudnnTensorDescriptor_t d = nullptr;
    TensorDesc();
    ~TensorDesc();
    TensorDesc(const TensorDesc&) = delete;
    TensorDesc& operator=(const TensorDesc&) = delete;
};

// Buffers, handles and settings for one network run. Buffers grow to the largest layer.
struct BenchContext {
    cudnnHandle_t cudnn = nullptr;
    cublasHandle_t cublas = nullptr;
    cudaStream_t stream = nullptr;
    LayerBenchOptions options;
    cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
    cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
    std::size_t element_bytes = 4;
    // x: input, y: output, dx/dy: their gradients, w/dw: weights, ws: workspace,
    // params: small per-channel vectors (batch-norm statistics, bias).
    DeviceBuffer x, y, dx, dy, w, dw, ws, params;
    // Measured configurations, so that ResNet's repeated blocks are timed once.
    std::map<std::string, LayerMeasurement> cache;

    BenchContext(const LayerBenchOptions& opts);
    ~BenchContext();
    BenchContext(const BenchContext&) = delete;
    BenchContext& operator=(const BenchContext&) = delete;

    // Grows a buffer for `elements` of the run's data type and fills it with data.
    void* data(DeviceBuffer& buffer, std::size_t elements, uint32_t seed);
    void setTensor(TensorDesc& desc, const Shape4& s) const;
    double time(const std::function<void()>& launch) const;
};

LayerMeasurement benchConvolution(BenchContext& ctx, const Layer& layer, const Dims& input,
                                  const LayerCost& cost);
LayerMeasurement benchFullyConnected(BenchContext& ctx, const Layer& layer, const Dims& input,
                                     const LayerCost& cost);
// Every other kind with kernels: batch norm, scale, activation, pooling, LRN, softmax,
// element-wise, concat, dropout, and copies for transpose/pad.
LayerMeasurement benchOther(BenchContext& ctx, const Network& net, const NetworkAnalysis& analysis,
                            std::size_t index);

} // namespace iterscope::cuda
