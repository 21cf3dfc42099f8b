// `iterscope-cli report` (issue 31: "in ≤ 1 s for ResNet-152 with two pins"): a session of
// ResNet-152 on a DGX-1 with two pins (a smaller batch, mixed precision) written to a
// temporary folder, then reported five times as PDF and once as HTML, each a whole process
// as a user runs it. Prints the median and the slowest PDF run against the target, and the
// in-process split between predicting (gatherReport) and drawing (writeReport).
#include "bench_process.h"

#include "report/report_data.h"
#include "report/report_writer.h"
#include "session/session.h"

#include <QApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace iterscope::ui;

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir dir;
    Session session;
    session.current.network = QStringLiteral("resnet152");
    ScenarioSettings small = session.current, amp = session.current;
    small.batch = 32;
    amp.precision = QStringLiteral("amp");
    session.pinned = {small, amp};
    const QString file = dir.filePath(QStringLiteral("resnet152.iterscope"));
    QString error;
    if (!saveSession(file, session, &error)) {
        std::fprintf(stderr, "bench_ui_report: %s\n", qPrintable(error));
        return 1;
    }
    const std::string session_path = file.toStdString();
    const std::string pdf = dir.filePath(QStringLiteral("report.pdf")).toStdString();
    const std::string html = dir.filePath(QStringLiteral("report.html")).toStdString();

    std::vector<double> seconds;
    for (int i = 0; i < 5; ++i) {
        const ProcessRun run =
            runProgram(ITERSCOPE_CLI_PATH,
                       {"report", "--session", session_path.c_str(), "--out", pdf.c_str()});
        if (!run.ok) {
            std::fprintf(stderr, "bench_ui_report: iterscope-cli report failed\n");
            return 1;
        }
        seconds.push_back(run.seconds);
    }
    const ProcessRun as_html = runProgram(
        ITERSCOPE_CLI_PATH, {"report", "--session", session_path.c_str(), "--out", html.c_str()});
    std::sort(seconds.begin(), seconds.end());
    std::printf("report, ResNet-152 with two pins, PDF, whole process: median %.3f s, slowest "
                "%.3f s (target <= 1 s: %s)\n",
                seconds[seconds.size() / 2], seconds.back(),
                seconds.back() <= 1.0 ? "met" : "MISSED");
    std::printf("report as HTML, whole process: %.3f s%s\n", as_html.seconds,
                as_html.ok ? "" : " (failed)");

    // In process: what predicting and what drawing cost.
    ReportRequest request;
    request.current = session.current;
    request.pins = session.pinned;
    ComputeCache cache;
    auto start = std::chrono::steady_clock::now();
    const ReportData data = gatherReport(request, cache);
    const double gather_s = secondsSince(start);
    start = std::chrono::steady_clock::now();
    const bool ok = writeReport(data, QString::fromStdString(pdf), ReportPage::A4, &error);
    const double write_s = secondsSince(start);
    std::printf("in process: predicting %.3f s, drawing and writing the PDF %.3f s%s\n", gather_s,
                write_s, ok ? "" : " (failed)");
    return ok && as_html.ok ? 0 : 1;
}
