// `iterscope-cli report`: a session's (or the flags') scenario, pins and plan as one PDF or
// HTML report, drawn by the GUI's own report writer (ui/report/) in this module, so the CLI
// keeps linking no Qt.
#include "chart_renderer/chart_renderer.h"
#include "chart_renderer/entry_point.h"
#include "chart_renderer/plan_flags.h"

#include "prediction/predictor.h"
#include "report/report_data.h"
#include "report/report_writer.h"
#include "scenario/settings_from_choices.h"
#include "session/session.h"
#include "util/error.h"
#include "window/main_window.h"

#include <QApplication>
#include <QFileInfo>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace iterscope {

bool applyPlanFlags(const PlanChartRequest* p, ui::PlanChoices& c) {
    if (!p)
        return false;
    if (p->epochs > 0)
        c.epochs = static_cast<int>(p->epochs);
    if (p->dataset_images > 0)
        c.dataset_images = p->dataset_images;
    if (p->max_gpus > 0)
        c.constraints.max_gpus = static_cast<int>(p->max_gpus);
    if (p->max_global_batch == 0)
        c.constraints.max_global_batch.reset();
    else if (p->max_global_batch > 0)
        c.constraints.max_global_batch = p->max_global_batch;
    if (p->deadline_hours > 0)
        c.constraints.deadline_hours = p->deadline_hours;
    if (p->budget_usd > 0)
        c.constraints.budget_usd = p->budget_usd;
    return p->epochs > 0 || p->dataset_images > 0 || p->max_gpus > 0 || p->max_global_batch >= 0 ||
           p->deadline_hours > 0 || p->budget_usd > 0;
}

namespace {

// The session's scenario with every flag the command line gave put over it.
ui::ScenarioSettings overridden(ui::ScenarioSettings s, const ui::ScenarioSettings& f,
                                const char* const* given) {
    for (; given && *given; ++given) {
        const std::string flag = *given;
        if (flag == "--network")
            s.network = f.network;
        else if (flag == "--gpu")
            s.gpu = f.gpu;
        else if (flag == "--system")
            s.system = f.system;
        else if (flag == "--software")
            s.software = f.software;
        else if (flag == "--nodes")
            s.nodes = f.nodes;
        else if (flag == "--gpus-per-node")
            s.gpus_per_node = f.gpus_per_node;
        else if (flag == "--batch")
            s.batch = f.batch;
        else if (flag == "--image")
            s.image = f.image;
        else if (flag == "--precision")
            s.precision = f.precision;
        else if (flag == "--sync")
            s.sync = f.sync;
        else if (flag == "--allreduce")
            s.allreduce = f.allreduce;
        else if (flag == "--overlap")
            s.overlap = f.overlap;
        else if (flag == "--bucket-mb")
            s.bucket_mb = f.bucket_mb;
        else if (flag == "--layout")
            s.layout = f.layout;
        else if (flag == "--data")
            s.data = f.data;
        else if (flag == "--parallel")
            s.parallel = f.parallel;
        else if (flag == "--pipeline-stages")
            s.pipeline_stages = f.pipeline_stages;
        else if (flag == "--micro-batches")
            s.micro_batches = f.micro_batches;
        else if (flag == "--schedule")
            s.schedule = f.schedule;
    }
    if (s.totalGpus() > ui::ScenarioSettings::kMaxGpus)
        throw InputError("--nodes × --gpus-per-node: at most " +
                         std::to_string(ui::ScenarioSettings::kMaxGpus) + " GPUs");
    return s;
}

void render(const ReportRenderRequest& request) {
    const QString out = QString::fromUtf8(request.out);
    if (ui::reportFormatFor(out).isEmpty())
        throw InputError(std::string(request.out) + ": unknown report type (use .pdf or .html)");
    const std::string page = request.page ? request.page : "a4";
    if (page != "a4" && page != "letter")
        throw InputError("--page: '" + page + "' is neither a4 nor letter");

    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    ui::quietQtMessages();
    int argc = 1;
    char name[] = "iterscope-cli";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    ui::ReportRequest report;
    const ui::ScenarioSettings from_flags = ui::settingsFromChoices(*request.flags);
    const std::string session_path = request.session ? request.session : "";
    if (!session_path.empty()) {
        QString error;
        const auto session = ui::loadSession(QString::fromStdString(session_path), &error);
        if (!session)
            throw InputError(error.toStdString());
        report.current = overridden(session->current, from_flags, request.given_flags);
        report.pins = session->pinned;
        ui::PlanChoices plan = session->plan;
        applyPlanFlags(request.plan, plan);
        report.plan = plan;
    } else {
        report.current = from_flags;
        ui::PlanChoices plan;
        if (applyPlanFlags(request.plan, plan))
            report.plan = plan;
    }
    if (request.plan && request.plan->prices && *request.plan->prices)
        report.prices_file = QString::fromUtf8(request.plan->prices);
    if (request.measurements && *request.measurements) {
        report.measurements = readValidationCsv(request.measurements);
        report.measurements_file = QString::fromUtf8(request.measurements);
    }
    if (request.trace && *request.trace)
        report.trace = ui::openTrace(QString::fromUtf8(request.trace), report.current);

    ui::ComputeCache cache;
    const ui::ReportData data = ui::gatherReport(report, cache);
    QString error;
    if (!ui::writeReport(data, out, page == "letter" ? ui::ReportPage::Letter : ui::ReportPage::A4,
                         &error))
        throw InputError(error.toStdString());
}

} // namespace
} // namespace iterscope

extern "C" __attribute__((visibility("default"))) int
iterscope_render_report_v1(const iterscope::ReportRenderRequest* request, char* error,
                           std::size_t error_size) {
    return iterscope::guardedEntry(error, error_size, request && request->flags && request->out,
                                   "report renderer: incomplete request",
                                   [&] { iterscope::render(*request); });
}
