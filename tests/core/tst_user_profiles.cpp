// The user's profile folder and the profile writer: a GPU or system the user describes is
// found after the shipped ones, never shadows one, and is written so that the loader reads
// back exactly what was written.
#include "hardware/profile_loader.h"
#include "hardware/profile_writer.h"
#include "hardware/user_profiles.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <string>

using namespace iterscope;
using nlohmann::json;

namespace {

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// A GPU of the user's: a shipped one under another id and name.
std::string myGpuText(const std::string& id) {
    GpuProfile g = loadGpuProfile("rtx4090");
    g.id = id;
    g.name = "My " + id;
    return profileText(gpuProfileJson(g));
}

template <typename F> QString errorOf(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestUserProfiles : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_user;

    std::string userFile(const char* subdir, const std::string& id) const {
        return QDir(m_user->path())
            .filePath(QString("%1/%2.json").arg(subdir).arg(id.c_str()))
            .toStdString();
    }

  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void init() {
        m_user = std::make_unique<QTemporaryDir>();
        QVERIFY(m_user->isValid());
        qputenv("ITERSCOPE_USER_PROFILES", m_user->path().toUtf8());
    }

    void everyShippedGpuRoundTripsThroughTheWriter() {
        for (const std::string& id : gpuIds()) {
            const GpuProfile loaded = loadGpuProfile(id);
            const auto written = gpuProfileJson(loaded);
            const GpuProfile again = parseGpuProfile(profileText(written), id + " (written)");
            QVERIFY2(gpuProfileJson(again) == written, id.c_str());
            // Every field of the shipped file, with its value: nothing is lost on the way.
            const json file =
                readJson(std::string(ITERSCOPE_PROFILES_DIR) + "/gpus/" + id + ".json");
            const json out = json::parse(written.dump());
            for (const auto& item : file.items())
                QVERIFY2(out.contains(item.key()) && out[item.key()] == item.value(),
                         (id + ": " + item.key()).c_str());
        }
    }

    void everyShippedSystemRoundTripsThroughTheWriter() {
        for (const std::string& id : systemIds()) {
            const SystemProfile loaded = loadSystemProfile(id);
            const auto written = systemProfileJson(loaded);
            const SystemProfile again = parseSystemProfile(profileText(written), id + " (written)");
            QVERIFY2(systemProfileJson(again) == written, id.c_str());
            const json file =
                readJson(std::string(ITERSCOPE_PROFILES_DIR) + "/systems/" + id + ".json");
            const json out = json::parse(written.dump());
            for (const auto& item : file.items()) {
                // What a default says the writer leaves out: the loader's default says it.
                if (item.value() == json(false) || item.value() == json("pcie") ||
                    item.value() == json("") || item.value() == json::array())
                    continue;
                QVERIFY2(out.contains(item.key()) && out[item.key()] == item.value(),
                         (id + ": " + item.key()).c_str());
            }
        }
    }

    void theUserFolderFollowsXdg() {
        qunsetenv("ITERSCOPE_USER_PROFILES");
        const QByteArray xdg = qgetenv("XDG_DATA_HOME"), home = qgetenv("HOME");
        qputenv("XDG_DATA_HOME", "/data/home");
        QCOMPARE(userProfilesDir(), std::string("/data/home/iterscope/profiles"));
        // A relative XDG_DATA_HOME is invalid by the specification: ignored.
        qputenv("XDG_DATA_HOME", "relative");
        qputenv("HOME", "/home/someone");
        QCOMPARE(userProfilesDir(), std::string("/home/someone/.local/share/iterscope/profiles"));
        qputenv("XDG_DATA_HOME", xdg);
        qputenv("HOME", home);
    }

    void aSavedGpuIsListedAndLoadsByIdAfterTheShippedOnes() {
        QVERIFY(!contains(gpuIds(), "my-gpu"));
        const std::string path = saveUserProfile(ProfileKind::Gpu, myGpuText("my-gpu"));
        QCOMPARE(path, userFile("gpus", "my-gpu"));
        QVERIFY2(!QFile::exists(QString::fromStdString(path + ".tmp")), "no temporary left");
        const auto ids = gpuIds();
        QVERIFY(contains(ids, "my-gpu"));
        QVERIFY(contains(ids, "rtx4090"));
        QVERIFY(std::is_sorted(ids.begin(), ids.end()));
        QCOMPARE(loadGpuProfile("my-gpu").name, std::string("My my-gpu"));
        QVERIFY(isUserProfile(ProfileKind::Gpu, "my-gpu"));
        QVERIFY(!isUserProfile(ProfileKind::Gpu, "rtx4090"));
        QVERIFY(!isUserProfile(ProfileKind::System, "my-gpu"));
    }

    void aShippedIdFoundFirstAndAUserCopyOfItRefusedNamingTheFile() {
        // A hand-copied shipped file in the user folder, id unchanged.
        QVERIFY(QDir(m_user->path()).mkpath("gpus"));
        QVERIFY(QFile::copy(QString(ITERSCOPE_PROFILES_DIR) + "/gpus/t4.json",
                            QString::fromStdString(userFile("gpus", "t4"))));
        const QString error = errorOf([] { loadGpuProfile("t4"); });
        QVERIFY2(error.startsWith(QString::fromStdString(userFile("gpus", "t4"))),
                 qPrintable(error));
        QVERIFY2(error.contains("shipped"), qPrintable(error));
        QVERIFY2(!error.contains('\n'), "one line");
        const auto ids = gpuIds();
        QCOMPARE(std::count(ids.begin(), ids.end(), std::string("t4")), 1);
        QVERIFY(!isUserProfile(ProfileKind::Gpu, "t4"));
        // Other ids are untouched by the clash.
        QCOMPARE(loadGpuProfile("l4").id, std::string("l4"));
    }

    void savingAShippedIdIsRefused() {
        const QString error =
            errorOf([] { saveUserProfile(ProfileKind::Gpu, myGpuText("h100-sxm")); });
        QVERIFY2(error.contains("shipped"), qPrintable(error));
        QVERIFY(!QFile::exists(QString::fromStdString(userFile("gpus", "h100-sxm"))));
    }

    void savingOverAnotherUserProfileIsRefusedButAnEditMayRename() {
        saveUserProfile(ProfileKind::Gpu, myGpuText("mine"));
        QVERIFY(errorOf([] {
                    saveUserProfile(ProfileKind::Gpu, myGpuText("mine"));
                }).contains("already"));
        // Editing "mine" in place, then renaming it: the old file goes.
        saveUserProfile(ProfileKind::Gpu, myGpuText("mine"), "mine");
        saveUserProfile(ProfileKind::Gpu, myGpuText("renamed"), "mine");
        QVERIFY(!contains(gpuIds(), "mine"));
        QVERIFY(contains(gpuIds(), "renamed"));
    }

    void aProfileTheLoaderRefusesIsNeverWritten() {
        json bad = json::parse(myGpuText("bad"));
        bad["sm_count"] = 0;
        const QString error = errorOf([&bad] { saveUserProfile(ProfileKind::Gpu, bad.dump()); });
        QVERIFY2(error.contains("sm_count"), qPrintable(error));
        QVERIFY(!QDir(m_user->path() + "/gpus").exists("bad.json"));
    }

    void aSystemIsSavedListedAndDeleted() {
        SystemProfile s = loadSystemProfile("workstation-pcie4");
        s.id = "my-box";
        s.cpu_cores_per_node = 24;
        saveUserProfile(ProfileKind::System, profileText(systemProfileJson(s)));
        QVERIFY(contains(systemIds(), "my-box"));
        QCOMPARE(loadSystemProfile("my-box").cpu_cores_per_node, 24);
        QVERIFY(isUserProfile(ProfileKind::System, "my-box"));
        removeUserProfile(ProfileKind::System, "my-box");
        QVERIFY(!contains(systemIds(), "my-box"));
        QVERIFY(errorOf([] { loadSystemProfile("my-box"); }).contains("no such system"));
    }

    void aShippedProfileCannotBeDeleted() {
        QVERIFY(errorOf([] { removeUserProfile(ProfileKind::Gpu, "t4"); }).contains("shipped"));
        QVERIFY(QFile::exists(QString(ITERSCOPE_PROFILES_DIR) + "/gpus/t4.json"));
        QVERIFY(
            errorOf([] { removeUserProfile(ProfileKind::Gpu, "nothing"); }).contains("no such"));
    }

    void anUnknownIdNamesBothFolders() {
        const QString error = errorOf([] { loadGpuProfile("no-such-gpu"); });
        QVERIFY2(error.contains(m_user->path()), qPrintable(error));
        QVERIFY2(error.contains(ITERSCOPE_PROFILES_DIR), qPrintable(error));
    }

    void softwareIsNotLookedUpInTheUserFolder() {
        QVERIFY(QDir(m_user->path()).mkpath("software"));
        QVERIFY(QFile::copy(QString(ITERSCOPE_PROFILES_DIR) + "/software/pytorch.json",
                            m_user->path() + "/software/mine.json"));
        QVERIFY(!contains(softwareIds(), "mine"));
    }
};

QTEST_APPLESS_MAIN(TestUserProfiles)
#include "tst_user_profiles.moc"
