#include "window/file_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QRegularExpression>

namespace iterscope::ui {

QStringList filterSuffixes(const QString& filter) {
    static const QRegularExpression pattern(QStringLiteral("\\*\\.([A-Za-z0-9_.-]+)"));
    QStringList out;
    for (auto it = pattern.globalMatch(filter); it.hasNext();)
        out.append(it.next().captured(1).toLower());
    return out;
}

QString withFilterSuffix(const QString& path, const QStringList& filters,
                         const QString& selected_filter) {
    if (path.isEmpty())
        return path;
    const QString name = QFileInfo(path).fileName();
    QStringList offered;
    for (const QString& filter : filters)
        offered += filterSuffixes(filter);
    for (const QString& suffix : offered)
        if (name.size() > suffix.size() + 1 &&
            name.endsWith(QLatin1Char('.') + suffix, Qt::CaseInsensitive))
            return path;
    QStringList chosen = filterSuffixes(selected_filter);
    if (chosen.isEmpty() && !filters.isEmpty())
        chosen = filterSuffixes(filters.front());
    if (chosen.isEmpty())
        return path; // "All files (*)": the name is what the user typed
    QString out = path;
    if (out.endsWith(QLatin1Char('.')))
        out.chop(1);
    return out + QLatin1Char('.') + chosen.front();
}

QString askSaveFileName(QWidget* parent, const QString& title, const QString& suggested,
                        const QStringList& filters) {
    QFileDialog dialog(parent, title);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setNameFilters(filters);
    // No setDefaultSuffix(): it follows the filter only through filterSelected, which a
    // programmatic selectNameFilter() does not emit; withFilterSuffix() below decides, and
    // asks before replacing a file that only the added suffix names.
    const QString wanted_suffix = QFileInfo(suggested).suffix().toLower();
    for (const QString& filter : filters)
        if (filterSuffixes(filter).contains(wanted_suffix)) {
            dialog.selectNameFilter(filter);
            break;
        }
    dialog.selectFile(suggested);
    // Choosing another type renames "timeline.png" to "timeline.svg" in the name field.
    QObject::connect(&dialog, &QFileDialog::filterSelected, &dialog, [&](const QString& filter) {
        const QStringList now = filterSuffixes(filter);
        const QStringList files = dialog.selectedFiles();
        if (now.isEmpty() || files.size() != 1)
            return;
        const QFileInfo info(files.front());
        for (const QString& other : filters)
            if (filterSuffixes(other).contains(info.suffix().toLower())) {
                dialog.selectFile(info.completeBaseName() + QLatin1Char('.') + now.front());
                return;
            }
    });
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return {};
    const QString typed = dialog.selectedFiles().front();
    const QString path = withFilterSuffix(typed, filters, dialog.selectedNameFilter());
    if (path != typed && QFileInfo::exists(path) &&
        QMessageBox::question(parent, title,
                              QFileDialog::tr("%1 already exists.\nDo you want to replace it?")
                                  .arg(QFileInfo(path).fileName())) != QMessageBox::Yes)
        return {};
    return path;
}

} // namespace iterscope::ui
