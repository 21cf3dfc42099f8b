#include "trace/trace_input.h"

#include "util/error.h"
#include "util/text_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace iterscope {

namespace {
constexpr std::size_t kChunkBytes = 256 * 1024;
// zlib's window bits plus 16: expect a gzip header and trailer, not a raw zlib stream.
constexpr int kGzipWindowBits = 15 + 16;

std::string mib(std::uint64_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}
} // namespace

struct TraceInputBuffer::Inflater {
    z_stream z{};
    bool initialised = false;
    ~Inflater() {
        if (initialised)
            inflateEnd(&z);
    }
};

TraceInputBuffer::TraceInputBuffer(std::string file, std::uint64_t max_text_bytes)
    : m_file(std::move(file))
    , m_max_text_bytes(max_text_bytes)
    , m_in(kChunkBytes)
    , m_out(kChunkBytes) {}

TraceInputBuffer::~TraceInputBuffer() {
    if (m_stream)
        std::fclose(m_stream);
}

std::unique_ptr<TraceInputBuffer> TraceInputBuffer::openFile(const std::string& path,
                                                             std::uint64_t max_text_bytes) {
    checkReadableFile(path, max_text_bytes, "a trace");
    std::unique_ptr<TraceInputBuffer> buffer(new TraceInputBuffer(path, max_text_bytes));
    buffer->m_stream = std::fopen(path.c_str(), "rb");
    if (!buffer->m_stream)
        throw InputError(path + ": cannot be opened for reading (" + std::strerror(errno) + ")");
    return buffer;
}

std::unique_ptr<TraceInputBuffer> TraceInputBuffer::fromMemory(std::string_view bytes,
                                                               std::string file,
                                                               std::uint64_t max_text_bytes) {
    std::unique_ptr<TraceInputBuffer> buffer(new TraceInputBuffer(std::move(file), max_text_bytes));
    buffer->m_memory = bytes;
    return buffer;
}

void TraceInputBuffer::fail(const std::string& problem) const {
    throw InputError(m_file + ": " + problem);
}

bool TraceInputBuffer::refillRaw() {
    // Unconsumed bytes move to the front so inflate() sees them before the new ones.
    const std::size_t kept = m_in_end - m_in_pos;
    if (kept > 0 && m_in_pos > 0)
        std::memmove(m_in.data(), m_in.data() + m_in_pos, kept);
    m_in_pos = 0;
    m_in_end = kept;
    if (m_raw_done)
        return false;
    std::size_t got = 0;
    const std::size_t room = m_in.size() - m_in_end;
    if (m_stream) {
        got = std::fread(m_in.data() + m_in_end, 1, room, m_stream);
        if (got < room) {
            if (std::ferror(m_stream))
                fail(std::string("read failed (") + std::strerror(errno) + ")");
            m_raw_done = true;
        }
    } else {
        got = std::min(room, m_memory.size() - m_memory_pos);
        std::memcpy(m_in.data() + m_in_end, m_memory.data() + m_memory_pos, got);
        m_memory_pos += got;
        if (m_memory_pos == m_memory.size())
            m_raw_done = true;
    }
    m_in_end += got;
    return got > 0;
}

void TraceInputBuffer::startInflate() {
    if (!m_inflater)
        m_inflater = std::make_unique<Inflater>();
    z_stream& z = m_inflater->z;
    if (!m_inflater->initialised) {
        if (inflateInit2(&z, kGzipWindowBits) != Z_OK)
            fail("cannot start gzip decompression");
        m_inflater->initialised = true;
    } else if (inflateReset(&z) != Z_OK) {
        fail("cannot restart gzip decompression");
    }
    m_inflating = true;
}

TraceInputBuffer::int_type TraceInputBuffer::underflow() {
    if (gptr() < egptr())
        return traits_type::to_int_type(*gptr());
    if (!m_detected) {
        m_detected = true;
        while (m_in_end < 2 && refillRaw()) {
        }
        m_gzip = m_in_end >= 2 && static_cast<unsigned char>(m_in[0]) == 0x1f &&
                 static_cast<unsigned char>(m_in[1]) == 0x8b;
        if (m_gzip)
            startInflate();
    }
    if (!m_gzip) {
        if (m_in_pos == m_in_end && !refillRaw())
            return traits_type::eof();
        char* begin = m_in.data() + m_in_pos;
        const std::size_t n = m_in_end - m_in_pos;
        m_in_pos = m_in_end;
        m_text_bytes += n;
        if (m_text_bytes > m_max_text_bytes)
            fail("larger than the " + mib(m_max_text_bytes) + " a trace may be");
        setg(begin, begin, begin + n);
        return traits_type::to_int_type(*begin);
    }
    z_stream& z = m_inflater->z;
    for (;;) {
        if (!m_inflating) {
            // Another gzip member may follow (concatenated .gz files); anything else after
            // the last member is ignored, as gzip -d does.
            if (m_in_end - m_in_pos < 2)
                refillRaw();
            if (m_in_end - m_in_pos >= 2 && static_cast<unsigned char>(m_in[m_in_pos]) == 0x1f &&
                static_cast<unsigned char>(m_in[m_in_pos + 1]) == 0x8b)
                startInflate();
            else
                return traits_type::eof();
        }
        if (m_in_pos == m_in_end && !refillRaw())
            fail("truncated gzip data (the file ends inside the compressed stream)");
        z.next_in = reinterpret_cast<Bytef*>(m_in.data() + m_in_pos);
        z.avail_in = static_cast<uInt>(m_in_end - m_in_pos);
        z.next_out = reinterpret_cast<Bytef*>(m_out.data());
        z.avail_out = static_cast<uInt>(m_out.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        m_in_pos = m_in_end - z.avail_in;
        const std::size_t produced = m_out.size() - z.avail_out;
        if (rc == Z_STREAM_END)
            m_inflating = false;
        else if (rc == Z_BUF_ERROR && produced == 0) {
            // No progress: inflate needs more input than there is.
            if (m_raw_done && m_in_pos == m_in_end)
                fail("truncated gzip data (the file ends inside the compressed stream)");
            refillRaw();
            continue;
        } else if (rc != Z_OK) {
            fail(std::string("corrupt gzip data (") + (z.msg ? z.msg : "inflate failed") + ")");
        }
        if (produced == 0)
            continue;
        m_text_bytes += produced;
        if (m_text_bytes > m_max_text_bytes)
            fail("inflates to more than the " + mib(m_max_text_bytes) + " a trace may be");
        setg(m_out.data(), m_out.data(), m_out.data() + produced);
        return traits_type::to_int_type(m_out[0]);
    }
}

} // namespace iterscope
