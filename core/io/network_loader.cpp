#include "io/network_loader.h"

#include "io/caffe_reader.h"
#include "io/network_json.h"
#include "io/onnx_reader.h"
#include "network/zoo.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace iterscope {
namespace {

enum class Format { Onnx, Caffe, Json, Unknown };

const char* formatName(Format f) {
    switch (f) {
    case Format::Onnx:
        return "ONNX";
    case Format::Caffe:
        return "a Caffe prototxt";
    case Format::Json:
        return "an Iterscope network JSON";
    case Format::Unknown:
        break;
    }
    return "unknown";
}

Format formatFromExtension(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".onnx")
        return Format::Onnx;
    if (ext == ".prototxt" || ext == ".pbtxt")
        return Format::Caffe;
    if (ext == ".json")
        return Format::Json;
    return Format::Unknown;
}

// Guesses the format from the first bytes, so that a file whose content does not match its
// extension gets an error saying so instead of a parser's confusion.
Format sniff(const std::string& head) {
    std::size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (i == head.size())
        return Format::Unknown;
    if (head[i] == '{' || head[i] == '[')
        return Format::Json;
    bool printable = std::all_of(head.begin(), head.end(), [](unsigned char c) {
        return c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80;
    });
    if (printable &&
        (head.find("layer") != std::string::npos || head.find("input") != std::string::npos ||
         head.find("name") != std::string::npos || head[i] == '#'))
        return Format::Caffe;
    // ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
    if (static_cast<unsigned char>(head[0]) == 0x08)
        return Format::Onnx;
    return Format::Unknown;
}

Network readFile(const std::string& path, const LoadOptions& options) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(path + ": not a regular file");
    const Format by_extension = formatFromExtension(path);
    if (by_extension == Format::Unknown)
        throw InputError(path + ": unknown network file type (expected .onnx, .prototxt or .json)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot be opened for reading");
    std::string head(256, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.empty())
        throw InputError(path + ": the file is empty");
    const Format by_content = sniff(head);
    if (by_content != Format::Unknown && by_content != by_extension)
        throw InputError(path + ": the content looks like " + formatName(by_content) + ", not " +
                         formatName(by_extension) + " as the extension says");
    switch (by_extension) {
    case Format::Onnx:
        return readOnnxFile(path, options.batch, options.warnings);
    case Format::Caffe:
        return readCaffeFile(path);
    case Format::Json:
        return readNetworkJsonFile(path);
    case Format::Unknown:
        break;
    }
    throw InputError(path + ": unknown network file type");
}

} // namespace

void setInputImageSize(Network& net, int64_t image) {
    if (image <= 0)
        throw InputError("image size must be positive");
    if (net.input.size() != 3)
        throw InputError("network '" + net.name + "': --image needs a CxHxW input");
    net.input[1] = image;
    net.input[2] = image;
}

std::shared_ptr<const AnalyzedNetwork> loadNetwork(const std::string& id_or_path,
                                                   const LoadOptions& options) {
    if (options.image < 0 || options.image > 65536)
        throw InputError("image size " + std::to_string(options.image) + " is outside 1..65536");
    auto result = std::make_shared<AnalyzedNetwork>();
    result->source = id_or_path;
    if (auto zoo = zooNetwork(id_or_path, options.image)) {
        result->network = std::move(*zoo);
    } else {
        std::error_code ec;
        if (!std::filesystem::exists(id_or_path, ec))
            throw InputError("unknown network '" + id_or_path +
                             "': neither a built-in id (see 'iterscope-cli networks') nor a file");
        // Collected whatever the caller asked for: the network carries them to predict.
        LoadOptions collecting = options;
        collecting.warnings = &result->import_warnings;
        result->network = readFile(id_or_path, collecting);
        if (options.warnings)
            options.warnings->insert(options.warnings->end(), result->import_warnings.begin(),
                                     result->import_warnings.end());
        if (options.image > 0) {
            try {
                setInputImageSize(result->network, options.image);
            } catch (const InputError& e) {
                rethrowWithContext(id_or_path, e);
            }
        }
    }
    try {
        result->analysis = analyze(result->network);
    } catch (const InputError& e) {
        rethrowWithContext(id_or_path, e);
    }
    return result;
}

} // namespace iterscope
