// Runs body(i) for every i in [0, count) on up to `jobs` threads, the calling thread among
// them, each index exactly once. A body that writes only what belongs to its index gives
// the same answer whatever `jobs` is. An exception from a body does not stop the others; the
// first one's message comes back as an InputError once every thread has finished.
#pragma once

#include "util/error.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace iterscope {

template <typename Body> void parallelFor(std::size_t count, int jobs, Body body) {
    std::atomic<std::size_t> next{0};
    std::mutex error_mutex;
    std::string error;
    auto worker = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                body(i);
            } catch (const std::exception& e) {
                std::lock_guard lock(error_mutex);
                if (error.empty())
                    error = e.what();
            }
        }
    };
    const std::size_t threads_wanted =
        std::min(static_cast<std::size_t>(std::max(jobs, 1)), std::max<std::size_t>(count, 1));
    std::vector<std::thread> threads;
    for (std::size_t j = 1; j < threads_wanted; ++j)
        threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
        t.join();
    if (!error.empty())
        throw InputError(error);
}

} // namespace iterscope
