#include "hardware/user_profiles.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"
#include "util/error.h"
#include "util/text_file.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace iterscope {

namespace {

std::string envOrEmpty(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? std::string(value) : std::string();
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

const char* kindWord(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? "GPU" : "system";
}

// The id the text declares, after every check the loader makes.
std::string checkedId(ProfileKind kind, const std::string& text, const std::string& file) {
    return kind == ProfileKind::Gpu ? parseGpuProfile(text, file).id
                                    : parseSystemProfile(text, file).id;
}

} // namespace

const char* profileSubdir(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? "gpus" : "systems";
}

std::string userProfilesDir() {
    if (std::string dir = envOrEmpty("ITERSCOPE_USER_PROFILES"); !dir.empty())
        return dir;
    // XDG Base Directory: a relative $XDG_DATA_HOME is invalid and must be ignored.
    if (const std::string data = envOrEmpty("XDG_DATA_HOME"); fs::path(data).is_absolute())
        return (fs::path(data) / "iterscope" / "profiles").string();
    if (const std::string home = envOrEmpty("HOME"); fs::path(home).is_absolute())
        return (fs::path(home) / ".local" / "share" / "iterscope" / "profiles").string();
    return {};
}

std::string userProfilePath(ProfileKind kind, const std::string& id) {
    const std::string dir = userProfilesDir();
    if (dir.empty())
        throw InputError("no folder for your own profiles: neither ITERSCOPE_USER_PROFILES, "
                         "XDG_DATA_HOME nor HOME is set");
    return (fs::path(dir) / profileSubdir(kind) / (id + ".json")).string();
}

bool isShippedProfile(ProfileKind kind, const std::string& id) {
    return profile_json::isValidId(id) &&
           isFile(fs::path(profilesDir()) / profileSubdir(kind) / (id + ".json"));
}

bool isUserProfile(ProfileKind kind, const std::string& id) {
    return profile_json::isValidId(id) && !userProfilesDir().empty() &&
           !isShippedProfile(kind, id) && isFile(userProfilePath(kind, id));
}

std::string clashMessage(ProfileKind kind, const std::string& id) {
    return userProfilePath(kind, id) + ": id " + profile_json::quoted(id) + " is a shipped " +
           kindWord(kind) + " profile's (" +
           (fs::path(profilesDir()) / profileSubdir(kind) / (id + ".json")).string() +
           "); give yours another id and file name";
}

std::string checkUserProfile(ProfileKind kind, const std::string& text,
                             const std::string& replacing, const std::string& file) {
    const std::string id = checkedId(kind, text, file);
    if (isShippedProfile(kind, id))
        throw InputError(clashMessage(kind, id));
    if (id != replacing && isFile(userProfilePath(kind, id)))
        throw InputError(userProfilePath(kind, id) + ": you have a " + std::string(kindWord(kind)) +
                         " profile with id " + profile_json::quoted(id) +
                         " already; give this one another id");
    return id;
}

std::string saveUserProfile(ProfileKind kind, const std::string& text,
                            const std::string& replacing) {
    const std::string id =
        checkUserProfile(kind, text, replacing, std::string("your ") + kindWord(kind) + " profile");
    const std::string path = userProfilePath(kind, id);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec)
        throw InputError(fs::path(path).parent_path().string() +
                         ": cannot create the folder: " + ec.message());
    writeFileAtomically(path, text);
    if (!replacing.empty() && replacing != id && isUserProfile(kind, replacing))
        removeUserProfile(kind, replacing);
    return path;
}

void removeUserProfile(ProfileKind kind, const std::string& id) {
    if (isShippedProfile(kind, id))
        throw InputError(profile_json::quoted(id) + ": a shipped " + std::string(kindWord(kind)) +
                         " profile, not yours to delete");
    if (!isUserProfile(kind, id))
        throw InputError(profile_json::quoted(id) + ": no such " + std::string(kindWord(kind)) +
                         " profile of yours in " +
                         (fs::path(userProfilesDir()) / profileSubdir(kind)).string());
    std::error_code ec;
    if (!fs::remove(userProfilePath(kind, id), ec) || ec)
        throw InputError(userProfilePath(kind, id) +
                         ": cannot delete: " + (ec ? ec.message() : std::string("not there")));
}

} // namespace iterscope
