// Errors that reach the user. Core code throws InputError for anything a user can cause
// (bad files, bad ids, absurd numbers); front ends catch it at one place and print
// "<program>: <what>" on one line with exit status 1. The message is made printable on the
// way in (bytes of a binary file become \xNN), so no front end can forget to.
#pragma once

#include "util/printable.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace iterscope {

class InputError : public std::runtime_error {
  public:
    explicit InputError(const std::string& what)
        : std::runtime_error(printableText(what)) {}
};

// Several problems found in one pass (every bad row of a file), one printable line each, so
// that a person fixes them all at once. A front end that can print several lines prints
// lines(); what() is the first with how many there are, for one that shows one line.
class InputErrors : public InputError {
  public:
    explicit InputErrors(const std::vector<std::string>& lines)
        : InputError(lines.empty()
                         ? std::string("no problem")
                         : lines.front() +
                               (lines.size() > 1
                                    ? " (and " + std::to_string(lines.size() - 1) + " more)"
                                    : std::string())) {
        for (const std::string& line : lines)
            m_lines.push_back(printableText(line));
    }
    const std::vector<std::string>& lines() const { return m_lines; }

  private:
    std::vector<std::string> m_lines;
};

// Prefixes an error with where it happened ("file.onnx: node 'conv1': ...").
[[noreturn]] inline void rethrowWithContext(const std::string& context, const std::exception& e) {
    throw InputError(context + ": " + e.what());
}

} // namespace iterscope
