// A report as a flow of blocks (headings, paragraphs, warnings, tables, figures) built from
// what was predicted, before any page exists: the PDF and the HTML writers lay out the
// same blocks, so both say the same thing in the same order.
#pragma once

#include "report/report_data.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace iterscope::ui {

enum class ReportFigure { Timeline, Scaling, Layers };

struct ReportTable {
    QStringList header;
    QList<QStringList> rows;
    // Columns holding numbers, set right-aligned so that digits line up.
    QList<int> numeric_columns;
};

struct ReportBlock {
    enum class Type { Heading, Paragraph, Warning, Note, Table, Figure };
    Type type = Type::Paragraph;
    QString text; // heading, paragraph or warning text; a table's or figure's caption
    ReportTable table;
    ReportFigure figure = ReportFigure::Timeline;
};

struct ReportDocument {
    QString title;
    QString subtitle; // the scenario in words
    std::vector<ReportBlock> blocks;

    // Every text of the document, tables included, one per line: what a reader of the
    // PDF's text layer finds (tests, and pdftotext in scripts).
    QString plainText() const;
};

ReportDocument reportDocument(const ReportData& data);

} // namespace iterscope::ui
