#include "scenario/scenario_settings.h"

#include "session/json_fields.h"

#include <QFileInfo>

namespace iterscope::ui {

QString ScenarioSettings::label() const {
    const QString net =
        network.contains(QLatin1Char('/')) ? QFileInfo(network).fileName() : network;
    return QStringLiteral("%1 · %2 · %3 · %4×%5 GPUs · batch %6")
        .arg(net, gpu, system)
        .arg(nodes)
        .arg(gpus_per_node)
        .arg(batch);
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
                       {"layout", layout},
                       {"data", data},
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
        !readString(json, "layout", s.layout, error) || !readString(json, "data", s.data, error) ||
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

} // namespace iterscope::ui
