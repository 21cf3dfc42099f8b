// ONNX importer (opsets 7-17), on Debian's libonnx protobuf classes.
#pragma once

#include "network/network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iterscope {

// batch fills a symbolic batch dimension. Unknown ops whose shape follows become Identity
// layers and are listed in *warnings. Throws InputError naming the file, node and problem.
Network readOnnxFile(const std::string& path, int64_t batch = 1,
                     std::vector<std::string>* warnings = nullptr);
Network readOnnxBytes(const std::string& bytes, const std::string& name_for_errors,
                      int64_t batch = 1, std::vector<std::string>* warnings = nullptr);

} // namespace iterscope
