// The project's own network format (docs/network-format.md): versioned JSON that
// expresses every layer kind and attribute of network/network.h.
#pragma once

#include "network/network.h"

#include <string>

namespace iterscope {

inline constexpr int kNetworkFormatVersion = 1;
inline constexpr const char* kNetworkFormatName = "iterscope-network"; // the "format" field

std::string networkToJson(const Network& net);    // pretty-printed
Network networkFromJson(const std::string& text); // throws InputError naming the layer

Network readNetworkJsonFile(const std::string& path); // errors prefixed with the path
} // namespace iterscope
