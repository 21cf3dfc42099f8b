#include "window/banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace iterscope::ui {
namespace {
constexpr int kMaxButtonChars = 36;
} // namespace

Banner::Banner(QWidget* parent)
    : QFrame(parent) {
    setObjectName(QStringLiteral("bannerBox"));
    // The same colours on light and dark themes: it must stand out from both.
    setStyleSheet(QStringLiteral("#bannerBox { background: #f8d7da; border-radius: 3px; } "
                                 "#bannerBox QLabel { color: #58151c; }"));
    // The text above its buttons, not beside them: beside, the text wrapped to four lines
    // in what the buttons left, and text and buttons together made the window wider than a
    // 1280-pixel screen.
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->setSpacing(2);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("errorBanner"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A word-wrapped label is at least as wide as its longest word, and a file name is one
    // word: a long one would set the window's minimum width. The tooltip has the path.
    m_label->setMinimumWidth(fontMetrics().averageCharWidth() * kMaxButtonChars);
    column->addWidget(m_label);
    m_row = new QHBoxLayout;
    m_row->addStretch();
    column->addLayout(m_row);
    hide();
}

QString Banner::text() const {
    return m_label->text();
}

void Banner::showMessage(const QString& text, const QString& details, std::vector<Choice> choices) {
    for (QPushButton* b : m_buttons)
        b->deleteLater();
    m_buttons.clear();
    m_label->setText(text);
    m_label->setToolTip(details);
    if (!choices.empty())
        choices.push_back({tr("Close"), [] {}});
    for (auto& choice : choices) {
        // A button names its file ("Locate <file>…"): a long file name, shortened in the
        // middle, must not widen the window past a laptop's screen (a 70-character name made
        // it 1,698 px wide). The whole text is the tooltip.
        QString shown = choice.text;
        const int widest = fontMetrics().averageCharWidth() * kMaxButtonChars;
        if (fontMetrics().horizontalAdvance(shown) > widest)
            shown = fontMetrics().elidedText(shown, Qt::ElideMiddle, widest);
        auto* button = new QPushButton(shown, this);
        if (shown != choice.text)
            button->setToolTip(QString(choice.text).remove(QLatin1Char('&')));
        connect(button, &QPushButton::clicked, this, [this, act = std::move(choice.act)] {
            hide();
            act();
        });
        m_row->addWidget(button, 0, Qt::AlignVCenter);
        m_buttons.push_back(button);
    }
    show();
}

} // namespace iterscope::ui
