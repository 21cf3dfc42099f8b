#include "util/text_file.h"

#include "util/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace iterscope {

std::uintmax_t checkReadableFile(const std::string& path, std::uintmax_t max_bytes,
                                 const char* what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        throw InputError(path + ": no such file");
    if (!fs::is_regular_file(status))
        throw InputError(path + ": not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw InputError(path + ": cannot be read (" + ec.message() + ")");
    if (size > max_bytes)
        throw InputError(path + ": " + std::to_string(size) + " bytes, larger than the " +
                         std::to_string(max_bytes) + " allowed for " + what);
    return size;
}

std::string readBoundedFile(const std::string& path, std::uintmax_t max_bytes, const char* what) {
    const std::uintmax_t size = checkReadableFile(path, max_bytes, what);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot be opened for reading");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size)
        throw InputError(path + ": read failed");
    return text;
}

void writeFileAtomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw InputError(tmp + ": cannot be opened for writing (" + std::strerror(errno) + ")");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (!out) {
            const std::string reason = std::strerror(errno);
            std::remove(tmp.c_str());
            throw InputError(tmp + ": write failed (" + reason + ")");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(tmp.c_str());
        throw InputError(path + ": cannot replace it with " + tmp + " (" + reason + ")");
    }
}

} // namespace iterscope
