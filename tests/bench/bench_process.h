// What the benchmarks share: wall time, peak memory, and work run in a process of its own,
// so that what one measurement builds or reads does not count towards another's peak.
#pragma once

#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

inline double peakRssMb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // Linux reports KiB
}

inline double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `work` in a child process and waits for it; false when it failed.
template <class Work> bool inChild(Work&& work) {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        const int rc = work();
        std::fflush(stdout);
        std::_Exit(rc);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0)
        return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A whole command as a user runs it, its output discarded: wall time and the peak resident
// memory of that process from the kernel's accounting (wait4).
struct ProcessRun {
    bool ok = false;
    double seconds = 0, peak_rss_mb = 0;
};

inline ProcessRun runProgram(const char* program, std::vector<const char*> args) {
    std::fflush(stdout);
    args.insert(args.begin(), program);
    args.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
        if (!std::freopen("/dev/null", "w", stdout))
            std::_Exit(2);
        execv(program, const_cast<char* const*>(args.data()));
        std::_Exit(127);
    }
    int status = 0;
    rusage usage{};
    ProcessRun run;
    if (child < 0 || wait4(child, &status, 0, &usage) < 0)
        return run;
    run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    run.seconds = secondsSince(start);
    run.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
    return run;
}
