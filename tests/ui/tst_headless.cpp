// The headless paths: iterscope-cli export-chart and iterscope --screenshot, run as
// processes the way scripts and the README use them.
#include "cli_runner.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

class TestHeadless : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    static QByteArray head(const QString& path, int n) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
    }

  private slots:
    void exportChartWritesEachKindAndFormat_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("suffix");
        for (const char* kind : {"scaling", "timeline", "layers"})
            for (const char* suffix : {"png", "svg", "pdf"})
                QTest::addRow("%s.%s", kind, suffix) << QString(kind) << QString(suffix);
    }
    void exportChartWritesEachKindAndFormat() {
        QFETCH(QString, kind);
        QFETCH(QString, suffix);
        const QString out = m_dir.filePath(kind + "." + suffix);
        const auto r = runCli({"export-chart", "--kind", kind, "--network", "resnet18", "--batch",
                               "32", "--out", out});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        if (suffix == "png") {
            const QImage image(out);
            QVERIFY(!image.isNull());
            QVERIFY(image.width() >= 1000);
        } else if (suffix == "svg") {
            QVERIFY(head(out, 4096).contains("<svg"));
        } else {
            QCOMPARE(head(out, 5), QByteArray("%PDF-"));
        }
    }

    void exportChartRefusesBadInputOnOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown image type")
            << QStringList{"export-chart", "--out", m_dir.filePath("chart.bmp")} << "chart.bmp";
        QTest::newRow("unknown network") << QStringList{"export-chart", "--network", "nosuchnet",
                                                        "--out", m_dir.filePath("c.png")}
                                         << "nosuchnet";
        QTest::newRow("batch out of range")
            << QStringList{"export-chart", "--batch", "0", "--out", m_dir.filePath("c.png")}
            << "--batch";
        QTest::newRow("unwritable file")
            << QStringList{"export-chart", "--out", m_dir.filePath("no/such/dir/c.png")} << "c.png";
    }
    void exportChartRefusesBadInputOnOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r = runCli(args);
        QCOMPARE(r.exit_code, 1);
        QVERIFY(!r.crashed);
        QCOMPARE(r.errLines(), 1);
        QVERIFY2(r.err.contains(mentions.toUtf8()), r.err.constData());
    }

#ifdef ITERSCOPE_GUI_PATH
    void theGuiRendersAScreenshotAndExits() {
        const QString out = m_dir.filePath("window.png");
        const auto r = runProgram(QStringLiteral(ITERSCOPE_GUI_PATH),
                                  {"--network", "resnet50", "--batch", "32", "--screenshot", out});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1600, 1000));
    }

    void theGuiRendersAtTheAskedSize_data() {
        QTest::addColumn<QString>("size");
        QTest::newRow("laptop") << "1280x720";
        QTest::newRow("full HD") << "1920x1080";
    }
    void theGuiRendersAtTheAskedSize() {
        QFETCH(QString, size);
        const QString out = m_dir.filePath("window-" + size + ".png");
        const auto r = runProgram(QStringLiteral(ITERSCOPE_GUI_PATH),
                                  {"--window-size", size, "--screenshot", out});
        QVERIFY2(r.exit_code == 0 && !r.crashed, r.err.constData());
        const QStringList wh = size.split('x');
        QCOMPARE(QImage(out).size(), QSize(wh[0].toInt(), wh[1].toInt()));
    }

    void theGuiRefusesABadWindowSizeOnOneLine() {
        for (const char* bad : {"1280", "1280x", "x720", "10x10", "1280x720x3", "big"}) {
            const auto r =
                runProgram(QStringLiteral(ITERSCOPE_GUI_PATH),
                           {"--window-size", bad, "--screenshot", m_dir.filePath("never.png")});
            QCOMPARE(r.exit_code, 1);
            QCOMPARE(r.errLines(), 1);
            QVERIFY2(r.err.contains("--window-size"), r.err.constData());
        }
        QVERIFY(!QFile::exists(m_dir.filePath("never.png")));
    }

    void theGuiRefusesABadNetworkOnOneLine() {
        const auto r = runProgram(QStringLiteral(ITERSCOPE_GUI_PATH),
                                  {"--network", m_dir.filePath("missing.onnx"), "--screenshot",
                                   m_dir.filePath("never.png")});
        QCOMPARE(r.exit_code, 1);
        QCOMPARE(r.errLines(), 1);
        QVERIFY(r.err.contains("missing.onnx"));
        QVERIFY(!QFile::exists(m_dir.filePath("never.png")));
    }
#endif
};

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
