// The bytes of a profiler trace, plain or gzip-compressed, as a stream that is never held
// whole: a 50 MB trace is several hundred MB of JSON once inflated, and a crafted .gz can
// inflate to anything, so the reader sees the text a buffer at a time and stops at a limit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace iterscope {

// The most text a trace may inflate to; past it reading stops with an InputError.
inline constexpr std::uint64_t kMaxTraceTextBytes = std::uint64_t{4} << 30;

// A streambuf over a file or a block of memory that inflates gzip data (every member of a
// multi-member file) and passes anything else through. Errors (a truncated or corrupt .gz,
// text past `max_text_bytes`, a read error) throw InputError naming `file` from underflow(),
// so they reach the JSON reader's caller, never a half-parsed result.
class TraceInputBuffer : public std::streambuf {
  public:
    // Throws InputError when `path` is missing, not a regular file or cannot be opened.
    static std::unique_ptr<TraceInputBuffer>
    openFile(const std::string& path, std::uint64_t max_text_bytes = kMaxTraceTextBytes);
    // `bytes` must outlive the buffer.
    static std::unique_ptr<TraceInputBuffer>
    fromMemory(std::string_view bytes, std::string file,
               std::uint64_t max_text_bytes = kMaxTraceTextBytes);
    ~TraceInputBuffer() override;
    TraceInputBuffer(const TraceInputBuffer&) = delete;
    TraceInputBuffer& operator=(const TraceInputBuffer&) = delete;

    bool compressed() const { return m_gzip; }
    std::uint64_t textBytes() const { return m_text_bytes; }
    const std::string& file() const { return m_file; }

  protected:
    int_type underflow() override;

  private:
    TraceInputBuffer(std::string file, std::uint64_t max_text_bytes);
    // Raw bytes into m_in; false at the end of the source.
    bool refillRaw();
    void startInflate();
    [[noreturn]] void fail(const std::string& problem) const;

    std::string m_file;
    std::uint64_t m_max_text_bytes;
    std::FILE* m_stream = nullptr;
    std::string_view m_memory;
    std::size_t m_memory_pos = 0;
    std::vector<char> m_in, m_out;
    std::size_t m_in_pos = 0, m_in_end = 0;
    bool m_raw_done = false;
    bool m_detected = false; // gzip or plain, decided on the first two bytes
    bool m_gzip = false;
    bool m_inflating = false; // inside a gzip member
    struct Inflater;
    std::unique_ptr<Inflater> m_inflater;
    std::uint64_t m_text_bytes = 0;
};

} // namespace iterscope
