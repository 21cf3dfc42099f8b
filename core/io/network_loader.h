// One entry point for every network source: a zoo id or a path to .onnx, .prototxt or
// .json. Errors name the file and what is wrong.
#pragma once

#include "model/scenario.h"

#include <cstdint>
#include <memory>
#include <string>

namespace iterscope {

struct LoadOptions {
    int64_t image = 0; // square input size override; 0 keeps the network's own
    int64_t batch = 1; // fills a symbolic batch dimension in imported files
    std::vector<std::string>* warnings = nullptr; // e.g. unknown ONNX ops imported as identity
};

// Loads, validates and analyzes. Throws InputError("<file or id>: <problem>").
std::shared_ptr<const AnalyzedNetwork> loadNetwork(const std::string& id_or_path,
                                                   const LoadOptions& options = {});

// Replaces the spatial size of the input (H and W of a CHW input).
void setInputImageSize(Network& net, int64_t image);

} // namespace iterscope
