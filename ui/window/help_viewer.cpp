#include "window/help_viewer.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFile>
#include <QPushButton>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace iterscope::ui {
namespace {
const auto kHelpRoot = QStringLiteral(":/help/");

// Serves the pages from the resources, Markdown prepared by pageMarkdown().
class HelpBrowser : public QTextBrowser {
  public:
    using QTextBrowser::QTextBrowser;

  protected:
    QVariant loadResource(int type, const QUrl& name) override {
        if (type == QTextDocument::MarkdownResource || name.path().endsWith(QLatin1String(".md")))
            return HelpViewer::pageMarkdown(name.fileName());
        if (type == QTextDocument::ImageResource)
            return {}; // screenshots are not compiled in
        return QTextBrowser::loadResource(type, name);
    }
};
} // namespace

HelpViewer::HelpViewer(QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("helpViewer"));
    setWindowTitle(tr("Iterscope help"));
    m_browser = new HelpBrowser(this);
    m_browser->setOpenLinks(true);
    m_browser->setOpenExternalLinks(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* guide = buttons->addButton(tr("User Guide"), QDialogButtonBox::ActionRole);
    auto* glossary = buttons->addButton(tr("Glossary"), QDialogButtonBox::ActionRole);
    connect(guide, &QPushButton::clicked, this,
            [this] { showPage(QStringLiteral("user-guide.md")); });
    connect(glossary, &QPushButton::clicked, this,
            [this] { showPage(QStringLiteral("glossary.md")); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(760, 640);
}

bool HelpViewer::showPage(const QString& page) {
    const QString markdown = pageMarkdown(page);
    if (markdown.isEmpty())
        return false;
    m_browser->setSource(QUrl(QStringLiteral("help/") + page), QTextDocument::MarkdownResource);
    return true;
}

QString HelpViewer::pageMarkdown(const QString& page) {
    QFile file(kHelpRoot + page);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(file.readAll());
    static const QRegularExpression image(QStringLiteral("!\\[([^\\]]*)\\]\\([^)]*\\)"));
    text.replace(image, QStringLiteral("*(Screenshot in docs/screenshots: \\1)*"));
    return text;
}

} // namespace iterscope::ui
