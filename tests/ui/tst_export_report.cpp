// A report in one click (issue 31, item 1): `iterscope-cli report` and File › Export Report
// write one document, whose text read back from the PDF holds the scenario, its band, every
// pin, the profiles' sources and every warning that applies; the HTML holds its figures as
// SVG; the figures are light whatever the window's theme; bad input is one line.
#include "cli_runner.h"

#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "export/chart_exports.h"
#include "prediction/predictor.h"
#include "report/report_data.h"
#include "report/report_document.h"
#include "report/report_writer.h"
#include "session/session.h"
#include "timeline/timeline_view.h"
#include "widgets/format.h"
#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>

#include <cmath>

using namespace iterscope;
using namespace iterscope::ui;

namespace {
const QString kUnknownOps = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/unknown-op.onnx");

QString pdfText(const QString& path) {
    QProcess p;
    p.start(QStringLiteral("pdftotext"), {path, QStringLiteral("-")});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput());
}

// Text as pdftotext gives it breaks lines where the page wrapped them, anywhere in a long
// source URL too, and joins a word hyphenated at a line's end ("all-reduce" as
// "allreduce"): compare without white space and hyphens.
QString squeezed(QString s) {
    return s.remove(QRegularExpression(QStringLiteral("[\\s-]+")));
}

QString pageSize(const QString& pdf) {
    QProcess p;
    p.start(QStringLiteral("pdfinfo"), {pdf});
    if (!p.waitForFinished(60000))
        return {};
    for (const QByteArray& line : p.readAllStandardOutput().split('\n'))
        if (line.startsWith("Page size:"))
            return QString::fromUtf8(line.mid(10)).simplified();
    return {};
}

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ScenarioSettings resnet50(int batch) {
    ScenarioSettings s;
    s.network = QStringLiteral("resnet50");
    s.batch = batch;
    return s;
}
} // namespace

class TestExportReport : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        QVERIFY(m_dir.isValid());
    }

    void theCliReportOfASessionReadsBackWithScenarioBandPinsSourcesAndPlan() {
        Session s;
        s.current = resnet50(64);
        ScenarioSettings amp = s.current;
        amp.precision = QStringLiteral("amp");
        s.pinned = {resnet50(32), amp};
        s.plan.constraints.deadline_hours = 48; // a constraint: the report plans
        const QString session = m_dir.filePath(QStringLiteral("study.iterscope"));
        QString error;
        QVERIFY2(saveSession(session, s, &error), qPrintable(error));
        const QString pdf = m_dir.filePath(QStringLiteral("study.pdf"));
        const auto r = runCli({"report", "--session", session, "--out", pdf});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        QCOMPARE(contents(pdf).left(5), QByteArray("%PDF-"));
        const QString text = squeezed(pdfText(pdf));
        QVERIFY2(!text.isEmpty(), "pdftotext read nothing");

        ComputeCache cache;
        const ResultPtr current = computeResult(s.current, cache);
        QVERIFY(current->band.rows > 0);
        for (const QString& expected :
             {labelText(current->label), QString::fromStdString(current->band.basis),
              QString::fromStdString(current->gpu.source),
              QString::fromStdString(current->system.source),
              QString::fromStdString(current->scenario.software.source), QStringLiteral("Pin 1"),
              QStringLiteral("Pin 2"), QStringLiteral("Fastest"),
              QStringLiteral("Measured accuracy")})
            QVERIFY2(text.contains(squeezed(expected)), qPrintable(expected));
        // The pins are the session's: their own parts (batch 32, the mixed precision).
        QVERIFY(text.contains(squeezed(QStringLiteral("batch 32 per GPU"))));
        // More than one page: the figures alone fill one.
        QVERIFY(pdfText(pdf).count(QLatin1Char('\f')) >= 2);
    }

    void everyWarningThatAppliesIsInTheReport_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown ops") << QStringList{"--network", kUnknownOps} << "unknown";
        QTest::newRow("does not fit")
            << QStringList{"--network", "vgg16", "--batch", "1024"} << "fit";
        QTest::newRow("extrapolated band")
            << QStringList{"--nodes", "128", "--gpus-per-node", "8"} << "beyond";
    }
    void everyWarningThatAppliesIsInTheReport() {
        QFETCH(QStringList, flags);
        QFETCH(QString, mentions);
        const QString pdf = m_dir.filePath(QStringLiteral("%1.pdf").arg(QTest::currentDataTag()));
        const auto r = runCli(QStringList{"report", "--out", pdf} + flags);
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        const QString text = squeezed(pdfText(pdf));
        // Every caveat predict would print, word for word.
        const auto p = runCli(QStringList{"predict", "--format", "json"} + flags);
        QVERIFY(p.exit_code == 0);
        int warnings = 0;
        for (const QByteArray& line : p.err.split('\n')) {
            QString w = QString::fromUtf8(line).trimmed();
            w.remove(QRegularExpression(QStringLiteral("^(iterscope-cli: )?warning: ")));
            if (w.isEmpty())
                continue;
            ++warnings;
            QVERIFY2(text.contains(squeezed(w)), qPrintable(w));
        }
        QVERIFY(warnings > 0);
        QVERIFY(text.contains(QStringLiteral("Warning:")));
        QVERIFY2(text.contains(mentions), qPrintable(mentions));
    }

    void flagsReplaceTheSessionsChoicesAndTheHtmlHoldsSvgFigures() {
        Session s;
        s.current = resnet50(64);
        const QString session = m_dir.filePath(QStringLiteral("flags.iterscope"));
        QString error;
        QVERIFY(saveSession(session, s, &error));
        const QString html = m_dir.filePath(QStringLiteral("flags.html"));
        const auto r = runCli({"report", "--session", session, "--batch", "16", "--out", html});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        const QString page = QString::fromUtf8(contents(html));
        QVERIFY(page.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(page.contains(QStringLiteral("batch 16 per GPU")));
        QVERIFY(!page.contains(QStringLiteral("batch 64 per GPU")));
        QCOMPARE(page.count(QStringLiteral("<svg")), 3); // timeline, scaling, costliest layers
        QVERIFY(!page.contains(QStringLiteral("<?xml")));
        // No plan without constraints.
        QVERIFY(!page.contains(QStringLiteral("Fastest")));
    }

    void letterPagesAreLetterSized() {
        const QString pdf = m_dir.filePath(QStringLiteral("letter.pdf"));
        const auto r =
            runCli({"report", "--network", "resnet18", "--page", "letter", "--out", pdf});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        // 8.5 × 11 in is 612 × 792 points; A4 would be 595 × 842.
        QVERIFY2(pageSize(pdf).startsWith(QStringLiteral("612 x 792")), qPrintable(pageSize(pdf)));
    }

    void badInputIsOneLineNamingTheProblem_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown type")
            << QStringList{"report", "--out", m_dir.filePath("r.txt")} << "r.txt";
        QTest::newRow("missing session")
            << QStringList{"report", "--session", m_dir.filePath("none.iterscope"), "--out",
                           m_dir.filePath("r.pdf")}
            << "none.iterscope";
        QTest::newRow("unknown network")
            << QStringList{"report", "--network", "nosuchnet", "--out", m_dir.filePath("r.pdf")}
            << "nosuchnet";
        QTest::newRow("unwritable file")
            << QStringList{"report", "--out", m_dir.filePath("no/such/dir/r.pdf")} << "r.pdf";
        QTest::newRow("page size")
            << QStringList{"report", "--page", "a5", "--out", m_dir.filePath("r.pdf")} << "--page";
    }
    void badInputIsOneLineNamingTheProblem() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r = runCli(args);
        QCOMPARE(r.exit_code, 1);
        QVERIFY(!r.crashed);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains(mentions.toUtf8()), r.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath("r.pdf")));
    }

    void figuresAreLightInADarkWindow() {
        const QPalette before = QApplication::palette();
        QPalette dark = before;
        dark.setColor(QPalette::Window, QColor(0x30, 0x30, 0x30));
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Text, Qt::white);
        dark.setColor(QPalette::WindowText, Qt::white);
        QApplication::setPalette(dark);
        ComputeCache cache;
        ReportRequest request;
        request.current = resnet50(32);
        const ReportData data = gatherReport(request, cache);
        for (const ReportFigure f :
             {ReportFigure::Timeline, ReportFigure::Scaling, ReportFigure::Layers}) {
            const auto widget = reportFigure(f, data);
            QImage image(widget->size(), QImage::Format_ARGB32);
            image.fill(Qt::transparent);
            QPainter painter(&image);
            widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
            painter.end();
            // A corner is background: light, as printed.
            QVERIFY2(image.pixelColor(3, 3).lightness() > 200, qPrintable(QString::number(int(f))));
        }
        QApplication::setPalette(before);
    }

    void theDocumentSaysWhatEachSectionHolds() {
        ComputeCache cache;
        ReportRequest request;
        request.current = resnet50(64);
        request.pins = {resnet50(32)};
        ReportData data = gatherReport(request, cache);
        QVERIFY(!data.plan); // no constraints, no plan
        const ReportDocument doc = reportDocument(data);
        const QString text = doc.plainText();
        // The pin's ratio, current against it: its images/s over the pin's.
        const double ratio =
            data.current->prediction.images_per_second / data.pins[0]->prediction.images_per_second;
        QVERIFY2(text.contains(QLocale().toString(ratio, 'f', 2) + QStringLiteral("×")),
                 qPrintable(text));
        // Costliest layers name their op; the breakdown's last row is the whole iteration.
        QVERIFY(text.contains(QStringLiteral("(Convolution)")) ||
                text.contains(QStringLiteral("/Conv")));
        QVERIFY(text.contains(QStringLiteral("Layers by module")));
        // A bound set by hand plans.
        PlanChoices choices;
        QVERIFY(!planConstrained(choices));
        choices.constraints.budget_usd = 1000;
        QVERIFY(planConstrained(choices));
    }

    void chartExportsHaveOneSizeWhateverTheWindow() {
        std::vector<std::vector<QSize>> sizes;
        for (const QSize window : {QSize(1280, 720), QSize(1920, 1080)}) {
            MainWindow w(false);
            w.resize(window);
            w.show();
            w.setScenario(ScenarioSettings{});
            QVERIFY(w.waitForResult());
            QTRY_VERIFY(!w.currentResult()->curves.by_gpus.empty());
            std::vector<QSize> made;
            QList<QWidget*> views;
            views << w.scalingCharts() << w.layerChart() << w.timeline();
            for (qsizetype i = 0; i < views.size(); ++i) {
                const QString png =
                    m_dir.filePath(QStringLiteral("%1-%2.png").arg(window.width()).arg(i));
                QString error;
                QVERIFY2(w.exportViewTo(views[i], png, &error), qPrintable(error));
                made.push_back(QImage(png).size());
            }
            sizes.push_back(made);
        }
        QCOMPARE(sizes[0], sizes[1]);
        for (const QSize& size : sizes[0])
            QCOMPARE(size.width(), kChartExportSize.width() * 2);
        // At that size nothing is shortened: the charts are not compact.
        ComputeCache cache;
        ExportChartContent content;
        content.result = computeResult(ScenarioSettings{}, cache);
        const auto widget = chartForExport(ExportChart::Scaling, content);
        QVERIFY(!static_cast<ScalingChartsView*>(widget.get())->isCompact());
    }

    void theGpuChartReadsEveryCountOnALogAxis() {
        ComputeCache cache;
        ExportChartContent content;
        content.result = computeResult(ScenarioSettings{}, cache); // 8 V100s, ResNet-50
        const auto widget = chartForExport(ExportChart::Scaling, content);
        QChart* chart = static_cast<ScalingChartsView*>(widget.get())->gpuChart()->chart();
        auto* axis = qobject_cast<QLogValueAxis*>(chart->axes(Qt::Vertical).first());
        QVERIFY(axis);
        QCOMPARE(axis->base(), 10.0);
        const auto& points = content.result->curves.by_gpus;
        double lowest = 1e300, highest = 0;
        for (const CurvePoint& p : points) {
            lowest = std::min(lowest, p.images_per_second_low);
            highest = std::max(highest, p.images_per_second_high);
        }
        const double unit = highest >= 20000 ? 1000 : 1;
        // Every value on the axis, and the lowest decade's power of ten on it (labelled).
        const double decade = std::pow(10.0, std::floor(std::log10(lowest / unit)));
        QVERIFY2(axis->min() <= decade && axis->max() >= highest / unit,
                 qPrintable(QStringLiteral("%1 to %2").arg(axis->min()).arg(axis->max())));
        // 1 and 8 GPUs, on top of each other on a linear axis up to 1,024 GPUs, are far apart.
        QXYSeries* any = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (auto* line = qobject_cast<QLineSeries*>(s);
                line && line->isVisible() && line->attachedAxes().contains(axis))
                any = line; // a throughput curve
        QVERIFY(any);
        const double y1 = chart->mapToPosition({1, points[0].images_per_second / unit}, any).y();
        const double y8 = chart->mapToPosition({8, points[3].images_per_second / unit}, any).y();
        QVERIFY2(y1 - y8 > 60, qPrintable(QStringLiteral("%1 px").arg(y1 - y8)));
        // Whole decades, a hair beyond, so that both ends keep their labels.
        QLogValueAxis probe;
        QCOMPARE(setDecadeRange(&probe, 250, 800000), 4);
        QVERIFY(probe.min() < 100 && probe.min() > 90);
        QVERIFY(probe.max() > 1e6 && probe.max() < 1.1e6);
    }

    void theValuesButtonShowsThePlottedValues() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QTRY_VERIFY(!w.currentResult()->curves.by_gpus.empty());
        ScalingChartsView* charts = w.scalingCharts();
        QVERIFY(!charts->valuesShown());
        QVERIFY(!charts->valuesTable(true)->isVisible());
        auto* button = charts->findChild<QToolButton*>(QStringLiteral("showValues"));
        QVERIFY(button);
        button->click();
        QVERIFY(charts->valuesShown());
        QApplication::processEvents();
        QVERIFY(charts->valuesTable(true)->isVisible());
        const auto& by_gpus = w.currentResult()->curves.by_gpus;
        QCOMPARE(charts->valuesTable(true)->rowCount(), int(by_gpus.size()));
        QCOMPARE(charts->valuesTable(true)->item(3, 0)->text(), QStringLiteral("8"));
        QCOMPARE(charts->valuesTable(true)->item(3, 1)->text(),
                 formatRate(by_gpus[3].images_per_second));
        QCOMPARE(charts->valuesTable(false)->rowCount(),
                 int(w.currentResult()->curves.by_batch.size()));
        // A pin gets its column.
        QVERIFY(charts->pinCurrent());
        QCOMPARE(charts->valuesTable(true)->columnCount(), 5);
    }

    void fileExportReportWritesTheSameReport() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(resnet50(32));
        QVERIFY(w.waitForResult());
        QAction* action = w.action(QStringLiteral("actionExportReport"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+E")));
        const QString pdf = m_dir.filePath(QStringLiteral("gui.pdf"));
        QString error;
        QVERIFY2(w.exportReportTo(pdf, &error), qPrintable(error));
        const QString text = squeezed(pdfText(pdf));
        QVERIFY(text.contains(squeezed(labelText(w.currentResult()->label))));
        QVERIFY(!w.exportReportTo(m_dir.filePath(QStringLiteral("gui.doc")), &error));
        QVERIFY(error.contains(QStringLiteral("gui.doc")));
    }
};

QTEST_MAIN(TestExportReport)
#include "tst_export_report.moc"
