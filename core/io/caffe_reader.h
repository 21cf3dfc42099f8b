// Caffe .prototxt importer (layer {} and legacy layers {}), TRAIN phase.
#pragma once

#include "network/network.h"

#include <string>

namespace iterscope {

Network readCaffeFile(const std::string& path);
Network readCaffeText(const std::string& text, const std::string& name_for_errors);

} // namespace iterscope
