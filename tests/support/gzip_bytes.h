// gzip in memory for tests of readers that take .gz files, and the fixture's text unzipped
// by zlib directly (not through the reader under test).
#pragma once

#include <zlib.h>

#include <stdexcept>
#include <string>

inline std::string gzipBytes(const std::string& text) {
    z_stream z{};
    // 15 window bits + 16: a gzip header and trailer, as gzip(1) writes.
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw std::runtime_error("deflate");
    return out;
}

inline std::string gunzipFile(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f)
        throw std::runtime_error("gzopen " + path);
    std::string text;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(f, buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<std::size_t>(n));
    gzclose(f);
    return text;
}
