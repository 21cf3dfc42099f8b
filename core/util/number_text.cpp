#include "util/number_text.h"

#include <cstdio>

namespace iterscope {

std::string fixedDecimals(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

} // namespace iterscope
