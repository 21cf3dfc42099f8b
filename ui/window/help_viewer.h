// Help › User Guide and Glossary: docs/user-guide.md and docs/glossary.md, compiled into
// the program (resources/iterscope.qrc), so help works offline and always matches the
// version one runs. Links between the two pages work; web links open in the browser.
#pragma once

#include <QDialog>

QT_BEGIN_NAMESPACE
class QTextBrowser;
QT_END_NAMESPACE

namespace iterscope::ui {

class HelpViewer : public QDialog {
    Q_OBJECT
  public:
    explicit HelpViewer(QWidget* parent = nullptr);

    // "user-guide.md" or "glossary.md"; false when the page is not compiled in.
    bool showPage(const QString& page);
    QTextBrowser* browser() const { return m_browser; }

    // A page's Markdown as the viewer shows it: screenshots (not compiled in, they would
    // double the program's size) become a line naming them. Empty if there is no page.
    static QString pageMarkdown(const QString& page);

  private:
    QTextBrowser* m_browser = nullptr;
};

} // namespace iterscope::ui
