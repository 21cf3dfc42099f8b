// A scenario in words, for every place that names one: the window title, the legends of
// the current and pinned curves, and the caption under every export (issue 20, item 4).
// Two scenarios that differ in any choice (exchange, all-reduce algorithm, overlap, bucket
// size, software, layout, data, precision, ...) never read the same: each part is said.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace iterscope {
struct Prediction;
struct Scenario;
} // namespace iterscope

namespace iterscope::ui {

struct ScenarioSettings;

struct LabelPart {
    QString key;  // "gpu", "exchange", ...: parts of two labels compare by key
    QString text; // "Tesla V100 SXM2 16GB"
    bool operator==(const LabelPart&) const = default;
};
using ScenarioLabel = QList<LabelPart>;

// The parts, in reading order: network, GPU, system, GPU count and layout, batch, image,
// precision, software, parallel strategy, exchange, all-reduce algorithm (the one chosen
// when automatic, from `prediction`), overlap and buckets, activation layout, data.
// Profiles give the names; `settings` the choices as the user made them.
ScenarioLabel describeScenario(const Scenario& scenario, const ScenarioSettings& settings,
                               const Prediction* prediction = nullptr);

// "resnet50 · Tesla V100 SXM2 16GB · ...".
QString labelText(const ScenarioLabel& label);

// Legends of several scenarios: what they all share, said once, and what each one has of
// its own (every part that is not shared). With one scenario, `shared` is empty and `own`
// holds what it is at a glance (network, GPU, GPU count, batch).
struct LegendTexts {
    QString shared;
    QStringList own;
};
LegendTexts legendTexts(const QList<ScenarioLabel>& labels);

} // namespace iterscope::ui
