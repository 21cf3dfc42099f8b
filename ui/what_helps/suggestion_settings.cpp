#include "what_helps/suggestion_settings.h"

#include "hardware/profile_loader.h"
#include "model/scenario.h"
#include "prediction/predictor.h"

#include <memory>

namespace iterscope::ui {

std::optional<ScenarioSettings> settingsWithFlags(const ScenarioSettings& settings,
                                                  const std::vector<std::string>& flags,
                                                  QString* unsupported) {
    ScenarioSettings s = settings;
    for (std::size_t i = 0; i + 1 < flags.size(); i += 2) {
        const std::string& flag = flags[i];
        const QString value = QString::fromStdString(flags[i + 1]);
        if (flag == "--precision")
            s.precision = value;
        else if (flag == "--layout")
            s.layout = value;
        else if (flag == "--batch")
            s.batch = value.toInt();
        else if (flag == "--overlap")
            s.overlap = value == QLatin1String("on");
        else if (flag == "--bucket-mb")
            s.bucket_mb = value.toDouble();
        else if (flag == "--allreduce")
            s.allreduce = value;
        else if (flag == "--sync")
            s.sync = value;
        else if (flag == "--parallel")
            s.parallel = value;
        else if (flag == "--pipeline-stages")
            s.pipeline_stages = value.toInt();
        else if (flag == "--schedule")
            s.schedule = value;
        else if (flag == "--gpus-per-node")
            s.gpus_per_node = value.toInt();
        else if (flag == "--nodes")
            s.nodes = value.toInt();
        else if (flag == "--gpu")
            s.gpu = value;
        else {
            if (unsupported)
                *unsupported = QString::fromStdString(flag);
            return std::nullopt;
        }
    }
    // The GUI's controls hold no more than these; a suggestion beyond them is the CLI's.
    if (s.batch > ScenarioSettings::kMaxBatch || s.totalGpus() > ScenarioSettings::kMaxGpus) {
        if (unsupported)
            *unsupported = s.batch > ScenarioSettings::kMaxBatch ? QStringLiteral("--batch")
                                                                 : QStringLiteral("--nodes");
        return std::nullopt;
    }
    return s;
}

Scenario scenarioOfPin(const Scenario& current, const ScenarioSettings& cur,
                       const ScenarioSettings& pin) {
    Scenario s = current;
    if (pin.network != cur.network) {
        // Only its name matters to the comparison: another network is a factor no
        // published pair varies alone.
        auto other = std::make_shared<AnalyzedNetwork>();
        other->source = pin.network.toStdString();
        s.network = std::move(other);
    }
    if (pin.gpu != cur.gpu)
        s.gpu = loadGpuProfile(pin.gpu.toStdString());
    if (pin.system != cur.system)
        s.system = loadSystemProfile(pin.system.toStdString());
    if (pin.software != cur.software)
        s.software = loadSoftwareProfile(pin.software.toStdString());
    applySettingsChoices(s, pin);
    return s;
}

} // namespace iterscope::ui
