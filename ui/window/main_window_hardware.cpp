// MainWindow's Hardware menu: the user's own GPUs and systems, made, changed, copied and
// deleted through the profile editor; and a session that names a profile no longer there,
// which waits behind a banner (locate its file, or use the window's) like one whose network
// moved.
#include "window/main_window.h"

#include "prediction/predictor.h"
#include "profile_editor/profile_editor.h"
#include "scenario/scenario_panel.h"
#include "session/session_profiles.h"

#include "hardware/profile_loader.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

#include <algorithm>

namespace iterscope::ui {

namespace {

QString kindWord(ProfileKind kind) {
    return kind == ProfileKind::Gpu ? MainWindow::tr("GPU") : MainWindow::tr("system");
}

QString& scenarioField(ScenarioSettings& s, ProfileKind kind) {
    return kind == ProfileKind::Gpu ? s.gpu : s.system;
}

// What a scenario uses when it is told nothing.
QString defaultProfile(ProfileKind kind) {
    ScenarioSettings defaults;
    return scenarioField(defaults, kind);
}

} // namespace

void MainWindow::createHardwareMenu() {
    auto* menu = menuBar()->addMenu(tr("&Hardware"));
    const auto add = [this, menu](ProfileKind kind, const QString& name) {
        const QString what = kindWord(kind);
        auto* make = menu->addAction(tr("New %1…").arg(name), this,
                                     [this, kind] { openProfileEditor(kind, false); });
        make->setObjectName(kind == ProfileKind::Gpu ? "actionNewGpu" : "actionNewSystem");
        make->setToolTip(tr("Describe a %1 of your own, starting from a similar one").arg(what));
        auto* edit = menu->addAction(tr("Edit This %1…").arg(name), this, [this, kind] {
            openProfileEditor(kind, true, scenarioField(m_current, kind));
        });
        edit->setObjectName(kind == ProfileKind::Gpu ? "actionEditGpu" : "actionEditSystem");
        auto* copy = menu->addAction(tr("Duplicate This %1…").arg(name), this, [this, kind] {
            openProfileEditor(kind, false, scenarioField(m_current, kind));
        });
        copy->setObjectName(kind == ProfileKind::Gpu ? "actionDuplicateGpu"
                                                     : "actionDuplicateSystem");
        auto* remove = menu->addAction(tr("Delete This %1…").arg(name), this,
                                       [this, kind] { askDeleteProfile(kind); });
        remove->setObjectName(kind == ProfileKind::Gpu ? "actionDeleteGpu" : "actionDeleteSystem");
    };
    add(ProfileKind::Gpu, tr("GPU"));
    menu->addSeparator();
    add(ProfileKind::System, tr("System"));
    // Edit and Delete are for the user's own profiles only; checked as the menu opens, since
    // the scenario's GPU changes with every choice in the panel.
    connect(menu, &QMenu::aboutToShow, this, &MainWindow::updateHardwareActions);
    updateHardwareActions();
}

void MainWindow::updateHardwareActions() {
    const ScenarioSettings s = m_panel->settings();
    for (ProfileKind kind : {ProfileKind::Gpu, ProfileKind::System}) {
        const bool gpu = kind == ProfileKind::Gpu;
        const QString id = gpu ? s.gpu : s.system;
        const bool mine = isUserProfile(kind, id.toStdString());
        const QString reason =
            mine ? QString() : tr("%1 is a shipped profile: duplicate it to change it").arg(id);
        for (const char* name : {gpu ? "actionEditGpu" : "actionEditSystem",
                                 gpu ? "actionDeleteGpu" : "actionDeleteSystem"}) {
            QAction* a = action(QLatin1String(name));
            a->setEnabled(mine);
            a->setToolTip(reason);
        }
    }
}

ProfileEditor* MainWindow::openProfileEditor(ProfileKind kind, bool edit, const QString& from) {
    const QString start = from.isEmpty() ? scenarioField(m_current, kind) : from;
    auto* editor = new ProfileEditor(
        kind, edit ? ProfileEditor::Mode::Edit : ProfileEditor::Mode::New, start, this);
    editor->setAttribute(Qt::WA_DeleteOnClose);
    const QString replaced = edit ? start : QString();
    connect(editor, &ProfileEditor::saved, this,
            [this, replaced](ProfileKind saved_kind, const QString& id) {
                onProfileSaved(saved_kind, id, replaced);
            });
    editor->show();
    return editor;
}

void MainWindow::onProfileSaved(ProfileKind kind, const QString& id, const QString& replaced) {
    // An edit may change figures under the same id: profiles are read again.
    m_predictor->cache().forgetHardware();
    m_panel->reloadHardware();
    ScenarioSettings s = m_panel->settings();
    QString& field = scenarioField(s, kind);
    // A new profile is what the user wants to see; an edit keeps the scenario on it.
    if (replaced.isEmpty() || field == replaced)
        field = id;
    if (kind == ProfileKind::System && field == id) {
        // A system described with fewer GPUs or nodes than the scenario asks for: the
        // scenario shrinks to fit it rather than ask for what it cannot hold.
        try {
            const SystemProfile system = m_predictor->cache().system(id);
            s.gpus_per_node = std::min(s.gpus_per_node, system.gpus_per_node);
            s.nodes = std::min(s.nodes, system.max_nodes);
        } catch (const std::exception&) {
        }
    }
    setScenario(s);
    updateHardwareActions();
    statusBar()->showMessage(
        tr("Saved your %1 %2 in %3")
            .arg(kindWord(kind), id,
                 QString::fromStdString(userProfilePath(kind, id.toStdString()))),
        8000);
}

bool MainWindow::deleteUserProfile(ProfileKind kind, const QString& id, QString* error) {
    try {
        removeUserProfile(kind, id.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_predictor->cache().forgetHardware();
    ScenarioSettings s = m_panel->settings();
    QString& field = scenarioField(s, kind);
    const bool used = field == id;
    if (used)
        field = defaultProfile(kind);
    // The scenario moves off it first, so that the box, listed again, does not keep it as an
    // unknown id.
    if (used)
        setScenario(s);
    m_panel->reloadHardware();
    updateHardwareActions();
    statusBar()->showMessage(tr("Deleted your %1 %2").arg(kindWord(kind), id), 6000);
    return true;
}

void MainWindow::askDeleteProfile(ProfileKind kind) {
    const QString id = scenarioField(m_current, kind);
    if (QMessageBox::question(this, tr("Delete %1").arg(kindWord(kind)),
                              tr("Delete your %1 %2? Its file goes; sessions that name it will "
                                 "ask for another.")
                                  .arg(kindWord(kind), id)) != QMessageBox::Yes)
        return;
    QString error;
    if (!deleteUserProfile(kind, id, &error))
        QMessageBox::warning(this, tr("Delete %1").arg(kindWord(kind)), error);
}

void MainWindow::askAboutProfile(const MissingProfile& missing) {
    const QString session =
        m_waiting->path.isEmpty() ? tr("The last session") : QFileInfo(m_waiting->path).fileName();
    const QString what = kindWord(missing.kind);
    const QString instead = scenarioField(m_current, missing.kind).isEmpty()
                                ? defaultProfile(missing.kind)
                                : scenarioField(m_current, missing.kind);
    m_last_error = tr("%1 needs the %2 %3, which no profile has").arg(session, what, missing.id);
    const MissingProfile copy = missing;
    m_banner->showMessage(
        tr("<b>%1</b> needs the %2 <b>%3</b>, which no profile has (deleted, or described on "
           "another machine). The window and the session file stay as they are until you "
           "choose.")
            .arg(session.toHtmlEscaped(), what, missing.id.toHtmlEscaped()),
        QString::fromStdString(userProfilesDir()),
        {{tr("&Locate %1.json…").arg(QFileInfo(missing.id).completeBaseName()),
          [this, copy] {
              const QString file = QFileDialog::getOpenFileName(
                  this, tr("Locate the %1 profile %2").arg(kindWord(copy.kind), copy.id),
                  m_waiting->path.isEmpty() ? m_last_dir
                                            : QFileInfo(m_waiting->path).absolutePath(),
                  tr("Profiles (*.json);;All files (*)"));
              if (file.isEmpty() || !m_waiting)
                  return;
              replaceProfile(m_waiting->session, copy.kind, copy.id,
                             QFileInfo(file).absoluteFilePath());
              resumeWaitingSession(true);
          }},
         {tr("Use %1 instead").arg(instead), [this, copy, instead] {
              if (!m_waiting)
                  return;
              replaceProfile(m_waiting->session, copy.kind, copy.id, instead);
              resumeWaitingSession(true);
          }}});
    statusBar()->showMessage(m_last_error, 8000);
}

void MainWindow::resumeWaitingSession(bool altered) {
    if (!m_waiting)
        return;
    m_waiting->altered = m_waiting->altered || altered;
    if (const QStringList missing = m_waiting->session.missingNetworkFiles(); !missing.isEmpty()) {
        askAboutNetwork(missing.first(),
                        tr("it is no longer in %1").arg(QFileInfo(missing.first()).absolutePath()));
        return;
    }
    if (const auto profile = missingProfile(m_waiting->session)) {
        askAboutProfile(*profile);
        return;
    }
    SessionFile waiting = std::move(*m_waiting);
    m_waiting.reset();
    startSession(waiting.path, waiting.session, waiting.altered);
}

} // namespace iterscope::ui
