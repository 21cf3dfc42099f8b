// iterscope-cli plan as outside checks run it (DESIGN.md "Interfaces"): the JSON keys, --all,
// CSV, a prices file of one's own, and one-line errors with exit status 1.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// Every child process reads the test's own profiles.
CliResult cli(const QStringList& args) {
    qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
    CliResult r = runCli(args);
    if (r.crashed)
        r.exit_code = -1; // never taken for a clean exit, whatever the signal
    return r;
}

// A small plan: two DGX systems with their GPUs and a workstation with a PCIe card; `more`
// may name other GPUs or systems.
QStringList small(const QStringList& more = {}) {
    QStringList args{"plan", "--network", "resnet18", "--max-gpus", "32"};
    if (!more.contains("--gpus"))
        args << "--gpus"
             << "v100-sxm2-16gb,a100-sxm4-80gb,h100-pcie";
    if (!more.contains("--systems"))
        args << "--systems"
             << "dgx1-v100,dgx-a100,workstation-pcie4";
    return args + more;
}

void checkPoint(const QJsonObject& p) {
    for (const char* key : {"gpu", "system", "nodes", "gpus_per_node", "batch_per_gpu", "precision",
                            "sync", "images_per_second", "hours", "cost_usd", "energy_kwh"})
        QVERIFY2(p.contains(key), key);
    QVERIFY(p["hours"].toDouble() > 0);
    QVERIFY(p["images_per_second"].toDouble() > 0);
    QVERIFY(p["energy_kwh"].toDouble() > 0);
    // The prediction's error band reaches the hours, the cost and the energy alike.
    const double h = p["hours"].toDouble();
    QVERIFY(p["hours_low"].toDouble() < h && h < p["hours_high"].toDouble());
    const double e = p["energy_kwh"].toDouble();
    QVERIFY(p["energy_kwh_low"].toDouble() < e && e < p["energy_kwh_high"].toDouble());
    QVERIFY(qAbs(p["energy_kwh_high"].toDouble() / e - p["hours_high"].toDouble() / h) < 1e-9);
    if (p["cost_usd"].isDouble())
        QVERIFY(p["cost_usd_low"].toDouble() < p["cost_usd"].toDouble() &&
                p["cost_usd"].toDouble() < p["cost_usd_high"].toDouble());
}

void expectOneLineError(const CliResult& r, const char* expected) {
    QCOMPARE(r.exit_code, 1);
    QVERIFY(r.out.isEmpty());
    const QByteArray err = r.err.trimmed();
    QVERIFY2(!err.contains('\n'), err.constData());
    QVERIFY2(err.contains(expected), err.constData());
}

} // namespace

class PlanCli : public QObject {
    Q_OBJECT
  private slots:
    void jsonHasTheDocumentedKeys() {
        const CliResult r = cli(small({"--format", "json"}));
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QVERIFY(o["candidates"].toInt() > 50);
        const QJsonArray pareto = o["pareto"].toArray();
        QVERIFY(pareto.size() >= 2);
        for (const QJsonValue& p : pareto) {
            checkPoint(p.toObject());
            QVERIFY(p.toObject()["cost_usd"].isDouble());
        }
        checkPoint(o["fastest"].toObject());
        checkPoint(o["cheapest"].toObject());
        QVERIFY(!o.contains("all"));
        // The cheapest costs no more than any front point, the fastest is no slower.
        for (const QJsonValue& p : pareto) {
            QVERIFY(o["cheapest"]["cost_usd"].toDouble() <= p["cost_usd"].toDouble());
            QVERIFY(o["fastest"]["hours"].toDouble() <= p["hours"].toDouble());
        }
    }

    void allListsEveryCandidate() {
        const CliResult r = cli(small({"--all", "--format", "json"}));
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray all = o["all"].toArray();
        QCOMPARE(all.size(), o["candidates"].toInt());
        checkPoint(all.first().toObject());
        QVERIFY(all.first().toObject().contains("meets_constraints"));
    }

    void csvHasAHeaderAndTheFront() {
        const CliResult r = cli(small({"--format", "csv"}));
        QCOMPARE(r.exit_code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QVERIFY(lines.size() >= 3);
        QVERIFY(lines[0].startsWith("gpu,system,nodes,gpus_per_node"));
        QVERIFY(r.out.contains(",true,"));
    }

    void tableNamesTheFastestAndTheCheapest() {
        const CliResult r = cli(small());
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.contains("Pareto front"));
        QVERIFY(r.out.contains("Fastest:"));
        QVERIFY(r.out.contains("Cheapest:"));
    }

    void aPricesFileChangesTheCost() {
        QTemporaryDir dir;
        const QString path = dir.filePath("prices.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "iterscope-prices", "version": 1,
                    "gpus": {"a100-sxm4-80gb": {"usd_per_gpu_hour": 0.01}}})");
        f.close();
        const QStringList args{"plan",      "--network", "resnet18",   "--gpus", "a100-sxm4-80gb",
                               "--systems", "dgx-a100",  "--max-gpus", "8",      "--format",
                               "json"};
        const CliResult shipped = cli(args);
        const CliResult mine = cli(args + QStringList{"--prices", path});
        QCOMPARE(shipped.exit_code, 0);
        QCOMPARE(mine.exit_code, 0);
        const QJsonObject a = QJsonDocument::fromJson(shipped.out).object()["cheapest"].toObject();
        const QJsonObject b = QJsonDocument::fromJson(mine.out).object()["cheapest"].toObject();
        QCOMPARE(b["usd_per_gpu_hour"].toDouble(), 0.01);
        QVERIFY(b["cost_usd"].toDouble() < a["cost_usd"].toDouble() / 10);
    }

    void badInputIsOneLineAndExitOne_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("epochs 0") << QStringList{"--epochs", "0"} << "--epochs";
        QTest::newRow("negative images")
            << QStringList{"--dataset-images", "-5"} << "--dataset-images";
        QTest::newRow("unknown gpu")
            << QStringList{"--gpus", "v100-sxm2-16gb,gtx9090"} << "gtx9090";
        QTest::newRow("unknown system") << QStringList{"--systems", "dgx-9"} << "dgx-9";
        QTest::newRow("bad precision") << QStringList{"--precision", "fp8"} << "--precision";
        QTest::newRow("zero budget") << QStringList{"--budget-usd", "0"} << "--budget-usd";
        QTest::newRow("missing prices file")
            << QStringList{"--prices", "/nonexistent/prices.json"} << "/nonexistent/prices.json";
    }
    void badInputIsOneLineAndExitOne() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        expectOneLineError(cli(small(args)), expected.toUtf8().constData());
    }

    void aMalformedPricesFileIsOneLine() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken-prices.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "iterscope-prices", "version": 1, "gpus": {"t4": )");
        f.close();
        expectOneLineError(cli(small({"--prices", path})), "broken-prices.json");
    }

    void nothingMeetingTheConstraintsSaysWhatToRelax() {
        expectOneLineError(cli(small({"--deadline-hours", "0.0001"})),
                           "--deadline-hours to at least");
        expectOneLineError(cli(small({"--budget-usd", "0.0001"})), "--budget-usd to at least");
    }

    void aGpuThatFitsNoSystemIsExplained() {
        expectOneLineError(cli({"plan", "--network", "resnet18", "--gpus", "h100-sxm", "--systems",
                                "cluster-10gbe"}),
                           "fits a system");
    }
};

QTEST_GUILESS_MAIN(PlanCli)
#include "tst_plan_cli.moc"
