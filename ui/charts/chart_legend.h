// The scaling charts' legend: what every curve shares, then a line per curve (its colour,
// its name, what it has of its own), then the key to the marks. Each of one or two lines
// (the key up to three), eliding what does not fit (the tooltip has it whole), and a new
// height only when a text needs another line: the legend names the batch and GPU count,
// so its text changes on every slider step, and a word-wrapped rich-text label relaid the
// whole window out each time (issue 20, item 13).
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QGridLayout;
QT_END_NAMESPACE

namespace iterscope::ui {

class ElidedLabel;

class ChartLegend : public QWidget {
    Q_OBJECT
  public:
    struct Entry {
        QColor color;
        QString title; // "Current", "Pin 1"
        QString text;  // what this curve has of its own
    };

    explicit ChartLegend(QWidget* parent = nullptr);

    // Empty shared text: no "All:" line.
    void setContent(const QString& shared, const std::vector<Entry>& entries, const QString& key);
    // The lines as shown now, elided where they are ("All: …", "Current: …", the key), for
    // tests.
    QStringList shownLines() const;
    int lineCount() const;

  private:
    struct Row {
        ElidedLabel* swatch = nullptr;
        ElidedLabel* title = nullptr;
        ElidedLabel* text = nullptr;
    };
    Row makeRow(bool with_swatch);
    void removeRow(Row& row);

    QGridLayout* m_grid = nullptr;
    Row m_shared;
    std::vector<Row> m_rows;
    ElidedLabel* m_key = nullptr;
};

} // namespace iterscope::ui
