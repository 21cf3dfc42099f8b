#include "charts/chart_legend.h"

#include "widgets/elided_label.h"

#include <QGridLayout>

namespace iterscope::ui {

namespace {

constexpr int kSwatchColumn = 0;
constexpr int kTitleColumn = 1;
constexpr int kTextColumn = 2;

QString titleText(const QString& title) {
    return title + QLatin1Char(':');
}

} // namespace

ChartLegend::ChartLegend(QWidget* parent)
    : QWidget(parent) {
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 2, 0, 0);
    m_grid->setHorizontalSpacing(4);
    m_grid->setVerticalSpacing(0);
    m_grid->setColumnStretch(kTextColumn, 1);
    m_shared = makeRow(false);
    m_grid->addWidget(m_shared.title, 0, kSwatchColumn, 1, 2, Qt::AlignTop);
    m_grid->addWidget(m_shared.text, 0, kTextColumn);
    m_shared.title->setText(tr("All:"));
    m_key = new ElidedLabel(this);
    QFont italic = m_key->font();
    italic.setItalic(true);
    m_key->setFont(italic);
    m_key->setMaxLines(3); // wrapped, never elided, up to a narrow window's three lines
    m_grid->addWidget(m_key, 1, 0, 1, 3);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

ChartLegend::Row ChartLegend::makeRow(bool with_swatch) {
    Row row;
    if (with_swatch) {
        row.swatch = new ElidedLabel(this);
        row.swatch->setText(QStringLiteral("■"));
        row.swatch->setFixedWidth(row.swatch->fontMetrics().horizontalAdvance(row.swatch->text()) +
                                  2);
        row.swatch->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    }
    row.title = new ElidedLabel(this);
    QFont bold = row.title->font();
    bold.setBold(true);
    row.title->setFont(bold);
    // An elided label asks for no width of its own; the name takes what it needs.
    row.title->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    row.text = new ElidedLabel(this);
    row.text->setMaxLines(2); // a pin's differences may take two lines
    return row;
}

void ChartLegend::removeRow(Row& row) {
    for (ElidedLabel* label : {row.swatch, row.title, row.text})
        delete label; // leaves the layout with it
    row = {};
}

void ChartLegend::setContent(const QString& shared, const std::vector<Entry>& entries,
                             const QString& key) {
    if (entries.size() != m_rows.size()) {
        m_grid->removeWidget(m_key);
        for (Row& row : m_rows)
            removeRow(row);
        m_rows.clear();
        int line = 1;
        for (std::size_t i = 0; i < entries.size(); ++i, ++line) {
            m_rows.push_back(makeRow(true));
            m_grid->addWidget(m_rows.back().swatch, line, kSwatchColumn, Qt::AlignTop);
            m_grid->addWidget(m_rows.back().title, line, kTitleColumn, Qt::AlignTop);
            m_grid->addWidget(m_rows.back().text, line, kTextColumn);
            // Shown now, not on the next turn of the event loop as a layout would: a
            // picture taken then has every line in its place.
            for (ElidedLabel* label :
                 {m_rows.back().swatch, m_rows.back().title, m_rows.back().text})
                label->show();
        }
        m_grid->addWidget(m_key, line, 0, 1, 3);
    }
    m_shared.title->setVisible(!shared.isEmpty());
    m_shared.text->setVisible(!shared.isEmpty());
    m_shared.text->setText(shared);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Row& row = m_rows[i];
        row.swatch->setTextColor(entries[i].color);
        const QString title = titleText(entries[i].title);
        if (row.title->text() != title) {
            row.title->setText(title);
            row.title->setFixedWidth(row.title->fontMetrics().horizontalAdvance(title) + 2);
        }
        row.text->setText(entries[i].text);
    }
    m_key->setText(key);
}

QStringList ChartLegend::shownLines() const {
    QStringList lines;
    if (!m_shared.text->isHidden())
        lines << m_shared.title->text() + QLatin1Char(' ') + m_shared.text->shownLines().join(' ');
    for (const Row& row : m_rows)
        lines << row.title->text() + QLatin1Char(' ') + row.text->shownLines().join(' ');
    lines << m_key->shownLines().join(QLatin1Char(' '));
    return lines;
}

int ChartLegend::lineCount() const {
    return (m_shared.text->isHidden() ? 0 : 1) + static_cast<int>(m_rows.size()) +
           m_key->lineCount();
}

} // namespace iterscope::ui
