// Kernel times of the layer kinds transformers and modern CNNs add (docs/model.md, "Tensor
// layers"): batched GEMMs for attention's products and token-wise linears, on the same tile,
// wave and tensor-core model as convolutions; bandwidth-bound kernels for layer norm,
// reductions, slices and broadcasts. layerPasses() dispatches here.
#pragma once

#include "model/compute_model.h"

namespace iterscope {

// Whether tensorLayerPasses() times this layer rather than compute_model.cpp.
bool isTensorLayer(const Layer& layer);

LayerPasses tensorLayerPasses(const Layer& layer, const LayerCost& cost, const Dims& input,
                              int64_t batch, const ComputeRates& rates);

} // namespace iterscope
