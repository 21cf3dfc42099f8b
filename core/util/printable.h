// Error lines quote bytes of the files they are about (a JSON parser's "last read: '...'",
// a layer name, a token); a binary file's bytes would reach the terminal raw. printableText
// keeps printable ASCII and well-formed UTF-8 text, and writes everything else as \xNN
// (\n, \r and \t as such), so an error stays one readable line.
#pragma once

#include <string>
#include <string_view>

namespace iterscope {

std::string printableText(std::string_view text);

} // namespace iterscope
