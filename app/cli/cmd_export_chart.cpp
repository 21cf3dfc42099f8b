// iterscope-cli export-chart --kind scaling|timeline|layers [scenario flags] --out FILE:
// the GUI's charts rendered headless, for reports and scripts.
#include "cli/command.h"
#include "options/scenario_options.h"
#include "util/error.h"

#include "charts.h"
#include "exporters.h"
#include "main_window.h"
#include "predictor.h"
#include "settings_from_flags.h"
#include "timeline_view.h"

#include <QApplication>

#include <iostream>
#include <memory>

namespace iterscope::cli {
namespace {

struct ExportChartOptions {
    ScenarioFlags flags;
    std::string kind = "scaling";
    std::string out;
    double scale = 2;
};

void exportChart(const ExportChartOptions& options) {
    const QString out = QString::fromStdString(options.out);
    if (ui::imageFormatFor(out).isEmpty())
        throw InputError(options.out + ": unknown image type (use .png, .svg or .pdf)");
    const auto settings = ui::settingsFromFlags(options.flags);
    ui::ComputeCache cache;
    const auto result = ui::computeResult(settings, cache);

    // Chart rendering needs a QApplication, also headless; default to the offscreen
    // platform so the command works without a display. It lives in this scope, so the
    // widgets below go before it does.
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    ui::quietQtMessages();
    int argc = 1;
    char name[] = "iterscope-cli";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    std::unique_ptr<QWidget> widget;
    if (options.kind == "scaling") {
        auto charts = std::make_unique<ui::ScalingChartsView>();
        charts->setResult(result);
        charts->resize(1400, 620);
        widget = std::move(charts);
    } else if (options.kind == "timeline") {
        auto timeline = std::make_unique<ui::TimelineView>();
        timeline->resize(1600, 420);
        timeline->setResult(result);
        widget = std::move(timeline);
    } else {
        auto layers = std::make_unique<ui::LayerChartView>();
        layers->setResult(result);
        layers->resize(1100, 640);
        widget = std::move(layers);
    }
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->show();
    QCoreApplication::processEvents();
    QString error;
    if (!ui::exportWidget(widget.get(), out, &error, options.scale, settings.label()))
        throw InputError(error.toStdString());
}

const CommandRegistration registration{
    80, [](CLI::App& app) {
        auto options = std::make_shared<ExportChartOptions>();
        auto* cmd = app.add_subcommand(
            "export-chart", "Render the scaling curves, the timeline or the layer chart to a file");
        cmd->add_option("--kind", options->kind, "scaling, timeline or layers")
            ->check(CLI::IsMember({"scaling", "timeline", "layers"}));
        cmd->add_option("--out", options->out, "Output file: .png, .svg or .pdf")->required();
        cmd->add_option("--scale", options->scale, "PNG pixels per widget pixel (default 2)")
            ->check(CLI::Range(0.25, 8.0));
        addScenarioFlags(cmd, options->flags);
        cmd->callback([options] { exportChart(*options); });
    }};

} // namespace
} // namespace iterscope::cli
