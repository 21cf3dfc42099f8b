// A session: the current scenario, the pinned ones, the layer filter and the Plan tab's
// training length and constraints, as a .iterscope file (JSON) keeps them.
#pragma once

#include "planner/plan_choices.h"
#include "scenario/scenario_settings.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace iterscope::ui {

struct Session {
    ScenarioSettings current;
    QList<ScenarioSettings> pinned;
    QString layer_filter;
    PlanChoices plan;

    static constexpr int kMaxPinned = 4;

    QJsonObject toJson() const;
    static std::optional<Session> fromJson(const QJsonObject& json, QString* error);
    bool operator==(const Session&) const = default;

    // The network files the session names (current and pinned) that are not where it says,
    // each once: a session whose network moved cannot load whole.
    QStringList missingNetworkFiles() const;
    // Every mention of network file `from` made `to` (the user located a moved file).
    void replaceNetwork(const QString& from, const QString& to);
};

// Written through QSaveFile, so a crash or a full disk never leaves half a session.
bool saveSession(const QString& path, const Session& session, QString* error);
std::optional<Session> loadSession(const QString& path, QString* error);

} // namespace iterscope::ui
