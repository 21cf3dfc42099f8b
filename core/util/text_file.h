// Reading a user's file whole, with the checks every reader needs: it exists, it is a regular
// file (a FIFO or a device would block or never end), and it is not absurdly large.
#pragma once

#include <cstdint>
#include <string>

namespace iterscope {

// That `path` is a regular file of at most `max_bytes` (a FIFO or a device would block or
// never end); returns its size. Throws InputError("<path>: <problem>"); `what` names the
// expected content in the size error ("a profile", "a network description").
std::uintmax_t checkReadableFile(const std::string& path, std::uintmax_t max_bytes,
                                 const char* what);

// The same checks, then the whole file.
std::string readBoundedFile(const std::string& path, std::uintmax_t max_bytes, const char* what);

// Writes PATH.tmp and renames it over PATH, so a reader never sees half a file and a failed
// write leaves an existing PATH as it was. Throws InputError naming the file.
void writeFileAtomically(const std::string& path, const std::string& text);

} // namespace iterscope
