// iterscope-cli advise as outside checks run it (DESIGN.md "Interfaces", issue 32 "Targets"):
// the JSON keys, every suggestion reproduced by `predict` with the scenario's flags plus
// its own, the new hardware flags, and one-line errors.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

namespace {

CliResult cli(const QStringList& args) {
    qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
    CliResult r = runCli(args);
    if (r.crashed)
        r.exit_code = -1;
    return r;
}

QJsonObject json(const CliResult& r) {
    return QJsonDocument::fromJson(r.out).object();
}

// The scenario's flags with a suggestion's on top: a flag the suggestion sets replaces the
// scenario's, as a person editing the command line would.
QStringList withFlags(QStringList base, const QJsonArray& flags) {
    for (int i = 0; i + 1 < flags.size(); i += 2) {
        const QString flag = flags[i].toString();
        const QString value = flags[i + 1].toString();
        const int at = static_cast<int>(base.indexOf(flag));
        if (at >= 0)
            base[at + 1] = value;
        else
            base << flag << value;
    }
    return base;
}

void checkEntry(const QJsonObject& s) {
    for (const char* key :
         {"kind", "change", "flags", "iteration_ms", "images_per_second", "speedup", "speedup_low",
          "speedup_high", "fits_in_memory", "global_batch", "cost", "why"})
        QVERIFY2(s.contains(key), key);
    QVERIFY(s["flags"].toArray().size() % 2 == 0);
}

void reproduceEverySuggestion(const QStringList& scenario, const QStringList& extra) {
    const CliResult advice = cli(QStringList{"advise"} + scenario + extra +
                                 QStringList{"--top", "100", "--format", "json"});
    QVERIFY2(advice.exit_code == 0, advice.err.constData());
    const QJsonObject a = json(advice);
    for (const char* key : {"iteration_ms", "images_per_second", "diagnosis", "suggestions",
                            "combinations", "not_suggested"})
        QVERIFY2(a.contains(key), key);
    const QJsonArray suggestions = a["suggestions"].toArray();
    QVERIFY(!suggestions.isEmpty());
    QJsonArray all = suggestions;
    for (const QJsonValue& c : a["combinations"].toArray())
        all.append(c);
    double previous = 1e30;
    for (const QJsonValue& v : suggestions) {
        QVERIFY(v["speedup"].toDouble() <= previous);
        previous = v["speedup"].toDouble();
        QVERIFY(v["fits_in_memory"].toBool());
    }
    for (const QJsonValue& n : a["not_suggested"].toArray()) {
        checkEntry(n.toObject());
        QVERIFY(!n["reason"].toString().isEmpty());
    }
    for (const QJsonValue& v : all) {
        const QJsonObject s = v.toObject();
        checkEntry(s);
        const QStringList args = QStringList{"predict"} +
                                 withFlags(scenario, s["flags"].toArray()) +
                                 QStringList{"--format", "json"};
        const CliResult p = cli(args);
        QVERIFY2(p.exit_code == 0, (args.join(' ') + ": " + QString(p.err)).toUtf8().constData());
        const double predicted = json(p)["iteration_ms"].toDouble();
        const double said = s["iteration_ms"].toDouble();
        QVERIFY2(
            std::abs(predicted / said - 1) < 1e-3,
            (args.join(' ') + ": " + QString::number(predicted) + " vs " + QString::number(said))
                .toUtf8()
                .constData());
    }
}

} // namespace

class AdviseCli : public QObject {
    Q_OBJECT

  private slots:
    void everySoftwareSuggestionReproducesThroughPredict() {
        reproduceEverySuggestion({"--network", "resnet50", "--gpu", "v100-sxm2-16gb", "--system",
                                  "dgx1-v100", "--gpus-per-node", "8", "--batch", "64",
                                  "--precision", "fp32"},
                                 {});
    }

    void everyHardwareSuggestionReproducesThroughPredict() {
        reproduceEverySuggestion({"--network", "vgg16", "--gpu", "v100-pcie", "--system",
                                  "cluster-10gbe", "--nodes", "4", "--gpus-per-node", "4",
                                  "--batch", "32", "--precision", "amp"},
                                 {"--include", "software,hardware"});
    }

    void theTableSaysTheDiagnosisAndTheFlags() {
        const CliResult r = cli({"advise", "--network", "resnet50", "--precision", "fp32"});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY(r.out.contains("Diagnosis: compute-bound"));
        QVERIFY(r.out.contains("--precision amp"));
        QVERIFY(r.out.contains("Not suggested:"));
    }

    void theNewFlagsChangeThePrediction() {
        const QStringList base{"predict",   "--network", "vgg16",         "--gpu",
                               "v100-pcie", "--system",  "cluster-10gbe", "--nodes",
                               "4",         "--format",  "json"};
        const double slow = json(cli(base))["iteration_ms"].toDouble();
        const double fast =
            json(cli(base + QStringList{"--nic-gbps", "12.5"}))["iteration_ms"].toDouble();
        const double two =
            json(cli(base + QStringList{"--nics-per-node", "2"}))["iteration_ms"].toDouble();
        QVERIFY(slow > 0);
        QVERIFY(fast < slow);
        QVERIFY(two < slow);
    }

    void badInputIsOneLine() {
        for (const QStringList& args : {QStringList{"advise", "--include", "magic"},
                                        QStringList{"advise", "--max-global-batch", "-5"},
                                        QStringList{"advise", "--network", "no-such-net"},
                                        QStringList{"predict", "--nic-gbps", "-1"},
                                        QStringList{"predict", "--loader-workers", "5000"}}) {
            const CliResult r = cli(args);
            QCOMPARE(r.exit_code, 1);
            QCOMPARE(r.errLines(), 1);
        }
    }
};

QTEST_GUILESS_MAIN(AdviseCli)
#include "tst_advise_cli.moc"
