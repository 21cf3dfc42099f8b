#include "io/caffe_text.h"

#include "util/error.h"

#include <cctype>

namespace iterscope::caffe_text {
namespace {

bool isNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Numbers, identifiers and enum values: everything up to a delimiter.
bool isScalarChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
           c == '-';
}

std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

class Parser {
  public:
    Parser(const std::string& text, const std::string& context)
        : s_(text)
        , context_(context) {}

    Document run() {
        Document doc;
        doc.messages.emplace_back();
        // Explicit stack of open messages and their closing brackets: no recursion.
        std::vector<std::size_t> open{0};
        std::vector<char> closers;
        for (;;) {
            skipSpace();
            if (pos_ >= s_.size()) {
                if (!closers.empty())
                    fail(open_lines_.back(), "unbalanced braces: the message opened here is "
                                             "never closed");
                return doc;
            }
            const char c = s_[pos_];
            if (c == '}' || c == '>') {
                if (closers.empty())
                    fail(line_, std::string("unbalanced braces: '") + c + "' closes nothing");
                if (c != closers.back())
                    fail(line_, std::string("'") + c + "' closes a message opened with '" +
                                    (closers.back() == '}' ? '{' : '<') + "'");
                ++pos_;
                closers.pop_back();
                open.pop_back();
                open_lines_.pop_back();
                skipSeparator();
                continue;
            }
            if (!isNameStart(c))
                fail(line_, "expected a field name, found " + printable(c));
            Field field;
            field.line = line_;
            while (pos_ < s_.size() && isNameChar(s_[pos_]))
                field.name += s_[pos_++];
            skipSpace();
            const bool colon = pos_ < s_.size() && s_[pos_] == ':';
            if (colon) {
                ++pos_;
                skipSpace();
            }
            if (pos_ >= s_.size())
                fail(line_, "field '" + field.name + "' has no value");
            const char v = s_[pos_];
            if (v == '{' || v == '<') {
                if (static_cast<int>(closers.size()) >= kMaxDepth)
                    fail(line_,
                         "messages nest deeper than " + std::to_string(kMaxDepth) + " levels");
                ++pos_;
                field.is_message = true;
                field.message = doc.messages.size();
                doc.messages.emplace_back();
                doc.messages[open.back()].fields.push_back(std::move(field));
                open.push_back(doc.messages.size() - 1);
                closers.push_back(v == '{' ? '}' : '>');
                open_lines_.push_back(line_);
                continue;
            }
            if (!colon)
                fail(line_, "expected ':' or '{' after field '" + field.name + "'");
            if (v == '[') {
                ++pos_;
                skipSpace();
                if (pos_ < s_.size() && s_[pos_] == ']') {
                    ++pos_;
                } else {
                    for (;;) {
                        Field item = field;
                        item.line = line_;
                        scalar(item);
                        doc.messages[open.back()].fields.push_back(std::move(item));
                        skipSpace();
                        if (pos_ < s_.size() && s_[pos_] == ',') {
                            ++pos_;
                            skipSpace();
                            continue;
                        }
                        if (pos_ < s_.size() && s_[pos_] == ']') {
                            ++pos_;
                            break;
                        }
                        fail(line_, "expected ',' or ']' in the list of '" + field.name + "'");
                    }
                }
            } else {
                scalar(field);
                doc.messages[open.back()].fields.push_back(std::move(field));
            }
            skipSeparator();
        }
    }

  private:
    [[noreturn]] void fail(int line, const std::string& problem) const {
        throw InputError(context_ + ":" + std::to_string(line) + ": " + problem);
    }

    void skipSpace() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (c == '#') {
                while (pos_ < s_.size() && s_[pos_] != '\n')
                    ++pos_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
            } else {
                return;
            }
        }
    }

    void skipSeparator() {
        skipSpace();
        if (pos_ < s_.size() && (s_[pos_] == ';' || s_[pos_] == ','))
            ++pos_;
    }

    void scalar(Field& field) {
        skipSpace();
        if (pos_ >= s_.size())
            fail(line_, "field '" + field.name + "' has no value");
        const char c = s_[pos_];
        if (c == '"' || c == '\'') {
            field.quoted = true;
            // Adjacent literals concatenate, as in protobuf's text format.
            while (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
                field.value += quoted();
                skipSpace();
            }
            return;
        }
        if (!isScalarChar(c))
            fail(line_, "field '" + field.name + "': expected a value, found " + printable(c));
        while (pos_ < s_.size() && isScalarChar(s_[pos_]))
            field.value += s_[pos_++];
    }

    std::string quoted() {
        const char quote = s_[pos_++];
        const int start_line = line_;
        std::string out;
        while (pos_ < s_.size() && s_[pos_] != quote) {
            char c = s_[pos_++];
            if (c == '\n')
                fail(start_line, "unterminated string");
            if (c == '\\') {
                if (pos_ >= s_.size())
                    break;
                const char e = s_[pos_++];
                switch (e) {
                case 'n':
                    c = '\n';
                    break;
                case 't':
                    c = '\t';
                    break;
                case 'r':
                    c = '\r';
                    break;
                case '0':
                    c = '\0';
                    break;
                default:
                    c = e; // \\, \", \' and anything else stand for themselves
                }
            }
            out += c;
        }
        if (pos_ >= s_.size())
            fail(start_line, "unterminated string");
        ++pos_;
        return out;
    }

    const std::string& s_;
    const std::string& context_;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::vector<int> open_lines_;
};

} // namespace

const Field* Document::find(const Message& m, const std::string& name) const {
    for (const Field& f : m.fields) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

std::vector<const Field*> Document::all(const Message& m, const std::string& name) const {
    std::vector<const Field*> out;
    for (const Field& f : m.fields) {
        if (f.name == name)
            out.push_back(&f);
    }
    return out;
}

Document parse(const std::string& text, const std::string& context) {
    return Parser(text, context).run();
}

} // namespace iterscope::caffe_text
