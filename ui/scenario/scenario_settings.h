// What the scenario panel edits and a session file stores (session.h): the user's choices
// by id, not the loaded profiles, so a session reopens with every control as it was.
#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace iterscope::ui {

struct ScenarioSettings {
    QString network = QStringLiteral("resnet50"); // zoo id or file path
    QString gpu = QStringLiteral("v100-sxm2-16gb");
    QString system = QStringLiteral("dgx1-v100");
    QString software = QStringLiteral("pytorch");
    int nodes = 1;
    int gpus_per_node = 8;
    int batch = 64; // per GPU
    int image = 0;  // square input size, 0 = the network's own
    QString precision = QStringLiteral("fp32");
    QString sync; // empty: the software platform's default
    QString allreduce = QStringLiteral("auto");
    bool overlap = true;
    double bucket_mb = 25;
    // The harness: activations' memory layout on tensor cores and where the images come
    // from; "auto" is what a plain user of the software gets (its profile says which).
    QString layout = QStringLiteral("auto"); // auto, nchw, nhwc
    QString data = QStringLiteral("auto");   // auto, real, synthetic
    // Parallel strategy (docs/model.md "Parallel strategies"); the pipeline's stages,
    // micro-batches (0: four per stage) and schedule matter to pipelines only.
    QString parallel = QStringLiteral("data");
    int pipeline_stages = 2;
    int micro_batches = 0;
    QString schedule = QStringLiteral("1f1b");

    static constexpr int kMaxGpus = 1024;
    static constexpr int kMaxMicroBatches = 1 << 20;
    static constexpr int kMaxBatch = 1024;

    int totalGpus() const { return nodes * gpus_per_node; }
    // "resnet50 · v100-sxm2-16gb · dgx1-v100 · 1×8 GPUs · batch 64": by id, for messages
    // about choices that gave no result. Legends, titles and captions name a scenario in
    // full from its result (scenario_label.h).
    QString label() const;

    QJsonObject toJson() const;
    // Rejects wrong types and out-of-range numbers with "<field>: <problem>".
    static std::optional<ScenarioSettings> fromJson(const QJsonObject& json, QString* error);

    bool operator==(const ScenarioSettings&) const = default;
};

} // namespace iterscope::ui
