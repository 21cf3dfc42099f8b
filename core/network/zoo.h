// Built-in networks, by id (DESIGN.md, ../shared/validation/README.md for definitions).
#pragma once

#include "network/network.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

// Ids in a stable order, grouped by family: "alexnet", "alexnet-tf", ..., "swin-t".
const std::vector<std::string>& zooIds();

// The family an id belongs to ("ResNet", "Vision Transformer"); empty for an unknown id.
// Ids of one family are adjacent in zooIds().
std::string_view zooFamily(std::string_view id);

// The network at the given square input size; image 0 means the network's own default
// (224, 227, 299, 380 or 384). nullopt for an unknown id.
std::optional<Network> zooNetwork(std::string_view id, int64_t image = 0);

// The default input size of a zoo network, 0 for an unknown id.
int64_t zooDefaultImage(std::string_view id);

} // namespace iterscope
