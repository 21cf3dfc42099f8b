// Files in and out of the window as a user handles them (issue 14, items 1, 6 and 7):
// every save and export dialog adds the chosen type's suffix and what it wrote opens
// again; a session opens whatever its name; a chart exported from a hidden tab leaves the
// tabs alone and names its scenario; Open Recent keeps only files that opened.
#include "charts/charts.h"
#include "charts/layer_chart.h"
#include "export/chart_exports.h"
#include "export/exporters.h"
#include "file_dialog_driver.h"
#include "scenario/scenario_panel.h"
#include "window/file_dialogs.h"
#include "window/main_window.h"
#include "window/recent_files.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace iterscope::ui;

namespace {
QByteArray head(const QString& path, int n) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

const QStringList kImages = {QStringLiteral("PNG image (*.png)"),
                             QStringLiteral("SVG drawing (*.svg)"),
                             QStringLiteral("PDF document (*.pdf)")};
} // namespace

class TestFiles : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void theChosenTypesSuffixIsAdded_data() {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bare name") << "compare" << kImages[1] << "compare.svg";
        QTest::newRow("a dot in the name") << "run.v2" << kImages[0] << "run.v2.png";
        QTest::newRow("a trailing dot") << "chart." << kImages[2] << "chart.pdf";
        QTest::newRow("an offered suffix wins") << "chart.svg" << kImages[0] << "chart.svg";
        QTest::newRow("upper case") << "CHART.PDF" << kImages[0] << "CHART.PDF";
        QTest::newRow("in a folder") << "/tmp/x.y/plot" << kImages[0] << "/tmp/x.y/plot.png";
    }
    void theChosenTypesSuffixIsAdded() {
        QFETCH(QString, typed);
        QFETCH(QString, filter);
        QFETCH(QString, expected);
        QCOMPARE(withFilterSuffix(typed, kImages, filter), expected);
        QCOMPARE(filterSuffixes(QStringLiteral("Networks (*.onnx *.JSON)")),
                 (QStringList{"onnx", "json"}));
    }

    void aSessionSavedWithoutASuffixGetsOneAndReopens() {
        ScenarioSettings s;
        s.batch = 48;
        s.gpus_per_node = 4;
        {
            MainWindow w(false);
            w.setScenario(s);
            QVERIFY(w.waitForResult());
            answerNextFileDialog(path("compare"));
            w.action(QStringLiteral("actionSaveSessionAs"))->trigger();
        }
        QVERIFY(QFile::exists(path("compare.iterscope")));
        QVERIFY(!QFile::exists(path("compare")));
        MainWindow w(false);
        w.openFile(path("compare.iterscope"));
        QVERIFY(w.waitForResult());
        QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
        QCOMPARE(w.currentResult()->settings, s);
    }

    void aSessionOpensWhateverItsName() {
        // Written by an older version under a bare name, or renamed by hand.
        ScenarioSettings s;
        s.batch = 24;
        Session session;
        session.current = s;
        QString error;
        for (const QString& name : {QStringLiteral("legacy"), QStringLiteral("legacy.json")}) {
            QVERIFY2(saveSession(path(name), session, &error), qPrintable(error));
            MainWindow w(false);
            w.openFile(path(name));
            QVERIFY(w.waitForResult());
            QVERIFY2(w.currentResult(), qPrintable(w.lastError()));
            QCOMPARE(w.currentResult()->settings.batch, 24);
        }
    }

    void anUnknownFileTypeSaysWhatOpens() {
        QFile f(path("notes.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.openFile(path("notes.txt"));
        QVERIFY2(w.lastError().contains(QStringLiteral(".iterscope")), qPrintable(w.lastError()));
        QVERIFY(w.lastError().contains(QStringLiteral(".onnx")));
        QCOMPARE(w.currentResult()->settings.network, QStringLiteral("resnet50"));
    }

    void exportsGetTheirSuffixAndReopen() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        struct Case {
            const char* action;
            QString typed;
            QString filter;
            QString written;
        };
        const Case cases[] = {
            {"actionExportTimeline", path("timeline"), kImages[0], path("timeline.png")},
            {"actionExportScaling", path("scaling"), kImages[1], path("scaling.svg")},
            {"actionExportLayers", path("layers"), kImages[2], path("layers.pdf")},
            {"actionExportWindow", path("window"), kImages[0], path("window.png")},
            {"actionExportCsv", path("table"), {}, path("table.csv")},
            {"actionExportTrace", path("trace"), {}, path("trace.json")},
        };
        for (const auto& c : cases) {
            answerNextFileDialog(c.typed, c.filter);
            w.action(QLatin1String(c.action))->trigger();
            QVERIFY2(QFile::exists(c.written), c.action);
        }
        QVERIFY(!QImage(path("timeline.png")).isNull());
        QCOMPARE(QImage(path("window.png")).size(), w.size() * 2);
        QVERIFY(head(path("scaling.svg"), 4096).contains("<svg"));
        QCOMPARE(head(path("layers.pdf"), 5), QByteArray("%PDF-"));
        QVERIFY(head(path("table.csv"), 64).startsWith("layer,"));
        QFile trace(path("trace.json"));
        QVERIFY(trace.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(trace.readAll()).object().contains("traceEvents"));
    }

    void aChartOnAHiddenTabExportsWithoutSwitchingTabs() {
        MainWindow w(false);
        w.resize(1280, 720);
        w.show();
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        // The layout settles: a legend line that needs a second line takes another pass.
        QTest::qWait(100);
        QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.scalingCharts()));
        QString error;
        QVERIFY2(w.exportViewTo(w.layerChart(), path("hidden.png"), &error), qPrintable(error));
        QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.scalingCharts()));
        // The picture: the chart at the export size whatever the window, and the caption
        // band below it, as wide as the chart.
        const QImage image(path("hidden.png"));
        QWidget probe;
        probe.resize(kChartExportSize);
        const int caption = captionHeight(&probe, labelText(w.currentResult()->label));
        QVERIFY(caption > 0);
        QCOMPARE(image.width(), kChartExportSize.width() * 2);
        QCOMPARE(image.height(), (kChartExportSize.height() + caption) * 2);
    }

    void openRecentKeepsOnlyFilesThatOpened() {
        const QString good = QStringLiteral(ITERSCOPE_TEST_DATA "/onnx/resnet18.structure.onnx");
        const QString bad = path("broken.onnx");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a protobuf");
        f.close();
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        w.openFile(good);
        QVERIFY(w.waitForResult());
        QCOMPARE(w.recentFiles()->paths(), QStringList{good});
        w.recentFiles()->add(bad); // as if it had opened once, and broke since
        w.openFile(bad);
        QVERIFY(w.waitForResult());
        QTRY_VERIFY(!w.predictor()->isBusy());
        QCOMPARE(w.recentFiles()->paths(), QStringList{good});
        // The banner names the file once, the full path is in its tooltip.
        const auto* banner = w.findChild<QLabel*>(QStringLiteral("errorBanner"));
        QVERIFY(banner->isVisibleTo(&w));
        QCOMPARE(banner->text().count(QStringLiteral("broken.onnx")), 1);
        QVERIFY(!banner->text().contains(m_dir.path()));
        QCOMPARE(banner->toolTip(), bad);
        // A session that does not load goes too.
        QFile session(path("bad.iterscope"));
        QVERIFY(session.open(QIODevice::WriteOnly));
        session.write("{");
        session.close();
        w.recentFiles()->add(path("bad.iterscope"));
        w.openFile(path("bad.iterscope"));
        QCOMPARE(w.recentFiles()->paths(), QStringList{good});
    }

    void saveAsHasItsDocumentedShortcutEverywhere() {
        MainWindow w(false);
        // QKeySequence::SaveAs is empty under a plain X11 window manager.
        QVERIFY(w.action(QStringLiteral("actionSaveSessionAs"))
                    ->shortcuts()
                    .contains(QKeySequence(QStringLiteral("Ctrl+Shift+S"))));
        QCOMPARE(w.action(QStringLiteral("actionSaveSession"))->shortcut(),
                 QKeySequence(QStringLiteral("Ctrl+S")));
        QCOMPARE(w.action(QStringLiteral("actionOpen"))->shortcut(),
                 QKeySequence(QStringLiteral("Ctrl+O")));
    }
};

QTEST_MAIN(TestFiles)
#include "tst_files.moc"
