#include "session/session_profiles.h"

#include "hardware/profile_json.h"
#include "hardware/profile_loader.h"

#include <QFileInfo>

#include <algorithm>

namespace iterscope::ui {

namespace {

QString& field(ScenarioSettings& s, ProfileKind kind) {
    return kind == ProfileKind::Gpu ? s.gpu : s.system;
}

bool exists(ProfileKind kind, const QString& id_or_path) {
    const std::string text = id_or_path.toStdString();
    if (profile_json::looksLikePath(text))
        return QFileInfo(id_or_path).isFile();
    const std::vector<std::string> ids = kind == ProfileKind::Gpu ? gpuIds() : systemIds();
    return std::find(ids.begin(), ids.end(), text) != ids.end();
}

} // namespace

std::optional<MissingProfile> missingProfile(const Session& session) {
    QList<ScenarioSettings> all = session.pinned;
    all.prepend(session.current);
    for (ProfileKind kind : {ProfileKind::Gpu, ProfileKind::System})
        for (ScenarioSettings& s : all)
            if (const QString& id = field(s, kind); !id.isEmpty() && !exists(kind, id))
                return MissingProfile{kind, id};
    return std::nullopt;
}

void replaceProfile(Session& session, ProfileKind kind, const QString& from, const QString& to) {
    if (field(session.current, kind) == from)
        field(session.current, kind) = to;
    for (ScenarioSettings& pin : session.pinned)
        if (field(pin, kind) == from)
            field(pin, kind) = to;
}

} // namespace iterscope::ui
