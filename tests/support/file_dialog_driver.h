// Answers the next modal file dialog the way a user would: picks a type, types a name in
// the name field, presses Save. For tests of the save and export menus, which open
// QFileDialog::exec() (Qt's own dialog: the offscreen platform has no native one).
#pragma once

#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>

#include <memory>

// Call before triggering the action that opens the dialog. `path` is where to save;
// `filter` one of the dialog's name filters, or empty to keep the one it shows.
inline void answerNextFileDialog(const QString& path, const QString& filter = {}) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    auto ticks = std::make_shared<int>(0);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, path, filter, ticks] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        // Not open yet; once open, a few ticks for it to list its folder, as a person
        // would wait before typing.
        if (!dialog || !dialog->isVisible() || ++*ticks < 3)
            return;
        timer->stop();
        timer->deleteLater();
        if (!filter.isEmpty())
            dialog->selectNameFilter(filter);
        dialog->setDirectory(QFileInfo(path).absolutePath());
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        auto* buttons = dialog->findChild<QDialogButtonBox*>(QStringLiteral("buttonBox"));
        if (!name || !buttons) { // another dialog layout: fall back on the API
            dialog->selectFile(path);
            QMetaObject::invokeMethod(dialog, "accept");
            return;
        }
        name->setText(QFileInfo(path).fileName()); // typing: the list follows the name
        for (QAbstractButton* button : buttons->buttons())
            if (buttons->buttonRole(button) == QDialogButtonBox::AcceptRole)
                button->click();
    });
    timer->start();
}
