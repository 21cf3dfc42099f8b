// libFuzzer target for the Caffe prototxt importer: any text must give a Network or an
// InputError, never a crash, a hang or deep recursion. Seeds: tests/fuzz/corpus/caffe/.
#include "io/caffe_reader.h"
#include "network/analysis.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const iterscope::Network net = iterscope::readCaffeText(text, "fuzz.prototxt");
        iterscope::analyze(net);
    } catch (const iterscope::InputError&) {
        // the expected outcome for most inputs
    }
    return 0;
}
