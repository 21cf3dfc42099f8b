#include "io/onnx_reader.h"

#include "io/onnx_importer.h"
#include "io/onnx_model.h"
#include "util/error.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace iterscope {
namespace {

Network importModel(const onnx_import::Model& model, const std::string& context, int64_t batch,
                    std::vector<std::string>* warnings) {
    if (batch <= 0)
        throw InputError(context + ": batch " + std::to_string(batch) + " is not positive");
    onnx_import::Importer importer(model, context, batch, warnings);
    return importer.run();
}

// Closes the descriptor on every path out, exceptions included.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

Network readOnnxFile(const std::string& path, int64_t batch, std::vector<std::string>* warnings) {
    Fd file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file.fd < 0)
        throw InputError(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file");
    // Reading through a file stream lets large initializers be skipped with a seek rather
    // than loaded: a model with embedded weights never sits in memory whole.
    google::protobuf::io::FileInputStream stream(file.fd);
    const onnx_import::Model model = onnx_import::parseModel(stream, st.st_size, path);
    if (stream.GetErrno() != 0)
        throw InputError(path + ": read error: " + std::strerror(stream.GetErrno()));
    Network net = importModel(model, path, batch, warnings);
    // Exporters name every graph alike (PyTorch: "torch_jit", "main_graph"): the file's
    // name says which network it is.
    static const char* const kGenericNames[] = {
        "", "onnx", "graph", "main_graph", "torch_jit", "torch-jit-export", "tf2onnx"};
    for (const char* generic : kGenericNames)
        if (net.name == generic) {
            net.name = std::filesystem::path(path).stem().string();
            break;
        }
    return net;
}

Network readOnnxBytes(const std::string& bytes, const std::string& name_for_errors, int64_t batch,
                      std::vector<std::string>* warnings) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
        throw InputError(name_for_errors + ": larger than 2 GB, the protobuf limit");
    google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
    const onnx_import::Model model =
        onnx_import::parseModel(stream, static_cast<int64_t>(bytes.size()), name_for_errors);
    return importModel(model, name_for_errors, batch, warnings);
}

} // namespace iterscope
