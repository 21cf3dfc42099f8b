// What the module's C entry points share: nothing may unwind through a C call, so every
// failure becomes the error text the caller (iterscope-cli) prints and a return of 1.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>

namespace iterscope {

template <typename Render>
int guardedEntry(char* error, std::size_t error_size, bool complete, const char* incomplete,
                 Render&& render) {
    const auto fail = [&](const char* what) {
        if (error && error_size > 0)
            std::snprintf(error, error_size, "%s", what);
        return 1;
    };
    try {
        if (!complete)
            return fail(incomplete);
        render();
        return 0;
    } catch (const std::bad_alloc&) {
        return fail("out of memory");
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

} // namespace iterscope
