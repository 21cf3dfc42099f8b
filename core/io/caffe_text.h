// A schema-free reader for protobuf's text format, as Caffe's .prototxt files use it.
//
// It produces a tree of fields (name, line, scalar text or nested message) that the Caffe
// reader interprets; no caffe.proto is needed. The parser is iterative with a bounded nesting
// depth, so hostile input cannot exhaust the stack, and every error carries a line number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iterscope::caffe_text {

inline constexpr int kMaxDepth = 32;

struct Field {
    std::string name;
    int line = 0;
    bool is_message = false;
    bool quoted = false;     // a string literal (as opposed to a number or identifier)
    std::string value;       // the scalar's text, unescaped when quoted
    std::size_t message = 0; // index into Document::messages when is_message
};

struct Message {
    std::vector<Field> fields;
};

struct Document {
    std::vector<Message> messages; // messages[0] is the root

    const Message& root() const { return messages.front(); }
    const Message& at(const Field& f) const { return messages[f.message]; }
    // The first field of that name, or nullptr.
    const Field* find(const Message& m, const std::string& name) const;
    std::vector<const Field*> all(const Message& m, const std::string& name) const;
};

// Throws InputError("<context>:<line>: <problem>").
Document parse(const std::string& text, const std::string& context);

} // namespace iterscope::caffe_text
