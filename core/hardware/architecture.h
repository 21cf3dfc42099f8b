// Facts that hold for every GPU of an architecture (profiles/architectures.json): how close
// the vendor libraries get to the tensor-core and DRAM peaks, and what kernels built for
// an older generation lose. Applied to a GpuProfile when it is loaded.
#pragma once

#include "hardware/hardware.h"

#include <string>
#include <vector>

namespace iterscope {

struct ArchitectureFacts {
    double compute_capability = 0;
    double tensor_gemm_efficiency = 0.85;
    double tf32_gemm_efficiency = 0.85;
    double dram_efficiency = 0.9;
    double legacy_tensor_fraction = 1.0;
};

// The facts of `architecture` ("Hopper") from profilesDir()/architectures.json, read once;
// false when the file or the architecture is not there. A malformed file is an InputError
// naming it.
bool findArchitecture(const std::string& architecture, ArchitectureFacts& out);

// The architectures profilesDir()/architectures.json knows, in its order of keys (sorted);
// empty without the file.
std::vector<std::string> knownArchitectures();

// Copies the architecture's facts into `gpu` (those of gpu.like_architecture when it is set). A GPU
// whose file gives no compute capability takes its architecture's.
void applyArchitecture(GpuProfile& gpu);

} // namespace iterscope
