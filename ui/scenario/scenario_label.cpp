#include "scenario/scenario_label.h"

#include "scenario/choice_names.h"
#include "scenario/scenario_settings.h"

#include "model/prediction.h"
#include "model/scenario.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("iterscope::ui::ScenarioLabel", text);
}

QString nameOr(const std::string& name, const std::string& id) {
    return QString::fromStdString(name.empty() ? id : name);
}

QString gpuCount(const Scenario& s) {
    const int total = s.totalGpus();
    if (total == 1)
        return tr("1 GPU");
    if (s.nodes == 1)
        return tr("%1 GPUs in one node").arg(total);
    return tr("%1 GPUs (%2 nodes × %3)").arg(total).arg(s.nodes).arg(s.gpus_per_node);
}

QString parallelText(const Scenario& s) {
    switch (s.parallel) {
    case ParallelStrategy::Data:
        return tr("data parallel");
    case ParallelStrategy::Hybrid:
        return tr("hybrid (FC layers split)");
    case ParallelStrategy::Pipeline:
        return tr("pipeline of %1 stages, %2 micro-batches, %3")
            .arg(s.stages())
            .arg(s.microBatches())
            .arg(s.schedule == PipelineSchedule::GPipe ? tr("GPipe") : tr("1F1B"));
    case ParallelStrategy::Zero1:
        return tr("ZeRO-1");
    case ParallelStrategy::Zero2:
        return tr("ZeRO-2");
    case ParallelStrategy::Zero3:
        return tr("ZeRO-3");
    }
    return QString::fromLatin1(parallelStrategyName(s.parallel));
}

bool isCollective(SyncStrategy sync) {
    return sync == SyncStrategy::AllreduceNccl || sync == SyncStrategy::AllreduceCopy;
}

} // namespace

ScenarioLabel describeScenario(const Scenario& s, const ScenarioSettings& settings,
                               const Prediction* prediction) {
    ScenarioLabel parts;
    const auto add = [&parts](const char* key, const QString& text) {
        parts.append({QLatin1String(key), text});
    };
    add("network", settings.network.contains(QLatin1Char('/'))
                       ? QFileInfo(settings.network).fileName()
                       : settings.network);
    add("gpu", nameOr(s.gpu.name, s.gpu.id));
    add("system", nameOr(s.system.name, s.system.id));
    add("gpus", gpuCount(s));
    add("batch", tr("batch %1 per GPU").arg(s.batch_per_gpu));
    if (s.network && s.network->network.input.size() == 3)
        add("image", tr("%1 px").arg(s.network->network.input[1]));
    add("precision", QString::fromLatin1(precisionName(s.precision)).toUpper());
    add("software", nameOr(s.software.name, s.software.id));
    add("parallel", parallelText(s));
    if (s.totalGpus() > 1) {
        add("exchange", syncStrategyTitle(s.sync));
        if (isCollective(s.sync)) {
            QString algorithm = allreduceAlgorithmTitle(s.allreduce).toLower();
            if (s.allreduce == AllreduceAlgorithm::Auto && prediction &&
                !prediction->allreduce_algorithm.empty())
                algorithm =
                    tr("auto: %1").arg(QString::fromStdString(prediction->allreduce_algorithm));
            add("allreduce", tr("all-reduce %1").arg(algorithm));
        }
        add("overlap",
            (s.overlap ? tr("overlapped, %1 MB buckets") : tr("not overlapped, %1 MB buckets"))
                .arg(s.bucket_mb));
    }
    add("layout", s.nhwc() ? tr("NHWC") : tr("NCHW"));
    add("data", s.realData() ? tr("real data") : tr("synthetic data"));
    return parts;
}

QString labelText(const ScenarioLabel& label) {
    QStringList texts;
    for (const LabelPart& part : label)
        texts.append(part.text);
    return texts.join(QStringLiteral(" · "));
}

LegendTexts legendTexts(const QList<ScenarioLabel>& labels) {
    LegendTexts out;
    if (labels.size() == 1) {
        // Alone, a curve differs from nothing: what it is at a glance; the rest is in the
        // window's title and an export's caption.
        ScenarioLabel brief;
        for (const LabelPart& part : labels.front())
            if (part.key == QLatin1String("network") || part.key == QLatin1String("gpu") ||
                part.key == QLatin1String("gpus") || part.key == QLatin1String("batch"))
                brief.append(part);
        out.own.append(labelText(brief));
        return out;
    }
    ScenarioLabel shared;
    if (!labels.isEmpty())
        for (const LabelPart& part : labels.front())
            if (std::all_of(labels.begin(), labels.end(),
                            [&part](const ScenarioLabel& l) { return l.contains(part); }))
                shared.append(part);
    out.shared = labelText(shared);
    for (const ScenarioLabel& label : labels) {
        ScenarioLabel own;
        for (const LabelPart& part : label)
            if (!shared.contains(part))
                own.append(part);
        out.own.append(own.isEmpty() ? tr("the same scenario") : labelText(own));
    }
    return out;
}

} // namespace iterscope::ui
