#include "session/session.h"

#include "session/json_fields.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QSaveFile>

namespace iterscope::ui {
namespace {
const auto kFormat = QStringLiteral("iterscope-session");
constexpr int kVersion = 1;
// A session is a few hundred bytes; anything far larger is not one.
constexpr qint64 kMaxSessionBytes = 1 << 20;
constexpr int64_t kMaxDatasetImages = 1000000000; // what the Plan tab's input holds
constexpr int kMaxEpochs = 100000;
constexpr int64_t kMaxGlobalBatch = int64_t{1} << 24;

QJsonValue optionalValue(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject planToJson(const PlanChoices& plan) {
    const auto& c = plan.constraints;
    return QJsonObject{{"epochs", plan.epochs},
                       {"dataset_images", static_cast<double>(plan.dataset_images)},
                       {"max_gpus", c.max_gpus},
                       // 0: no bound, as on the command line.
                       {"max_global_batch", static_cast<double>(c.max_global_batch.value_or(0))},
                       {"deadline_hours", optionalValue(c.deadline_hours)},
                       {"budget_usd", optionalValue(c.budget_usd)}};
}

bool planFromJson(const QJsonObject& json, PlanChoices& plan, QString* error) {
    auto& c = plan.constraints;
    int64_t max_batch = c.max_global_batch.value_or(0);
    if (!readInt(json, "epochs", 1, kMaxEpochs, plan.epochs, error) ||
        !readInt64(json, "dataset_images", 1, kMaxDatasetImages, plan.dataset_images, error) ||
        !readInt(json, "max_gpus", 1, kDefaultPlanMaxGpus, c.max_gpus, error) ||
        !readInt64(json, "max_global_batch", 0, kMaxGlobalBatch, max_batch, error) ||
        !readOptionalPositive(json, "deadline_hours", 1e6, c.deadline_hours, error) ||
        !readOptionalPositive(json, "budget_usd", 1e8, c.budget_usd, error))
        return false;
    c.max_global_batch = max_batch > 0 ? std::optional<int64_t>(max_batch) : std::nullopt;
    return true;
}

bool isNetworkFile(const QString& network) {
    return network.contains(QLatin1Char('/')) || network.contains(QLatin1Char('\\'));
}
} // namespace

QJsonObject Session::toJson() const {
    QJsonArray pins;
    for (const auto& p : pinned)
        pins.append(p.toJson());
    return QJsonObject{
        {"format", kFormat}, {"version", kVersion},          {"scenario", current.toJson()},
        {"pinned", pins},    {"layer_filter", layer_filter}, {"plan", planToJson(plan)}};
}

std::optional<Session> Session::fromJson(const QJsonObject& json, QString* error) {
    QString ignored;
    if (!error)
        error = &ignored;
    if (json.value(QLatin1String("format")).toString() != kFormat) {
        *error = QStringLiteral("format: not an Iterscope session");
        return std::nullopt;
    }
    if (json.value(QLatin1String("version")).toInt(-1) != kVersion) {
        *error = QStringLiteral("version: only version %1 is understood").arg(kVersion);
        return std::nullopt;
    }
    Session session;
    const auto scenario = json.value(QLatin1String("scenario"));
    if (!scenario.isObject()) {
        *error = QStringLiteral("scenario: must be an object");
        return std::nullopt;
    }
    QString inner;
    auto current = ScenarioSettings::fromJson(scenario.toObject(), &inner);
    if (!current) {
        *error = QStringLiteral("scenario.") + inner;
        return std::nullopt;
    }
    session.current = *current;
    const auto pins = json.value(QLatin1String("pinned"));
    if (!pins.isUndefined()) {
        if (!pins.isArray() || pins.toArray().size() > kMaxPinned) {
            *error =
                QStringLiteral("pinned: must be a list of at most %1 scenarios").arg(kMaxPinned);
            return std::nullopt;
        }
        const auto list = pins.toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            auto pin = ScenarioSettings::fromJson(list.at(i).toObject(), &inner);
            if (!list.at(i).isObject() || !pin) {
                *error = QStringLiteral("pinned[%1].%2").arg(i).arg(inner);
                return std::nullopt;
            }
            session.pinned.append(*pin);
        }
    }
    if (!readString(json, "layer_filter", session.layer_filter, error))
        return std::nullopt;
    // Sessions written before the plan was kept have none: the tab's defaults.
    const auto plan = json.value(QLatin1String("plan"));
    if (!plan.isUndefined()) {
        if (!plan.isObject()) {
            *error = QStringLiteral("plan: must be an object");
            return std::nullopt;
        }
        if (!planFromJson(plan.toObject(), session.plan, &inner)) {
            *error = QStringLiteral("plan.") + inner;
            return std::nullopt;
        }
    }
    return session;
}

QStringList Session::missingNetworkFiles() const {
    QStringList missing;
    QList<ScenarioSettings> all = pinned;
    all.prepend(current);
    for (const auto& s : all)
        if (isNetworkFile(s.network) && !QFileInfo::exists(s.network) &&
            !missing.contains(s.network))
            missing.append(s.network);
    return missing;
}

void Session::replaceNetwork(const QString& from, const QString& to) {
    if (current.network == from)
        current.network = to;
    for (auto& pin : pinned)
        if (pin.network == from)
            pin.network = to;
}

bool saveSession(const QString& path, const Session& session, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(session.toJson()).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

std::optional<Session> loadSession(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxSessionBytes) {
        *error = QStringLiteral("%1: too large for a session file").arg(path);
        return std::nullopt;
    }
    QJsonParseError parse;
    const auto doc = QJsonDocument::fromJson(file.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("%1: not JSON: %2 at offset %3")
                     .arg(path, parse.errorString())
                     .arg(parse.offset);
        return std::nullopt;
    }
    QString inner;
    auto session = Session::fromJson(doc.object(), &inner);
    if (!session)
        *error = QStringLiteral("%1: %2").arg(path, inner);
    return session;
}

} // namespace iterscope::ui
