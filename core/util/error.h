// Errors that reach the user. Core code throws InputError for anything a user can cause
// (bad files, bad ids, absurd numbers); front ends catch it at one place and print
// "<program>: <what>" on one line with exit status 1. The message is made printable on the
// way in (bytes of a binary file become \xNN), so no front end can forget to.
#pragma once

#include "util/printable.h"

#include <stdexcept>
#include <string>

namespace iterscope {

class InputError : public std::runtime_error {
  public:
    explicit InputError(const std::string& what)
        : std::runtime_error(printableText(what)) {}
};

// Prefixes an error with where it happened ("file.onnx: node 'conv1': ...").
[[noreturn]] inline void rethrowWithContext(const std::string& context, const std::exception& e) {
    throw InputError(context + ": " + e.what());
}

} // namespace iterscope
