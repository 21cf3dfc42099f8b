// The main window: wires the scenario panel to the predictor and the predictor's results
// to the views. Views never talk to the predictor; they get results through setResult().
//
// One class, one file per concern:
//   main_window.cpp          construction, scenario changes (with undo) and results, theme
//   main_window_layout.cpp   docks, splitters, the layer table and the view tabs
//                            (addViewTab() is how a new view joins the window)
//   main_window_actions.cpp  menus, shortcuts and the help viewer
//   main_window_files.cpp    networks and sessions in and out, recent files, exports
//   main_window_measured.cpp what the user measured: profiler traces, measurement files
//                            and fitted software profiles
//   main_window_hardware.cpp the user's own GPUs and systems: the editor, and sessions
//                            that name a profile no longer there
#pragma once

#include "hardware/user_profiles.h"
#include "prediction/predictor.h"
#include "session/session.h"
#include "window/banner.h"

#include <QMainWindow>
#include <QTimer>

#include <optional>

QT_BEGIN_NAMESPACE
class QAction;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QSplitter;
class QTabWidget;
class QToolButton;
class QTreeView;
QT_END_NAMESPACE

namespace iterscope::ui {

class ElidedLabel;
class LayerChartView;
class AdvisorView;
class LayerFilterModel;
class LayerTableModel;
class PlanView;
class ProfileEditor;
struct MissingProfile;
class RecentFiles;
class ScalingChartsView;
class ScenarioHistory;
class ScenarioPanel;
class SummaryPanel;
class TimelineView;

// Drops Qt's debug and warning output; for headless runs (screenshots, export-chart).
void quietQtMessages();

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // The smallest size the window is laid out for: a 1280×720 laptop screen, less a
    // title bar and a panel.
    static constexpr QSize kSmallestScreen{1280, 720};

    // persistent: read and write QSettings (window state, recent files, last session).
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // --- Scenario and results (main_window.cpp)
    // Shows the settings in the panel and computes them; one undo step.
    void setScenario(const ScenarioSettings& settings);
    // Spins the event loop until the newest request is answered or timeout_ms passes.
    bool waitForResult(int timeout_ms = 30000);
    const ResultPtr& currentResult() const { return m_result; }
    // The last failure (a file that did not open, a scenario the model refused).
    QString lastError() const { return m_last_error; }
    void setBusyIndicatorDelay(int ms) { m_busy_timer.setInterval(ms); }
    void setDarkTheme(bool dark);
    // Shows the progress indicator now if a request is running (normally after 0.5 s).
    void showBusyIndicator();
    // Shows the window: maximized on a screen smaller than its default size, unless a
    // size from the last run was restored.
    void showForScreen();

    // --- Files (main_window_files.cpp)
    // The last session from QSettings, if any; false if there was none.
    bool restoreLastSession();
    void openNetwork(const QString& id_or_path);
    // A network or a session, told apart by content, so a session saved without its
    // suffix still opens. Failures go to the error banner (and lastError()).
    void openFile(const QString& path);
    // False (and `error`) when the file is not a session. A session is shown once its
    // network has opened, so one that does not open leaves the window as it was; where its
    // network is missing or broken, the banner offers to locate it or to open the session
    // without it (waitingSession()). Only a session that opened whole is the one Save
    // writes back to.
    bool openSession(const QString& path, QString* error);
    bool saveSessionTo(const QString& path, QString* error);
    Session session() const;
    // Shows a session that is no file's (the last one, from QSettings).
    void applySession(const Session& session);
    // The session file the window is, which Save overwrites; empty when none (also after a
    // session opened without its network, so that it is never overwritten).
    QString sessionPath() const { return m_session_path; }
    // The session file waiting for the user's choice about its network, if any; empty too
    // when the waiting one is the last session, which has no file (isWaiting() tells).
    QString waitingSession() const { return m_waiting ? m_waiting->path : QString(); }
    bool isWaiting() const { return m_waiting.has_value(); }
    // The window differs from the session file it shows (or came from a file and was never
    // saved): the title's mark, and the question before the window closes.
    bool isSessionModified() const;
    // The waiting session's network is at `file` (what Locate chose): opens it with it.
    void locateWaitingNetwork(const QString& file);
    // Opens the waiting session with the window's network for its missing one, and without
    // the pins that need it; Save then asks for a name.
    void openWaitingWithoutNetwork();
    Banner* banner() const { return m_banner; }
    // What File › Export › <view> writes once a file is chosen: the view as it is on
    // screen (brought up to date when on a hidden tab, without switching to it), with the
    // scenario as caption for charts. False with a message naming the file on failure.
    bool exportViewTo(QWidget* view, const QString& path, QString* error);
    // What File › Export Report writes once a file is chosen (main_window_report.cpp): the
    // session as it is now (scenario, pins, plan constraints, measurements, trace) as a PDF
    // or HTML report, the same one `iterscope-cli report` writes. False with a message
    // naming the file on failure.
    bool exportReportTo(const QString& path, QString* error);

    // --- What the user measured (main_window_measured.cpp)
    // Reads a profiler trace off the GUI thread; once read, the scenario becomes the
    // traced one (its GPU, GPU count, batch, image size and precision; one undo step) and
    // every prediction is compared with it until closeTrace(). Failures go to the banner.
    void openTrace(const QString& path);
    void closeTrace();
    // The trace being read, or empty.
    QString traceBeingRead() const { return m_reading_trace; }
    // Reads a measurements CSV (the validation format) whose rows the scaling charts draw
    // beside the curves where they measured the scenario's network, GPU and precision.
    bool openMeasurements(const QString& path, QString* error);
    // A software profile file (what `iterscope-cli fit` writes) as the scenario's software.
    bool openSoftwareProfile(const QString& path, QString* error);
    // Pins the current scenario on `base`, the profile a fitted one started from (the
    // summary's "Compare with" link). False, with a banner, when it cannot be predicted.
    bool compareWithBaseSoftware(const QString& base);

    // --- The user's own hardware (main_window_hardware.cpp)
    // Shows the GPU or system editor (Hardware menu): a new profile that starts from `from`
    // (empty: the scenario's), or, with `edit`, the user's profile `from`. Once saved, the
    // profile is in the panel's box and the scenario uses it (one undo step).
    ProfileEditor* openProfileEditor(ProfileKind kind, bool edit, const QString& from = {});
    // Deletes the user's profile `id` (without asking; the menu asks); a scenario that used
    // it moves to the default one. False with `error` when it cannot be deleted.
    bool deleteUserProfile(ProfileKind kind, const QString& id, QString* error);

    // --- Layout (main_window_layout.cpp)
    // Adds a view as a tab beside the scaling curves and the costliest layers; returns its
    // index. A view that shows results connects to resultShown() and reads currentResult().
    int addViewTab(QWidget* view, const QString& title, const QString& tooltip = {});
    QTabWidget* viewTabs() const { return m_view_tabs; }
    QDockWidget* scenarioDock() const { return m_dock; }

    ScenarioPanel* scenarioPanel() const { return m_panel; }
    SummaryPanel* summaryPanel() const { return m_summary; }
    TimelineView* timeline() const { return m_timeline; }
    ScalingChartsView* scalingCharts() const { return m_charts; }
    LayerChartView* layerChart() const { return m_layer_chart; }
    AdvisorView* advisorView() const { return m_advisor; }
    PlanView* planView() const { return m_plan; }
    LayerTableModel* layerModel() const { return m_model; }
    LayerFilterModel* layerProxy() const { return m_proxy; }
    QTreeView* layerView() const { return m_table; }
    QLineEdit* layerFilter() const { return m_filter; }
    QLabel* layerCount() const { return m_layer_count; }
    Predictor* predictor() const { return m_predictor; }
    ScenarioHistory* history() const { return m_history; }
    RecentFiles* recentFiles() const { return m_recent; }
    // The menu action with this object name ("actionSaveSessionAs", ...), for tests.
    QAction* action(const QString& name) const;

    static QStringList networkFileSuffixes() { return {"onnx", "prototxt", "json"}; }

  signals:
    void resultShown();

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    // main_window.cpp
    void requestCurrent();
    void onPanelChanged(const ScenarioSettings& settings);
    void showSettings(const ScenarioSettings& settings); // undo/redo: no new step
    void onFinished(ResultPtr result);
    void onFailed(const ScenarioSettings& settings, const QString& error);
    void onBusyChanged(bool busy);
    void showBanner(const QString& text, const QString& details = {});
    // The banner for what predict warns of that must not be missed (unknown ops, a batch
    // that does not fit); it gives way to, and never replaces, an error's banner.
    void showCaveats(const PredictionResult& result);
    void updateTitle();
    void fitTimelineHeight();
    void saveWindowState() const;
    void restoreWindowState();
    // main_window_layout.cpp
    void createViews();
    QWidget* createSidePanel();
    QWidget* createLayerTable();
    // all: every column to its contents (first result); else the name column only.
    void sizeLayerColumns(bool all);
    void updateLayerCount();
    void showNetworkOrder();
    void syncTableSelection(long layer);
    // main_window_actions.cpp
    void createActions();
    void showHelp(const QString& page);
    void about();
    // main_window_files.cpp
    void askOpenFile();
    struct SessionFile {
        QString path; // empty: the last session, from QSettings, which has no file
        Session session;
        bool altered = false; // the user replaced a part of it: Save must ask for a name
    };
    // Asks the predictor for the session's scenario; finishSession() shows it all once that
    // is answered.
    void startSession(const QString& path, const Session& session, bool altered = false);
    void finishSession();
    // The banner for a session whose network `network` cannot be used: `why`.
    void askAboutNetwork(const QString& network, const QString& why);
    // Pins of a session, recomputed; false when one could not be (left out, with a banner).
    bool applyPins(const QList<ScenarioSettings>& pins);
    void rememberDirectory(const QString& path); // where the next dialog starts
    QString inLastDirectory(const QString& name) const;
    // False when nothing was written (the user cancelled the name, or the write failed).
    bool saveSession(bool ask);
    // Save, Discard or Cancel for a modified session; true when the window may close.
    bool askToSaveBeforeClosing();
    // The session as shown now is the one its file holds.
    void markSessionClean();
    void updateModified();
    void storeLastSession() const;
    void exportView(QWidget* view, const QString& what);
    void exportCsvFile();
    void exportReport();
    void exportTraceFile();
    // main_window_hardware.cpp
    void createHardwareMenu();
    void updateHardwareActions();
    void onProfileSaved(ProfileKind kind, const QString& id, const QString& replaced);
    void askDeleteProfile(ProfileKind kind);
    // The banner for the waiting session's GPU or system that no profile has any more.
    void askAboutProfile(const MissingProfile& missing);
    // Opens the waiting session once nothing it needs is missing; else asks about the next.
    void resumeWaitingSession(bool altered);
    // main_window_measured.cpp
    void askOpenTrace();
    void askOpenMeasurements();
    void askOpenSoftwareProfile();
    void onTraceRead(const QString& path, TracePtr trace, const QString& error);

    bool m_persistent = true;
    Predictor* m_predictor = nullptr;
    ScenarioHistory* m_history = nullptr;
    RecentFiles* m_recent = nullptr;
    ScenarioPanel* m_panel = nullptr;
    SummaryPanel* m_summary = nullptr;
    QDockWidget* m_dock = nullptr;
    LayerTableModel* m_model = nullptr;
    LayerFilterModel* m_proxy = nullptr;
    QTreeView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_layer_count = nullptr;
    QToolButton* m_network_order = nullptr;
    bool m_keep_filter = false; // the next new network keeps the filter (a session's own)
    TimelineView* m_timeline = nullptr;
    ScalingChartsView* m_charts = nullptr;
    LayerChartView* m_layer_chart = nullptr;
    AdvisorView* m_advisor = nullptr;
    PlanView* m_plan = nullptr;
    QTabWidget* m_view_tabs = nullptr;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_horizontal = nullptr;
    Banner* m_banner = nullptr;
    QString m_caveat_banner; // the text showCaveats() put there, to tell it from an error's
    QProgressBar* m_progress = nullptr;
    ElidedLabel* m_status = nullptr;
    QAction* m_dark_action = nullptr;
    QTimer m_busy_timer;
    ResultPtr m_result;
    ScenarioSettings m_current;   // what the panel shows and the newest request asked
    bool m_has_current = false;   // false until the first scenario is set
    ScenarioSettings m_last_good; // the newest settings that gave a result
    bool m_has_good = false;
    bool m_columns_sized = false;
    bool m_timeline_sized_by_user = false; // the user dragged the splitter above it
    bool m_geometry_restored = false;
    QString m_opening; // a network file asked for, added to recent files once it opens
    QString m_session_path;
    // A session opened without its network: what Save suggests a new name after.
    QString m_session_origin;
    // What the session file held when it was opened or last saved, as the window shows it.
    std::optional<Session> m_clean_session;
    std::optional<SessionFile> m_pending; // asked for, not yet answered
    std::optional<SessionFile> m_waiting; // its network missing: waits for the user
    QString m_last_dir;                   // the folder of the last file opened or saved by dialog
    QString m_last_error;
    QString m_reading_trace; // the trace file being read, empty when none
    QPalette m_default_palette;
};

} // namespace iterscope::ui
