#include "window/banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace iterscope::ui {

Banner::Banner(QWidget* parent)
    : QFrame(parent) {
    setObjectName(QStringLiteral("bannerBox"));
    // The same colours on light and dark themes: it must stand out from both.
    setStyleSheet(QStringLiteral("#bannerBox { background: #f8d7da; border-radius: 3px; } "
                                 "#bannerBox QLabel { color: #58151c; }"));
    m_row = new QHBoxLayout(this);
    m_row->setContentsMargins(6, 4, 6, 4);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("errorBanner"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_row->addWidget(m_label, 1);
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
        auto* button = new QPushButton(choice.text, this);
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
