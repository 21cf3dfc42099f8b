// The user's own GPU and system profiles, kept apart from the shipped ones: a folder the
// editor writes into and every front end reads after the shipped folder (docs/profiles.md
// "Your own profiles"). A user id never shadows a shipped one: the clash is an error naming
// the user's file, so an edit of a copy can never silently lose to, or replace, the original.
#pragma once

#include <string>
#include <vector>

namespace iterscope {

enum class ProfileKind { Gpu, System };

// "gpus" or "systems": the subfolder of either profile folder.
const char* profileSubdir(ProfileKind kind);

// $ITERSCOPE_USER_PROFILES when set and not empty (tests point it at a temporary folder);
// else $XDG_DATA_HOME/iterscope/profiles; else $HOME/.local/share/iterscope/profiles; empty
// when none of these is known. The folder need not exist.
std::string userProfilesDir();

// Where the user's profile of this id is or would be written.
std::string userProfilePath(ProfileKind kind, const std::string& id);

// Whether `id` names a profile in the user folder that no shipped profile shadows: what the
// GPU box marks as the user's and what the editor may change or delete.
bool isUserProfile(ProfileKind kind, const std::string& id);

// Whether a shipped profile (profilesDir()) has this id.
bool isShippedProfile(ProfileKind kind, const std::string& id);

// The one-line error for a user file whose id a shipped profile has, naming both files.
std::string clashMessage(ProfileKind kind, const std::string& id);

// Whether `text` may be saved as the user's profile: the loader's checks (the same as
// loading a file), then its id: one a shipped profile has is refused, and so is one other
// than `replacing` that the user folder has already (a new profile must not overwrite
// another one unasked). `replacing` is the id being edited, empty for a new profile; `file`
// names the text in errors. Returns the id; throws InputError with one line. The editor runs
// this on every keystroke, and saveUserProfile() again before it writes.
std::string checkUserProfile(ProfileKind kind, const std::string& text,
                             const std::string& replacing, const std::string& file);

// checkUserProfile(), then writes `text` to the user folder as <id>.json through a temporary
// file and a rename, creating the folder. An edit that renames removes the old file once the
// new one is written. Returns the written path. Throws InputError with one line.
std::string saveUserProfile(ProfileKind kind, const std::string& text,
                            const std::string& replacing = {});

// Deletes the user's profile `id`. Refuses a shipped id and one the user folder lacks.
void removeUserProfile(ProfileKind kind, const std::string& id);

} // namespace iterscope
