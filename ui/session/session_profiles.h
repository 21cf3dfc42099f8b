// The GPU and system profiles a session names: one the user deleted, or one made on another
// machine, must not make the session open half-way; the window asks first, as it does for a
// network file that moved.
#pragma once

#include "hardware/user_profiles.h"
#include "session/session.h"

#include <QString>

#include <optional>

namespace iterscope::ui {

struct MissingProfile {
    ProfileKind kind = ProfileKind::Gpu;
    QString id; // an id, or a path to a profile file
};

// The first GPU, then system, that the session (current, then pinned) names and that is
// neither a profile id (shipped or the user's) nor an existing file; none when all are.
std::optional<MissingProfile> missingProfile(const Session& session);

// Every mention of `from` as the session's `kind` of profile made `to`.
void replaceProfile(Session& session, ProfileKind kind, const QString& from, const QString& to);

} // namespace iterscope::ui
