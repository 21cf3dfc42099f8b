// The minimal calibrator build leaves out the ONNX importer (it needs protobuf); loading
// an .onnx file there says so instead of failing to link.
#include "io/onnx_reader.h"

#include "util/error.h"

namespace iterscope {

Network readOnnxFile(const std::string& path, int64_t, std::vector<std::string>*) {
    throw InputError(path + ": this minimal iterscope-calibrate build cannot read ONNX files; "
                            "use a zoo id, a .prototxt or a .json network");
}

Network readOnnxBytes(const std::string&, const std::string& name_for_errors, int64_t,
                      std::vector<std::string>*) {
    throw InputError(name_for_errors + ": this minimal iterscope-calibrate build cannot read "
                                       "ONNX files");
}

} // namespace iterscope
