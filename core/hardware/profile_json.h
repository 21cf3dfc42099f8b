// Strict reading of profile JSON files, shared by the GPU, system and software loaders.
// Every field is checked for type and range, and a field the schema does not know is an
// error: a typo in a hand-edited profile ("sm_cout") must not silently fall back to a
// default and change a prediction. Errors read "<file>: <field>: <problem>".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace iterscope::profile_json {

// Profiles are a few KB; anything far larger is not a profile, and reading it whole would
// be an unbounded allocation driven by the user's file.
inline constexpr std::uintmax_t kMaxFileBytes = 1 << 20;
inline constexpr int kMaxNesting = 16;

// Reads and parses a profile file. Not a regular file, too large, too deeply nested, not
// JSON or not an object at the top: InputError naming the file.
nlohmann::json readFile(const std::string& path);
// The same for text already in memory (the fuzz target); `file` names it in errors.
nlohmann::json parseText(const std::string& text, const std::string& file);

// An id is lower-case letters, digits, '.', '-' and '_' ("aws-p2.8xlarge").
bool isValidId(const std::string& id);

// "2026-11-09": a day written YYYY-MM-DD (prices carry the day they were read).
bool isIsoDate(const std::string& text);

// An argument with a '/' or ending in ".json" is a path; anything else is an id naming
// profilesDir()/<subdir>/<id>.json, else for gpus and systems the user's
// userProfilesDir()/<subdir>/<id>.json (user_profiles.h); an id both have is an error naming
// the user's file. `kind` ("GPU") words the error for an unknown id.
bool looksLikePath(const std::string& id_or_path);
std::string resolve(const std::string& id_or_path, const std::string& subdir,
                    const std::string& kind);

// Ids of the *.json files in profilesDir()/<subdir> and, for gpus and systems, in the user's
// folder, sorted, each once; empty when there is none.
std::vector<std::string> listIds(const std::string& subdir);

// One JSON object being read field by field. Call finish() last: it rejects the fields
// nobody asked for.
class Fields {
  public:
    Fields(std::string file, const nlohmann::json& object, std::string prefix = {});

    // "format" must equal `format` and "version" be 1..max_version; returns the version.
    int header(const std::string& format, int max_version);

    bool has(const std::string& key) const;
    std::string text(const std::string& key, std::size_t max_length = 4096);
    std::string text(const std::string& key, const std::string& fallback,
                     std::size_t max_length = 4096);
    double number(const std::string& key, double min, double max);
    double number(const std::string& key, double min, double max, double fallback);
    int integer(const std::string& key, int min, int max);
    int integer(const std::string& key, int min, int max, int fallback);
    bool boolean(const std::string& key, bool fallback);
    // Null when absent and not required.
    const nlohmann::json* array(const std::string& key, bool required);
    const nlohmann::json* object(const std::string& key, bool required);

    // "<file>: <prefix><field>: <problem>".
    [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
    void finish() const;

    const std::string& file() const { return m_file; }
    std::string fieldName(const std::string& key) const { return m_prefix + key; }

  private:
    const nlohmann::json& require(const std::string& key);
    double checkedNumber(const std::string& key, const nlohmann::json& value, double min,
                         double max) const;
    int checkedInteger(const std::string& key, const nlohmann::json& value, int min, int max) const;

    std::string m_file;
    const nlohmann::json& m_object;
    std::string m_prefix;
    std::set<std::string> m_used;
};

// Quotes user text for an error message: bounded length, control bytes shown as '?'.
std::string quoted(const std::string& s);

} // namespace iterscope::profile_json
