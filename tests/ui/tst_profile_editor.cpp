// The GPU and system editor (issue 30, item 6): its fields round-trip through the saved
// profile, a value the loader refuses is refused on screen with the loader's words, a saved
// GPU is in the GPU box at once and marked as the user's, predicts in the GUI exactly as
// the same JSON does through the CLI, and a session naming a deleted GPU waits behind the
// locate-or-choose banner.
#include "cli_runner.h"
#include "prediction/predictor.h"
#include "profile_editor/profile_editor.h"
#include "scenario/scenario_panel.h"
#include "session/session.h"
#include "window/banner.h"
#include "window/main_window.h"

#include "hardware/profile_loader.h"
#include "hardware/user_profiles.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

using namespace iterscope;
using namespace iterscope::ui;

namespace {

// A new GPU from the RTX 4090's sheet with a few figures changed, saved; returns the editor
// state's field texts before saving.
std::unique_ptr<ProfileEditor> newGpu(const QString& id) {
    auto editor = std::make_unique<ProfileEditor>(ProfileKind::Gpu, ProfileEditor::Mode::New,
                                                  QStringLiteral("rtx4090"));
    editor->setFieldText(QStringLiteral("id"), id);
    editor->setFieldText(QStringLiteral("name"), QStringLiteral("Lab RTX 4090 (capped)"));
    editor->setFieldText(QStringLiteral("boost_clock_mhz"), QStringLiteral("2300"));
    editor->setFieldText(QStringLiteral("fp32_tflops"), QStringLiteral("75.4"));
    editor->setFieldText(QStringLiteral("memory_gib"), QStringLiteral("48"));
    editor->setFieldText(QStringLiteral("memory_bandwidth_gbps"), QStringLiteral("960.5"));
    return editor;
}

const char* const kGpuKeys[] = {"id",
                                "name",
                                "architecture",
                                "like",
                                "compute_capability",
                                "source",
                                "notes",
                                "sm_count",
                                "fp32_lanes_per_sm",
                                "boost_clock_mhz",
                                "fp32_tflops",
                                "tf32_tflops",
                                "fp16_tensor_tflops",
                                "fp16_tflops",
                                "memory_gib",
                                "memory_bandwidth_gbps",
                                "l2_mib",
                                "pcie_gen",
                                "pcie_lanes",
                                "nvlink_links",
                                "nvlink_gbps_per_link",
                                "form_factor",
                                "tdp_watts"};

} // namespace

class TestProfileEditor : public QObject {
    Q_OBJECT

    QTemporaryDir m_user;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_user.isValid());
        qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR);
        // Inherited by the CLI the tests start, so that it sees the same user folder.
        qputenv("ITERSCOPE_USER_PROFILES", m_user.path().toUtf8());
    }

    void theFieldsRoundTripThroughTheSavedProfile() {
        auto editor = newGpu(QStringLiteral("round-trip"));
        QVERIFY2(editor->problem().isEmpty(), qPrintable(editor->problem()));
        QVERIFY(editor->saveButton()->isEnabled());
        QString error;
        QVERIFY2(editor->save(&error), qPrintable(error));
        QVERIFY(QFile::exists(m_user.filePath(QStringLiteral("gpus/round-trip.json"))));

        const GpuProfile saved = loadGpuProfile("round-trip");
        QCOMPARE(saved.name, std::string("Lab RTX 4090 (capped)"));
        QCOMPARE(saved.boost_clock_mhz, 2300.0);
        QCOMPARE(saved.memory_bytes, int64_t{48} << 30);
        QCOMPARE(saved.memory_bandwidth_gbps, 960.5);
        QCOMPARE(saved.sm_count, loadGpuProfile("rtx4090").sm_count); // kept from the base

        ProfileEditor again(ProfileKind::Gpu, ProfileEditor::Mode::Edit,
                            QStringLiteral("round-trip"));
        for (const char* key : kGpuKeys)
            QVERIFY2(again.fieldText(QLatin1String(key)) == editor->fieldText(QLatin1String(key)),
                     key);
        QVERIFY(again.problem().isEmpty());
    }

    void anInvalidFieldIsRefusedVisiblyWithTheLoadersWords() {
        auto editor = newGpu(QStringLiteral("refused"));
        const auto refused = [&editor](const QString& key, const QString& value,
                                       const QString& words) {
            editor->setFieldText(key, value);
            QVERIFY(!editor->saveButton()->isEnabled());
            QVERIFY2(editor->problemLabel()->text().contains(words),
                     qPrintable(editor->problemLabel()->text()));
            QString error;
            QVERIFY(!editor->save(&error));
            QVERIFY(!QFile::exists(QDir(qEnvironmentVariable("ITERSCOPE_USER_PROFILES"))
                                       .filePath(QStringLiteral("gpus/refused.json"))));
        };
        refused(QStringLiteral("sm_count"), QStringLiteral("0"),
                QStringLiteral("sm_count: must be between 1 and 10000"));
        QVERIFY(editor->problemLabel()->text().contains(QStringLiteral("SMs")));
        refused(QStringLiteral("sm_count"), QStringLiteral("many"),
                QStringLiteral("must be an integer"));
        editor->setFieldText(QStringLiteral("sm_count"), QStringLiteral("128"));
        // The loader's consistency check, not only its ranges.
        refused(QStringLiteral("fp32_tflops"), QStringLiteral("200"),
                QStringLiteral("disagrees with 2 x fp32_lanes_per_sm"));
        editor->setFieldText(QStringLiteral("fp32_tflops"), QStringLiteral("75.4"));
        refused(QStringLiteral("architecture"), QStringLiteral("Rubin"),
                QStringLiteral("unknown 'Rubin'"));
        editor->setFieldText(QStringLiteral("like"), QStringLiteral("Blackwell"));
        QVERIFY2(editor->saveButton()->isEnabled(), qPrintable(editor->problem()));
        refused(QStringLiteral("id"), QStringLiteral("h100-sxm"), QStringLiteral("shipped"));
        refused(QStringLiteral("id"), QStringLiteral("Not An Id"), QStringLiteral("lower-case"));
        editor->setFieldText(QStringLiteral("id"), QStringLiteral("refused-then-fixed"));
        QVERIFY(editor->saveButton()->isEnabled());
    }

    void aNewGpuIsInTheGpuBoxAtOnceMarkedAsTheUsers() {
        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QVERIFY(!w.action(QStringLiteral("actionEditGpu"))->isEnabled());
        ProfileEditor* editor =
            w.openProfileEditor(ProfileKind::Gpu, false, QStringLiteral("rtx4090"));
        editor->setFieldText(QStringLiteral("id"), QStringLiteral("boxed"));
        editor->setFieldText(QStringLiteral("name"), QStringLiteral("Boxed GPU"));
        QString error;
        QVERIFY2(editor->save(&error), qPrintable(error));
        QComboBox* box = w.scenarioPanel()->gpuCombo();
        const int index = box->findData(QStringLiteral("boxed"));
        QVERIFY(index >= 0);
        QCOMPARE(box->itemText(index), QStringLiteral("Boxed GPU (yours)"));
        QCOMPARE(box->currentData().toString(), QStringLiteral("boxed"));
        QVERIFY(!box->itemText(box->findData(QStringLiteral("rtx4090"))).contains("yours"));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.gpu, QStringLiteral("boxed"));
        QVERIFY(w.action(QStringLiteral("actionEditGpu"))->isEnabled());
        QVERIFY(w.action(QStringLiteral("actionDeleteGpu"))->isEnabled());

        // Deleted: gone from the box, and the scenario moves off it.
        QVERIFY2(w.deleteUserProfile(ProfileKind::Gpu, QStringLiteral("boxed"), &error),
                 qPrintable(error));
        QVERIFY(box->findData(QStringLiteral("boxed")) < 0);
        QCOMPARE(box->currentData().toString(), ScenarioSettings{}.gpu);
        QVERIFY(!w.deleteUserProfile(ProfileKind::Gpu, QStringLiteral("t4"), &error));
        QVERIFY2(error.contains(QStringLiteral("shipped")), qPrintable(error));
    }

    void theNewGpuPredictsAsTheSameJsonDoesThroughTheCli() {
        auto editor = newGpu(QStringLiteral("cli-twin"));
        QString error;
        QVERIFY2(editor->save(&error), qPrintable(error));
        // The same JSON as a file elsewhere, passed by path.
        QTemporaryDir elsewhere;
        const QString path = elsewhere.filePath(QStringLiteral("cli-twin.json"));
        QFile copy(path);
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(editor->profileText().toUtf8());
        copy.close();

        ScenarioSettings s;
        s.gpu = QStringLiteral("cli-twin");
        s.system = QStringLiteral("workstation-pcie4");
        s.gpus_per_node = 4;
        s.batch = 64;
        s.precision = QStringLiteral("amp");
        ComputeCache cache;
        const double gui_ms = computePrediction(s, cache)->prediction.iteration_ms;
        for (const QString& gpu : {QStringLiteral("cli-twin"), path}) {
            const CliResult r = runCli(
                {"predict", "--network",   s.network, "--gpu",           gpu,        "--system",
                 s.system,  "--nodes",     "1",       "--gpus-per-node", "4",        "--batch",
                 "64",      "--precision", "amp",     "--software",      s.software, "--overlap",
                 "on",      "--bucket-mb", "25",      "--format",        "json"});
            QVERIFY2(r.exit_code == 0, r.err.constData());
            const double cli_ms =
                QJsonDocument::fromJson(r.out).object().value("iteration_ms").toDouble();
            QVERIFY2(std::abs(cli_ms / gui_ms - 1) < 1e-9,
                     qPrintable(QStringLiteral("%1: CLI %2 ms, GUI %3 ms")
                                    .arg(gpu)
                                    .arg(cli_ms, 0, 'g', 17)
                                    .arg(gui_ms, 0, 'g', 17)));
        }
    }

    void aNewSystemIsSavedWithItsNodeLinksNicsAndCpu() {
        ProfileEditor editor(ProfileKind::System, ProfileEditor::Mode::New,
                             QStringLiteral("workstation-pcie4"));
        editor.setFieldText(QStringLiteral("id"), QStringLiteral("lab-box"));
        editor.setFieldText(QStringLiteral("gpus_per_node"), QStringLiteral("2"));
        editor.setFieldText(QStringLiteral("gpus_per_pcie_switch"), QStringLiteral("2"));
        editor.setFieldText(QStringLiteral("cpu_cores_per_node"), QStringLiteral("16"));
        editor.setFieldText(QStringLiteral("cpu_threads_per_node"), QStringLiteral("8"));
        QVERIFY2(editor.problem().contains(QStringLiteral("cpu_threads_per_node")),
                 qPrintable(editor.problem()));
        editor.setFieldText(QStringLiteral("cpu_threads_per_node"), QStringLiteral("32"));
        editor.setFieldText(QStringLiteral("intra_node"), QStringLiteral("nvlink-cube-mesh"));
        QVERIFY(editor.problem().contains(QStringLiteral("nvlink_pairs")));
        editor.setFieldText(QStringLiteral("nvlink_pairs"), QStringLiteral("[[0, 1, 4]]"));
        QString error;
        QVERIFY2(editor.save(&error), qPrintable(error));
        const SystemProfile saved = loadSystemProfile("lab-box");
        QCOMPARE(saved.gpus_per_node, 2);
        QCOMPARE(saved.cpu_cores_per_node, 16);
        QCOMPARE(saved.cpu_threads_per_node, 32);
        QCOMPARE(saved.nvlink_pairs.size(), std::size_t{1});
        QCOMPARE(saved.nvlink_pairs.front().links, 4);
        QVERIFY(isUserProfile(ProfileKind::System, "lab-box"));
    }

    void aSmallerSystemSavedFromTheWindowIsUsedWithinItsSize() {
        MainWindow w(false);
        ScenarioSettings s;
        s.gpu = QStringLiteral("rtx4090");
        s.system = QStringLiteral("workstation-pcie4");
        s.gpus_per_node = 4;
        w.setScenario(s);
        QVERIFY(w.waitForResult());
        ProfileEditor* editor = w.openProfileEditor(ProfileKind::System, false);
        QCOMPARE(editor->startFrom()->currentData().toString(), s.system);
        editor->setFieldText(QStringLiteral("id"), QStringLiteral("two-gpu-box"));
        editor->setFieldText(QStringLiteral("gpus_per_node"), QStringLiteral("2"));
        editor->setFieldText(QStringLiteral("gpus_per_pcie_switch"), QStringLiteral("1"));
        QString error;
        QVERIFY2(editor->save(&error), qPrintable(error));
        QVERIFY(w.waitForResult());
        QCOMPARE(w.currentResult()->settings.system, QStringLiteral("two-gpu-box"));
        QCOMPARE(w.currentResult()->settings.gpus_per_node, 2);
        QComboBox* box = w.scenarioPanel()->systemCombo();
        QVERIFY(box->currentText().endsWith(QStringLiteral("(yours)")));
        QVERIFY(w.action(QStringLiteral("actionEditSystem"))->isEnabled());
    }

    void aSessionNamingADeletedGpuWaitsBehindTheBanner() {
        auto editor = newGpu(QStringLiteral("soon-gone"));
        QString error;
        QVERIFY2(editor->save(&error), qPrintable(error));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("gone.iterscope"));
        Session session;
        session.current.gpu = QStringLiteral("soon-gone");
        session.current.system = QStringLiteral("workstation-pcie4");
        session.current.gpus_per_node = 4;
        QVERIFY(saveSession(path, session, &error));
        removeUserProfile(ProfileKind::Gpu, "soon-gone");

        MainWindow w(false);
        w.setScenario(ScenarioSettings{});
        QVERIFY(w.waitForResult());
        QVERIFY2(w.openSession(path, &error), qPrintable(error));
        QCOMPARE(w.waitingSession(), path);
        QVERIFY(w.banner()->isVisibleTo(&w));
        QVERIFY2(w.banner()->text().contains(QStringLiteral("soon-gone")),
                 qPrintable(w.banner()->text()));
        // Locate it, or use the window's GPU instead.
        QPushButton* locate = nullptr;
        QPushButton* instead = nullptr;
        for (QPushButton* button : w.banner()->buttons()) {
            if (button->text().contains(QStringLiteral("Locate soon-gone.json")))
                locate = button;
            if (button->text().contains(QStringLiteral("Use %1").arg(ScenarioSettings{}.gpu)))
                instead = button;
        }
        QVERIFY(locate != nullptr);
        QVERIFY(instead != nullptr);
        instead->click();
        QVERIFY(w.waitForResult());
        QVERIFY(w.waitingSession().isEmpty());
        QCOMPARE(w.currentResult()->settings.gpu, ScenarioSettings{}.gpu);
        QCOMPARE(w.currentResult()->settings.system, QStringLiteral("workstation-pcie4"));
        QVERIFY2(w.sessionPath().isEmpty(), "Save must not overwrite a session it changed");
    }
};

QTEST_MAIN(TestProfileEditor)
#include "tst_profile_editor.moc"
