#include "window/recent_files.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace iterscope::ui {
namespace {
const auto kKey = QStringLiteral("recentFiles");

QString normalized(const QString& path) {
    return QFileInfo(path).absoluteFilePath();
}
} // namespace

RecentFiles::RecentFiles(bool persistent, QObject* parent)
    : QObject(parent)
    , m_persistent(persistent) {}

QStringList RecentFiles::paths() const {
    return m_persistent ? QSettings().value(kKey).toStringList() : m_memory;
}

void RecentFiles::store(const QStringList& paths) {
    if (m_persistent)
        QSettings().setValue(kKey, paths);
    else
        m_memory = paths;
    rebuildMenu();
    emit changed();
}

void RecentFiles::add(const QString& path) {
    const QString p = normalized(path);
    QStringList list = paths();
    list.removeAll(p);
    list.prepend(p);
    while (list.size() > kMax)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = paths();
    if (list.removeAll(normalized(path)) > 0)
        store(list);
}

void RecentFiles::attachMenu(QMenu* menu) {
    m_menu = menu;
    rebuildMenu();
}

void RecentFiles::rebuildMenu() {
    if (!m_menu)
        return;
    m_menu->clear();
    const QStringList list = paths();
    for (int i = 0; i < list.size(); ++i) {
        const QString path = list[i];
        auto* action =
            m_menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                              this, [this, path] { emit openRequested(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    m_menu->setToolTipsVisible(true);
    m_menu->setEnabled(!list.isEmpty());
}

} // namespace iterscope::ui
