// 64-bit arithmetic that reports overflow instead of wrapping: layer sizes come from
// untrusted files, and a silently wrapped count would be a wrong answer, not a crash.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>

namespace iterscope {

inline int64_t checkedMul(int64_t a, int64_t b, const char* what = "count") {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw InputError(std::string(what) + " overflows 64 bits");
    return r;
}

inline int64_t checkedAdd(int64_t a, int64_t b, const char* what = "count") {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw InputError(std::string(what) + " overflows 64 bits");
    return r;
}

} // namespace iterscope
