// Built-in networks, by id (DESIGN.md, ../shared/validation/README.md for definitions).
#pragma once

#include "network/network.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

// Ids in a stable order: "alexnet", "alexnet-tf", ..., "squeezenet1.0".
const std::vector<std::string>& zooIds();

// The network at the given square input size; image 0 means the network's own default
// (224, 227 or 299). nullopt for an unknown id.
std::optional<Network> zooNetwork(std::string_view id, int64_t image = 0);

// The default input size of a zoo network, 0 for an unknown id.
int64_t zooDefaultImage(std::string_view id);

} // namespace iterscope
