#include "util/printable.h"

#include <cstdint>

namespace iterscope {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (2 to 4 bytes), with its code point;
// 0 when the bytes there are not one (stray continuation, overlong form, surrogate, beyond
// U+10FFFF, cut short).
std::size_t utf8Sequence(std::string_view s, std::size_t i, uint32_t& cp) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    uint32_t min = 0;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1fU;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0fU;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07U;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xc0U) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3fU);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

void appendEscaped(std::string& out, unsigned char c) {
    static const char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 0x0f];
}

} // namespace

std::string printableText(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        if (c == '\n' || c == '\r' || c == '\t') {
            out += c == '\n' ? "\\n" : (c == '\r' ? "\\r" : "\\t");
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const std::size_t len = c >= 0x80 ? utf8Sequence(text, i, cp) : 0;
        // C1 controls (U+0080 to U+009F) are well-formed but steer terminals.
        if (len > 0 && cp >= 0xa0) {
            out.append(text.substr(i, len));
            i += len;
            continue;
        }
        const std::size_t n = len > 0 ? len : 1;
        for (std::size_t k = 0; k < n; ++k)
            appendEscaped(out, static_cast<unsigned char>(text[i + k]));
        i += n;
    }
    return out;
}

} // namespace iterscope
