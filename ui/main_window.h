// The main window: wires the scenario panel to the predictor and the predictor's results
// to the views; owns menus, shortcuts, files, sessions and exports. Views never talk to
// the predictor; they get results through setResult().
#pragma once

#include "predictor.h"
#include "scenario_settings.h"

#include <QMainWindow>
#include <QTimer>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QSplitter;
class QTabWidget;
class QTreeView;
QT_END_NAMESPACE

namespace iterscope::ui {

class LayerChartView;
class LayerFilterModel;
class LayerTableModel;
class PlanView;
class ScalingChartsView;
class ScenarioPanel;
class SummaryPanel;
class TimelineView;

// Drops Qt's debug and warning output; for headless runs (screenshots, export-chart).
void quietQtMessages();

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // persistent: read and write QSettings (window state, recent files, last session).
    explicit MainWindow(bool persistent = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows the settings in the panel and computes them.
    void setScenario(const ScenarioSettings& settings);
    // The last session from QSettings, if any; false if there was none.
    bool restoreLastSession();
    void openNetwork(const QString& id_or_path);
    bool openSession(const QString& path, QString* error);
    bool saveSessionTo(const QString& path, QString* error);
    Session session() const;
    void applySession(const Session& session);

    // Spins the event loop until the newest request is answered or timeout_ms passes.
    bool waitForResult(int timeout_ms = 30000);
    const ResultPtr& currentResult() const { return m_result; }
    // The last failure (a file that did not open, a scenario the model refused).
    QString lastError() const { return m_last_error; }
    void setBusyIndicatorDelay(int ms) { m_busy_timer.setInterval(ms); }
    void setDarkTheme(bool dark);
    // Shows the progress indicator now if a request is running (normally after 0.5 s).
    void showBusyIndicator();

    ScenarioPanel* scenarioPanel() const { return m_panel; }
    SummaryPanel* summaryPanel() const { return m_summary; }
    TimelineView* timeline() const { return m_timeline; }
    ScalingChartsView* scalingCharts() const { return m_charts; }
    LayerChartView* layerChart() const { return m_layer_chart; }
    PlanView* planView() const { return m_plan; }
    LayerTableModel* layerModel() const { return m_model; }
    LayerFilterModel* layerProxy() const { return m_proxy; }
    QTreeView* layerView() const { return m_table; }
    QLineEdit* layerFilter() const { return m_filter; }
    Predictor* predictor() const { return m_predictor; }

    static QStringList networkFileSuffixes() { return {"onnx", "prototxt", "json"}; }

  signals:
    void resultShown();

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void createViews();
    void createActions();
    void requestCurrent();
    void onFinished(ResultPtr result);
    void onFailed(const ScenarioSettings& settings, const QString& error);
    void onBusyChanged(bool busy);
    void openFile(const QString& path);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void exportView(QWidget* view, const QString& what);
    void exportCsvFile();
    void exportTraceFile();
    void showBanner(const QString& text);
    void syncTableSelection(long layer);
    void updateTitle();
    void about();

    bool m_persistent = true;
    Predictor* m_predictor = nullptr;
    ScenarioPanel* m_panel = nullptr;
    SummaryPanel* m_summary = nullptr;
    LayerTableModel* m_model = nullptr;
    LayerFilterModel* m_proxy = nullptr;
    QTreeView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    TimelineView* m_timeline = nullptr;
    ScalingChartsView* m_charts = nullptr;
    LayerChartView* m_layer_chart = nullptr;
    PlanView* m_plan = nullptr;
    QTabWidget* m_chart_tabs = nullptr;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_horizontal = nullptr;
    QLabel* m_banner = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QMenu* m_recent_menu = nullptr;
    QAction* m_dark_action = nullptr;
    QTimer m_busy_timer;
    ResultPtr m_result;
    ScenarioSettings m_last_good;
    bool m_has_good = false;
    bool m_columns_sized = false;
    QString m_session_path;
    QString m_last_error;
    QPalette m_default_palette;
};

} // namespace iterscope::ui
