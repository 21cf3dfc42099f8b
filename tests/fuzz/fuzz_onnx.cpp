// libFuzzer target for the ONNX importer: any bytes must give a Network or an InputError,
// never a crash, a hang or an unbounded allocation. Seeds: tests/fuzz/corpus/onnx/.
#include "io/onnx_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> warnings;
    try {
        const iterscope::Network net = iterscope::readOnnxBytes(bytes, "fuzz.onnx", 8, &warnings);
        iterscope::analyze(net);
    } catch (const iterscope::InputError&) {
        // the expected outcome for most inputs
    }
    return 0;
}
