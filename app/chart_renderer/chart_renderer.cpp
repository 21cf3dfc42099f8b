// The chart renderer module behind `iterscope-cli export-chart`: the GUI's charts and
// timeline rendered headless, for reports and scripts.
#include "chart_renderer/chart_renderer.h"
#include "chart_renderer/entry_point.h"
#include "chart_renderer/plan_flags.h"

#include "export/chart_exports.h"
#include "export/exporters.h"
#include "planner/plan_view.h"
#include "prediction/predictor.h"
#include "scenario/settings_from_choices.h"
#include "util/error.h"
#include "window/main_window.h"

#include <QApplication>

#include <cstdio>
#include <exception>
#include <memory>
#include <new>

namespace iterscope {
namespace {

void render(const ChartRenderRequest& request) {
    const QString out = QString::fromUtf8(request.out);
    if (ui::imageFormatFor(out).isEmpty())
        throw InputError(std::string(request.out) +
                         ": unknown image type (use .png, .svg or .pdf)");
    const auto settings = ui::settingsFromChoices(*request.flags);
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

    const std::string kind = request.kind;
    std::unique_ptr<QWidget> widget;
    QString heading;
    // The charts as File › Export draws them: a fixed size, the light theme.
    const auto chart = [&](ui::ExportChart which) {
        ui::ExportChartContent content;
        content.result = result;
        heading = ui::exportHeading(which);
        return ui::chartForExport(which, content);
    };
    if (kind == "scaling") {
        widget = chart(ui::ExportChart::Scaling);
    } else if (kind == "timeline") {
        widget = chart(ui::ExportChart::Timeline);
    } else if (kind == "layers") {
        widget = chart(ui::ExportChart::Layers);
    } else if (kind == "plan") {
        auto plan = std::make_unique<ui::PlanView>();
        plan->setScenario(settings);
        if (const PlanChartRequest* p = request.plan) {
            ui::PlanChoices c = plan->choices();
            applyPlanFlags(p, c);
            plan->setChoices(c);
            plan->setPricesFile(QString::fromUtf8(p->prices));
        }
        plan->setPlan(ui::computePlan(plan->inputs(), cache));
        plan->resize(1300, 860);
        widget = std::move(plan);
    } else {
        throw InputError("--kind: unknown chart '" + kind +
                         "' (scaling, timeline, layers or plan)");
    }
    if (kind == "plan") {
        widget->setAttribute(Qt::WA_DontShowOnScreen);
        widget->show();
        QCoreApplication::processEvents();
    }
    QString error;
    // The scenario as caption under the chart, as File › Export writes it.
    QString caption = ui::labelText(result->label);
    QWidget* target = widget.get();
    if (auto* plan = qobject_cast<ui::PlanView*>(target)) {
        // The chart alone, as File › Export writes it.
        caption = plan->exportCaption();
        target = plan->exportTarget();
    }
    ui::ExportOptions options;
    options.scale = request.scale;
    options.title = caption;
    options.caption = caption;
    options.heading = heading;
    if (!ui::exportWidget(target, out, &error, options))
        throw InputError(error.toStdString());
}

} // namespace
} // namespace iterscope

extern "C" __attribute__((visibility("default"))) int
iterscope_render_chart_v1(const iterscope::ChartRenderRequest* request, char* error,
                          std::size_t error_size) {
    return iterscope::guardedEntry(
        error, error_size, request && request->flags && request->kind && request->out,
        "chart renderer: incomplete request", [&] { iterscope::render(*request); });
}
