#include "scenario_settings.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <cmath>

namespace iterscope::ui {
namespace {
const auto kFormat = QStringLiteral("iterscope-session");
constexpr int kVersion = 1;
// A session is a few hundred bytes; anything far larger is not one.
constexpr qint64 kMaxSessionBytes = 1 << 20;

bool readString(const QJsonObject& json, const char* key, QString& out, QString* error) {
    const auto v = json.value(QLatin1String(key));
    if (v.isUndefined())
        return true;
    if (!v.isString()) {
        *error = QStringLiteral("%1: must be a string").arg(QLatin1String(key));
        return false;
    }
    out = v.toString();
    return true;
}

bool readInt(const QJsonObject& json, const char* key, int lo, int hi, int& out, QString* error) {
    const auto v = json.value(QLatin1String(key));
    if (v.isUndefined())
        return true;
    const double d = v.toDouble(-1e300);
    if (!v.isDouble() || d < lo || d > hi || d != std::floor(d)) {
        *error = QStringLiteral("%1: must be a whole number from %2 to %3")
                     .arg(QLatin1String(key))
                     .arg(lo)
                     .arg(hi);
        return false;
    }
    out = static_cast<int>(d);
    return true;
}
} // namespace

QString ScenarioSettings::label() const {
    const QString net =
        network.contains(QLatin1Char('/')) ? QFileInfo(network).fileName() : network;
    return QStringLiteral("%1 · %2 · %3 · %4 GPU%5 · batch %6 · %7")
               .arg(net, gpu, system)
               .arg(totalGpus())
               .arg(totalGpus() == 1 ? QString() : QStringLiteral("s"))
               .arg(batch)
               .arg(precision) +
           strategyLabel();
}

// Pinned scenarios that differ only by strategy must be told apart in a legend.
QString ScenarioSettings::strategyLabel() const {
    if (parallel.isEmpty() || parallel == QLatin1String("data"))
        return {};
    if (parallel == QLatin1String("pipeline"))
        return QStringLiteral(" · pipeline ×%1 %2").arg(pipeline_stages).arg(schedule);
    return QStringLiteral(" · ") + parallel;
}

QJsonObject ScenarioSettings::toJson() const {
    return QJsonObject{{"network", network},
                       {"gpu", gpu},
                       {"system", system},
                       {"software", software},
                       {"nodes", nodes},
                       {"gpus_per_node", gpus_per_node},
                       {"batch", batch},
                       {"image", image},
                       {"precision", precision},
                       {"sync", sync},
                       {"allreduce", allreduce},
                       {"overlap", overlap},
                       {"bucket_mb", bucket_mb},
                       {"parallel", parallel},
                       {"pipeline_stages", pipeline_stages},
                       {"micro_batches", micro_batches},
                       {"schedule", schedule}};
}

std::optional<ScenarioSettings> ScenarioSettings::fromJson(const QJsonObject& json,
                                                           QString* error) {
    QString ignored;
    if (!error)
        error = &ignored;
    ScenarioSettings s;
    if (!readString(json, "network", s.network, error) || !readString(json, "gpu", s.gpu, error) ||
        !readString(json, "system", s.system, error) ||
        !readString(json, "software", s.software, error) ||
        !readString(json, "precision", s.precision, error) ||
        !readString(json, "sync", s.sync, error) ||
        !readString(json, "allreduce", s.allreduce, error) ||
        !readInt(json, "nodes", 1, kMaxGpus, s.nodes, error) ||
        !readInt(json, "gpus_per_node", 1, kMaxGpus, s.gpus_per_node, error) ||
        !readInt(json, "batch", 1, kMaxBatch, s.batch, error) ||
        !readInt(json, "image", 0, 4096, s.image, error) ||
        !readString(json, "parallel", s.parallel, error) ||
        !readString(json, "schedule", s.schedule, error) ||
        !readInt(json, "pipeline_stages", 1, kMaxGpus, s.pipeline_stages, error) ||
        !readInt(json, "micro_batches", 0, kMaxMicroBatches, s.micro_batches, error))
        return std::nullopt;
    if (s.network.isEmpty()) {
        *error = QStringLiteral("network: must not be empty");
        return std::nullopt;
    }
    if (s.totalGpus() > kMaxGpus) {
        *error = QStringLiteral("nodes × gpus_per_node: at most %1 GPUs").arg(kMaxGpus);
        return std::nullopt;
    }
    if (const auto v = json.value(QLatin1String("overlap")); !v.isUndefined()) {
        if (!v.isBool()) {
            *error = QStringLiteral("overlap: must be true or false");
            return std::nullopt;
        }
        s.overlap = v.toBool();
    }
    if (const auto v = json.value(QLatin1String("bucket_mb")); !v.isUndefined()) {
        const double mb = v.toDouble(-1);
        if (!v.isDouble() || !(mb > 0 && mb <= 4096)) {
            *error = QStringLiteral("bucket_mb: must be a number above 0 and at most 4096");
            return std::nullopt;
        }
        s.bucket_mb = mb;
    }
    return s;
}

QJsonObject Session::toJson() const {
    QJsonArray pins;
    for (const auto& p : pinned)
        pins.append(p.toJson());
    return QJsonObject{{"format", kFormat},
                       {"version", kVersion},
                       {"scenario", current.toJson()},
                       {"pinned", pins},
                       {"layer_filter", layer_filter}};
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
    session.layer_filter = json.value(QLatin1String("layer_filter")).toString();
    return session;
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
