// iterscope: the desktop what-if analyzer (DESIGN.md "Interfaces"):
//   iterscope [--network NETWORK] [scenario flags] [--window-size WxH] [--screenshot FILE.png]
#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "planner/plan_view.h"
#include "profile_editor/profile_editor.h"
#include "scenario/settings_from_choices.h"
#include "what_helps/advisor_view.h"
#include "window/main_window.h"

#include "export/exporters.h"
#include "options/scenario_options.h"
#include "summary/summary_panel.h"
#include "util/error.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTabWidget>
#include <QTimer>

#include <CLI/CLI.hpp>

#include <charconv>
#include <iostream>
#include <optional>
#include <string_view>

#ifndef ITERSCOPE_VERSION_STRING
#define ITERSCOPE_VERSION_STRING "0"
#endif

namespace {
const char* const kScenarioOptions[] = {
    "--network",         "--gpu",           "--system",    "--software",  "--nodes",
    "--gpus-per-node",   "--batch",         "--image",     "--precision", "--sync",
    "--allreduce",       "--overlap",       "--bucket-mb", "--ps-count",  "--parallel",
    "--pipeline-stages", "--micro-batches", "--schedule",  "--layout",    "--data"};

// "1280x720" -> 1280×720; each side from 200 to 8192 pixels.
std::optional<QSize> parseWindowSize(const std::string& text) {
    const auto x = text.find_first_of("xX");
    if (x == std::string::npos)
        return std::nullopt;
    int w = 0, h = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    const auto a = std::from_chars(begin, begin + x, w);
    const auto b = std::from_chars(begin + x + 1, end, h);
    if (a.ec != std::errc() || a.ptr != begin + x || b.ec != std::errc() || b.ptr != end ||
        w < 200 || h < 200 || w > 8192 || h > 8192)
        return std::nullopt;
    return QSize(w, h);
}
// --trace and --measurements: opened once the scenario is shown; a file that does not open
// is one line and exit status 1.
bool openMeasured(iterscope::ui::MainWindow& window, const std::string& trace,
                  const std::string& measurements) {
    QString error;
    if (!measurements.empty() &&
        !window.openMeasurements(QString::fromStdString(measurements), &error)) {
        std::cerr << "iterscope: " << error.toStdString() << "\n";
        return false;
    }
    if (trace.empty())
        return true;
    window.openTrace(QFileInfo(QString::fromStdString(trace)).absoluteFilePath());
    QElapsedTimer reading;
    reading.start();
    while (!window.traceBeingRead().isEmpty() && reading.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    if (!window.predictor()->trace()) {
        std::cerr << "iterscope: " << window.lastError().toStdString() << "\n";
        return false;
    }
    return window.waitForResult(120000);
}
} // namespace

int main(int argc, char** argv) {
    CLI::App cli{"iterscope: what-if analyzer for CNN training iteration time on multi-GPU "
                 "platforms",
                 "iterscope"};
    cli.set_version_flag("--version", std::string("iterscope ") + ITERSCOPE_VERSION_STRING);
    iterscope::ScenarioFlags flags;
    iterscope::addScenarioFlags(&cli, flags);
    std::string screenshot;
    std::string screenshot_state = "ready";
    bool dark = false;
    std::string session;
    // Not "--session": QGuiApplication takes -session/--session for X11 session management.
    cli.add_option("--load-session", session,
                   "Open this .iterscope session: its scenario (in place of the scenario flags), "
                   "pins and filter");
    cli.add_option("--screenshot", screenshot,
                   "Render the main window once to this PNG file and exit");
    cli.add_option("--screenshot-state", screenshot_state,
                   "ready (default): after the prediction is shown; loading: while it computes")
        ->check(CLI::IsMember({"ready", "loading"}));
    std::string screenshot_dialog;
    cli.add_option("--screenshot-dialog", screenshot_dialog,
                   "With --screenshot: render this dialog, opened on the scenario, instead of "
                   "the main window: new-gpu or new-system (the editor, docs/profiles.md)")
        ->check(CLI::IsMember({"new-gpu", "new-system"}));
    cli.add_flag("--dark", dark, "Use a dark palette");
    std::string tab;
    cli.add_option("--tab", tab, "Show this view tab: scaling, helps (What helps), layers or plan")
        ->check(CLI::IsMember({"scaling", "helps", "layers", "plan"}));
    std::string trace, measurements;
    cli.add_option("--trace", trace,
                   "Open this PyTorch profiler trace (.json, .json.gz): the scenario becomes the "
                   "traced one, and every prediction is compared with it");
    cli.add_option("--measurements", measurements,
                   "Draw the measured runs of this CSV (the validation format) on the scaling "
                   "charts");
    std::string window_size;
    cli.add_option("--window-size", window_size,
                   "Window size WxH in pixels, e.g. 1280x720 (with --screenshot: the PNG's "
                   "size, unless the window cannot be that small)");
    // Parsed before the QApplication exists, so --help works without a display; Qt's
    // own options (-platform, -style, ...) pass through as extras for Qt to take.
    cli.allow_extras();
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "iterscope: " << e.what() << " (see --help)\n";
        return 1;
    }

    std::optional<QSize> size;
    if (!window_size.empty()) {
        size = parseWindowSize(window_size);
        if (!size) {
            std::cerr << "iterscope: --window-size: '" << window_size.substr(0, 40)
                      << "' is not WxH with each side from 200 to 8192 (e.g. 1280x720)\n";
            return 1;
        }
    }
    if (!screenshot.empty())
        iterscope::ui::quietQtMessages();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Iterscope"));
    QApplication::setOrganizationName(QStringLiteral("Iterscope"));
    QApplication::setApplicationVersion(QStringLiteral(ITERSCOPE_VERSION_STRING));

    bool scenario_given = false;
    for (const char* option : kScenarioOptions)
        scenario_given = scenario_given || cli.count(option) > 0;

    QString error_text;
    iterscope::ui::ScenarioSettings settings;
    try {
        settings = iterscope::ui::settingsFromChoices(flags);
    } catch (const iterscope::InputError& e) {
        std::cerr << "iterscope: " << e.what() << "\n";
        return 1;
    }

    // A screenshot neither reads nor writes the user's settings, so it is reproducible.
    const bool shooting = !screenshot.empty();
    iterscope::ui::MainWindow window(!shooting);
    if (dark)
        window.setDarkTheme(true);
    if (!tab.empty()) {
        // By the view, not its index: tabs are added as views are.
        QWidget* view = tab == "scaling"  ? static_cast<QWidget*>(window.scalingCharts())
                        : tab == "helps"  ? static_cast<QWidget*>(window.advisorView())
                        : tab == "layers" ? static_cast<QWidget*>(window.layerChart())
                                          : static_cast<QWidget*>(window.planView());
        QTabWidget* tabs = window.viewTabs();
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view))
                tabs->setCurrentIndex(i);
    }
    // The session's scenario replaces the flags'.
    const bool from_session = !session.empty();
    if (from_session &&
        !window.openSession(QFileInfo(QString::fromStdString(session)).absoluteFilePath(),
                            &error_text)) {
        std::cerr << "iterscope: " << error_text.toStdString() << "\n";
        return 1;
    }
    if (shooting) {
        window.setAttribute(Qt::WA_DontShowOnScreen,
                            QGuiApplication::platformName() != "offscreen");
        window.resize(size.value_or(QSize(1600, 1000)));
        window.show();
        QCoreApplication::processEvents(); // settle the layout before any request
        if (screenshot_state == "loading") {
            // The result arrives as a queued call; without an event loop turn the window
            // stays in its loading state for the picture.
            window.setScenario(settings);
            window.showBusyIndicator();
        } else {
            if (!from_session)
                window.setScenario(settings);
            if (!window.waitForResult(120000)) {
                std::cerr << "iterscope: the prediction did not finish in time\n";
                return 1;
            }
        }
        if (!openMeasured(window, trace, measurements))
            return 1;
        // The Plan tab computes its plan once shown: the picture waits for it.
        QElapsedTimer planning;
        planning.start();
        while (window.planView()->isBusy() && planning.elapsed() < 120000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        // Results change label texts; their layouts settle over the next turns of the loop
        // (a legend line that wraps takes a second pass).
        {
            QEventLoop settle;
            QTimer::singleShot(100, &settle, &QEventLoop::quit);
            settle.exec();
        }
        QString error;
        if (!window.waitingSession().isEmpty() ||
            (!window.lastError().isEmpty() && !window.currentResult())) {
            std::cerr << "iterscope: " << window.lastError().toStdString() << "\n";
            return 1;
        }
        const QString path = QString::fromStdString(screenshot);
        QWidget* shown = &window;
        if (!screenshot_dialog.empty()) {
            auto* editor = window.openProfileEditor(screenshot_dialog == "new-gpu"
                                                        ? iterscope::ProfileKind::Gpu
                                                        : iterscope::ProfileKind::System,
                                                    false);
            editor->setAttribute(Qt::WA_DontShowOnScreen,
                                 QGuiApplication::platformName() != "offscreen");
            editor->resize(size.value_or(iterscope::ui::MainWindow::kSmallestScreen));
            QEventLoop settle;
            QTimer::singleShot(100, &settle, &QEventLoop::quit);
            settle.exec();
            shown = editor;
        }
        if (!iterscope::ui::exportWidget(shown, path, &error, 1.0)) {
            std::cerr << "iterscope: " << error.toStdString() << "\n";
            return 1;
        }
        return 0;
    }

    if (!from_session && (scenario_given || !window.restoreLastSession()))
        window.setScenario(settings);
    if (!openMeasured(window, trace, measurements))
        return 1;
    if (size) {
        window.resize(*size);
        window.show();
    } else {
        window.showForScreen();
    }
    return QApplication::exec();
}
