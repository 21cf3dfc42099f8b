#include "hardware/profile_json.h"

#include "hardware/profile_loader.h"
#include "hardware/user_profiles.h"
#include "util/error.h"
#include "util/text_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;
using nlohmann::json;

namespace iterscope::profile_json {

namespace {

std::string formatNumber(double v) {
    std::ostringstream out;
    out.precision(6);
    out << v;
    return out.str();
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; users need the rest.
std::string withoutExceptionTag(const std::string& what) {
    if (!what.empty() && what.front() == '[') {
        auto end = what.find("] ");
        if (end != std::string::npos)
            return what.substr(end + 2);
    }
    return what;
}

// Counted before parsing so that a file of a million '[' is refused in one linear pass,
// whatever the parser or the destructor of the parsed tree would do with it.
int maxNesting(const std::string& text) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            deepest = std::max(deepest, ++depth);
        else if (c == ']' || c == '}')
            --depth;
    }
    return deepest;
}

const char* typeName(const json& v) {
    if (v.is_boolean())
        return "a boolean";
    if (v.is_number())
        return "a number";
    if (v.is_string())
        return "a string";
    if (v.is_array())
        return "an array";
    if (v.is_object())
        return "an object";
    return "null";
}

} // namespace

std::string quoted(const std::string& s) {
    constexpr std::size_t kMax = 60;
    std::string out = "'";
    for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    }
    if (s.size() > kMax)
        out += "...";
    return out + "'";
}

json parseText(const std::string& text, const std::string& file) {
    if (text.size() > kMaxFileBytes)
        throw InputError(file + ": larger than " + std::to_string(kMaxFileBytes) +
                         " bytes, not a profile");
    if (maxNesting(text) > kMaxNesting)
        throw InputError(file + ": nested deeper than " + std::to_string(kMaxNesting) +
                         " levels, not a profile");
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(file + ": not valid JSON: " + withoutExceptionTag(e.what()));
    }
    if (!doc.is_object())
        throw InputError(file + ": the top level must be a JSON object, not " +
                         std::string(typeName(doc)));
    return doc;
}

json readFile(const std::string& path) {
    const std::string text = readBoundedFile(path, kMaxFileBytes, "a profile");
    return parseText(text, path);
}

bool isValidId(const std::string& id) {
    if (id.empty() || id.size() > 64 || id.front() == '.' || id.front() == '-')
        return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    });
}

bool isIsoDate(const std::string& s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
        if (s[i] < '0' || s[i] > '9')
            return false;
    const int month = (s[5] - '0') * 10 + (s[6] - '0');
    const int day = (s[8] - '0') * 10 + (s[9] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool looksLikePath(const std::string& id_or_path) {
    return id_or_path.find('/') != std::string::npos ||
           (id_or_path.size() > 5 && id_or_path.ends_with(".json"));
}

namespace {

void addIds(const fs::path& dir, std::vector<std::string>& ids) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if (p.extension() == ".json" && isValidId(p.stem().string()))
            ids.push_back(p.stem().string());
    }
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// The user folder holds hardware only: software profiles are fitted files passed by path.
std::optional<ProfileKind> userKind(const std::string& subdir) {
    if (subdir == profileSubdir(ProfileKind::Gpu))
        return ProfileKind::Gpu;
    if (subdir == profileSubdir(ProfileKind::System))
        return ProfileKind::System;
    return std::nullopt;
}

} // namespace

std::vector<std::string> listIds(const std::string& subdir) {
    std::vector<std::string> ids;
    addIds(fs::path(profilesDir()) / subdir, ids);
    if (const std::string user = userProfilesDir(); !user.empty() && userKind(subdir))
        addIds(fs::path(user) / subdir, ids);
    std::sort(ids.begin(), ids.end());
    // A user id that clashes with a shipped one is listed once: loading it says why.
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

std::string resolve(const std::string& id_or_path, const std::string& subdir,
                    const std::string& kind) {
    if (looksLikePath(id_or_path))
        return id_or_path;
    if (id_or_path.empty())
        throw InputError("empty " + kind + " id");
    const std::optional<ProfileKind> user_kind = userKind(subdir);
    const std::string user_dir = user_kind ? userProfilesDir() : std::string();
    if (isValidId(id_or_path)) {
        const fs::path shipped = fs::path(profilesDir()) / subdir / (id_or_path + ".json");
        const bool in_user = !user_dir.empty() && isFile(userProfilePath(*user_kind, id_or_path));
        if (isFile(shipped)) {
            if (in_user)
                throw InputError(clashMessage(*user_kind, id_or_path));
            return shipped.string();
        }
        if (in_user)
            return userProfilePath(*user_kind, id_or_path);
    }
    std::string known;
    for (const auto& id : listIds(subdir))
        known += (known.empty() ? "" : ", ") + id;
    std::string where = (fs::path(profilesDir()) / subdir).string();
    if (!user_dir.empty())
        where += " or " + (fs::path(user_dir) / subdir).string();
    throw InputError(quoted(id_or_path) + ": no such " + kind + " profile in " + where +
                     (known.empty() ? "" : " (known: " + known + ")"));
}

Fields::Fields(std::string file, const json& object, std::string prefix)
    : m_file(std::move(file))
    , m_object(object)
    , m_prefix(std::move(prefix)) {}

void Fields::fail(const std::string& field, const std::string& problem) const {
    throw InputError(m_file + ": " + m_prefix + field + ": " + problem);
}

bool Fields::has(const std::string& key) const {
    return m_object.contains(key);
}

const json& Fields::require(const std::string& key) {
    m_used.insert(key);
    auto it = m_object.find(key);
    if (it == m_object.end())
        fail(key, "missing (required)");
    return *it;
}

int Fields::header(const std::string& format, int max_version) {
    const std::string got = text("format", 64);
    if (got != format)
        fail("format", "expected \"" + format + "\", got " + quoted(got));
    return integer("version", 1, max_version);
}

std::string Fields::text(const std::string& key, std::size_t max_length) {
    const json& v = require(key);
    if (!v.is_string())
        fail(key, std::string("must be a string, not ") + typeName(v));
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > max_length)
        fail(key, "longer than " + std::to_string(max_length) + " characters");
    return s;
}

std::string Fields::text(const std::string& key, const std::string& fallback,
                         std::size_t max_length) {
    return has(key) ? text(key, max_length) : (m_used.insert(key), fallback);
}

double Fields::checkedNumber(const std::string& key, const json& v, double min, double max) const {
    if (!v.is_number())
        fail(key, std::string("must be a number, not ") + typeName(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max)
        fail(key, "must be between " + formatNumber(min) + " and " + formatNumber(max) + ", got " +
                      formatNumber(d));
    return d;
}

int Fields::checkedInteger(const std::string& key, const json& v, int min, int max) const {
    if (!v.is_number_integer())
        fail(key, std::string("must be an integer, not ") +
                      (v.is_number() ? "a fraction" : typeName(v)));
    // Range-check as double first: a huge unsigned value must not wrap when narrowed.
    const double d = checkedNumber(key, v, min, max);
    return static_cast<int>(d);
}

double Fields::number(const std::string& key, double min, double max) {
    return checkedNumber(key, require(key), min, max);
}

double Fields::number(const std::string& key, double min, double max, double fallback) {
    return has(key) ? number(key, min, max) : (m_used.insert(key), fallback);
}

int Fields::integer(const std::string& key, int min, int max) {
    return checkedInteger(key, require(key), min, max);
}

int Fields::integer(const std::string& key, int min, int max, int fallback) {
    return has(key) ? integer(key, min, max) : (m_used.insert(key), fallback);
}

bool Fields::boolean(const std::string& key, bool fallback) {
    if (!has(key)) {
        m_used.insert(key);
        return fallback;
    }
    const json& v = require(key);
    if (!v.is_boolean())
        fail(key, std::string("must be true or false, not ") + typeName(v));
    return v.get<bool>();
}

const json* Fields::array(const std::string& key, bool required) {
    if (!required && !has(key)) {
        m_used.insert(key);
        return nullptr;
    }
    const json& v = require(key);
    if (!v.is_array())
        fail(key, std::string("must be an array, not ") + typeName(v));
    return &v;
}

const json* Fields::object(const std::string& key, bool required) {
    if (!required && !has(key)) {
        m_used.insert(key);
        return nullptr;
    }
    const json& v = require(key);
    if (!v.is_object())
        fail(key, std::string("must be an object, not ") + typeName(v));
    return &v;
}

void Fields::finish() const {
    for (const auto& [key, value] : m_object.items()) {
        (void)value;
        if (m_used.contains(key))
            continue;
        const std::string name = quoted(key);
        throw InputError(m_file + ": " + m_prefix + name.substr(1, name.size() - 2) +
                         ": unknown field (see docs/profiles.md)");
    }
}

} // namespace iterscope::profile_json
