// File › Open Recent: the last files that opened, newest first. Kept in QSettings for the
// real window, in memory for windows that must not touch the user's settings (tests,
// screenshots). A file that fails to open is taken off the list.
#pragma once

#include <QObject>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QMenu;
QT_END_NAMESPACE

namespace iterscope::ui {

class RecentFiles : public QObject {
    Q_OBJECT
  public:
    static constexpr int kMax = 8;

    explicit RecentFiles(bool persistent, QObject* parent = nullptr);

    QStringList paths() const;
    void add(const QString& path);
    void remove(const QString& path);
    // Fills the menu with one action per file ("&1 name", the path as tooltip); each one
    // emits openRequested. Disabled when empty. Rebuilt whenever the list changes.
    void attachMenu(QMenu* menu);

  signals:
    void openRequested(const QString& path);
    void changed();

  private:
    void store(const QStringList& paths);
    void rebuildMenu();

    bool m_persistent = false;
    QStringList m_memory;
    QMenu* m_menu = nullptr;
};

} // namespace iterscope::ui
