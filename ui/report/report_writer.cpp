#include "report/report_writer.h"

#include "export/chart_exports.h"
#include "export/exporters.h"

#include <QApplication>
#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPicture>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <map>

namespace iterscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("ReportWriter", text);
}

// Figures are drawn this wide (widget pixels) and scaled to the text's width: a page's
// column is some 670 px at 96 dpi, so their 9-point labels print at about 7.5 points.
constexpr int kFigureWidth = 820;

const QColor kInk(0x20, 0x20, 0x20);
const QColor kRule(0xc8, 0xc8, 0xc8);
const QColor kHeaderFill(0xee, 0xf1, 0xf5);
const QColor kWarningFill(0xfd, 0xec, 0xea);
const QColor kWarningBar(0xd6, 0x27, 0x28);
const QColor kNoteFill(0xee, 0xf4, 0xfb);
const QColor kNoteBar(0x1f, 0x77, 0xb4);

QFont font(double points, bool bold = false, bool italic = false) {
    QFont f = QApplication::font();
    f.setPointSizeF(points);
    f.setBold(bold);
    f.setItalic(italic);
    // No ligatures: the PDF's text must read back as typed ("fit", not "ﬁt"), for search,
    // copy and paste and pdftotext.
    f.setStyleStrategy(QFont::PreferNoShaping);
    return f;
}

// Lays out blocks top to bottom on pages, starting a new page where the next piece does
// not fit. Table rows are the unit of breaking; a table's header repeats on each page.
class PdfLayout {
  public:
    PdfLayout(QPdfWriter& pdf, QPainter& painter, const ReportData& data)
        : m_pdf(pdf)
        , m_p(painter)
        , m_data(data) {
        const double margin = 60; // about 16 mm
        m_content = QRectF(margin, margin, pdf.width() - 2 * margin, pdf.height() - 2 * margin);
        m_y = m_content.top();
    }

    void title(const QString& title, const QString& subtitle) {
        text(title, font(17, true), 4);
        text(subtitle, font(9, false, true), 10);
    }

    // `next`: the block after this one, which a heading keeps on its page.
    void block(const ReportBlock& b, const ReportBlock* next) {
        switch (b.type) {
        case ReportBlock::Type::Heading:
            // A heading never ends a page: it stays with a few lines of what follows, or
            // with the whole figure it introduces.
            ensure(textHeight(b.text, font(13, true)) + 12 +
                   (next && next->type == ReportBlock::Type::Figure ? figureHeight(*next) : 80));
            m_y += 8;
            text(b.text, font(13, true), 4);
            break;
        case ReportBlock::Type::Paragraph:
            text(b.text, font(9.5), 6);
            break;
        case ReportBlock::Type::Warning:
            boxed(tr("Warning: %1").arg(b.text), kWarningFill, kWarningBar);
            break;
        case ReportBlock::Type::Note:
            boxed(tr("Note: %1").arg(b.text), kNoteFill, kNoteBar);
            break;
        case ReportBlock::Type::Table:
            table(b.table);
            if (!b.text.isEmpty())
                text(b.text, font(8, false, true), 8);
            else
                m_y += 6;
            break;
        case ReportBlock::Type::Figure:
            figure(b);
            break;
        }
    }

    void finish() { footer(); }

  private:
    double textHeight(const QString& s, const QFont& f, double width = -1) {
        m_p.setFont(f);
        const QRectF r = m_p.boundingRect(QRectF(0, 0, width > 0 ? width : m_content.width(), 1e6),
                                          Qt::TextWordWrap | Qt::AlignLeft, s);
        return r.height();
    }

    void text(const QString& s, const QFont& f, double after) {
        const double h = textHeight(s, f);
        ensure(h);
        m_p.setFont(f);
        m_p.setPen(kInk);
        m_p.drawText(QRectF(m_content.left(), m_y, m_content.width(), h),
                     Qt::TextWordWrap | Qt::AlignLeft, s);
        m_y += h + after;
    }

    void boxed(const QString& s, const QColor& fill, const QColor& bar) {
        const QFont f = font(9.5);
        const double pad = 6;
        const double h = textHeight(s, f, m_content.width() - 3 * pad) + 2 * pad;
        ensure(h);
        const QRectF box(m_content.left(), m_y, m_content.width(), h);
        m_p.fillRect(box, fill);
        m_p.fillRect(QRectF(box.left(), box.top(), 3, box.height()), bar);
        m_p.setFont(f);
        m_p.setPen(kInk);
        m_p.drawText(box.adjusted(2 * pad, pad, -pad, -pad), Qt::TextWordWrap | Qt::AlignLeft, s);
        m_y += h + 5;
    }

    std::vector<double> columnWidths(const ReportTable& t, const QFont& body, const QFont& head) {
        const double pad = 12;
        const int n = static_cast<int>(t.header.size());
        std::vector<double> natural(static_cast<std::size_t>(n), 0);
        const QFontMetricsF bm(body, &m_pdf), hm(head, &m_pdf);
        for (int c = 0; c < n; ++c) {
            natural[c] = hm.horizontalAdvance(t.header[c]) + pad;
            for (const QStringList& cells : t.rows)
                natural[c] = std::max(natural[c], bm.horizontalAdvance(cells.value(c)) + pad);
        }
        double total = 0;
        for (double w : natural)
            total += w;
        const double width = m_content.width();
        if (total <= width) {
            // The first column takes what is left, so tables span the text's width.
            natural[0] += width - total;
            return natural;
        }
        // Too wide: each column keeps at least its longest word (a third of the width at
        // most), and what is left goes to the columns in proportion to what they lack; the
        // long texts wrap. A source paragraph took it all, and the names beside it were
        // one letter wide.
        std::vector<double> least(static_cast<std::size_t>(n), 0);
        double least_total = 0;
        for (int c = 0; c < n; ++c) {
            double word = 0;
            const auto longest = [&](const QString& text, const QFontMetricsF& m) {
                for (const QString& w : text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
                    word = std::max(word, m.horizontalAdvance(w) + pad);
            };
            longest(t.header[c], hm);
            for (const QStringList& cells : t.rows)
                longest(cells.value(c), bm);
            least[c] = std::min({natural[c], word, width / 3});
            least_total += least[c];
        }
        if (least_total >= width) {
            for (double& w : least)
                w *= width / least_total;
            return least;
        }
        const double spare = width - least_total, lacking = total - least_total;
        for (int c = 0; c < n; ++c)
            least[c] += spare * (natural[c] - least[c]) / std::max(1.0, lacking);
        return least;
    }

    double rowHeight(const QStringList& cells, const std::vector<double>& widths, const QFont& f) {
        double h = 0;
        for (std::size_t c = 0; c < widths.size(); ++c)
            h = std::max(h, textHeight(cells.value(static_cast<qsizetype>(c)), f, widths[c] - 10));
        return h + 6;
    }

    void row(const QStringList& cells, const std::vector<double>& widths, const QFont& f,
             const QList<int>& numeric, double h, const QColor& fill) {
        double x = m_content.left();
        if (fill.isValid())
            m_p.fillRect(QRectF(x, m_y, m_content.width(), h), fill);
        m_p.setFont(f);
        m_p.setPen(kInk);
        for (std::size_t c = 0; c < widths.size(); ++c) {
            const int align =
                numeric.contains(static_cast<int>(c)) ? Qt::AlignRight : Qt::AlignLeft;
            m_p.drawText(QRectF(x + 5, m_y + 3, widths[c] - 10, h - 6),
                         Qt::TextWordWrap | align | Qt::AlignTop,
                         cells.value(static_cast<qsizetype>(c)));
            x += widths[c];
        }
        m_p.setPen(QPen(kRule, 0.6));
        m_p.drawLine(QPointF(m_content.left(), m_y + h), QPointF(m_content.right(), m_y + h));
        m_y += h;
    }

    void table(const ReportTable& t) {
        const QFont body = font(8.5), head = font(8.5, true);
        const std::vector<double> widths = columnWidths(t, body, head);
        const double head_h = rowHeight(t.header, widths, head);
        const auto header = [&] {
            row(t.header, widths, head, t.numeric_columns, head_h, kHeaderFill);
        };
        ensure(head_h + (t.rows.isEmpty() ? 0 : rowHeight(t.rows.front(), widths, body)));
        header();
        for (const QStringList& cells : t.rows) {
            const double h = rowHeight(cells, widths, body);
            if (m_y + h > m_content.bottom()) {
                newPage();
                header();
            }
            row(cells, widths, body, t.numeric_columns, h, QColor());
        }
        m_y += 4;
    }

    QWidget* figureWidget(const ReportBlock& b) {
        auto& w = m_figures[static_cast<int>(b.figure)];
        if (!w)
            w = reportFigure(b.figure, m_data);
        return w.get();
    }

    // Drawn at the text's width; a figure taller than a page (a timeline of many GPU
    // groups) shrinks to fit one.
    double figureScale(const ReportBlock& b) {
        QWidget* w = figureWidget(b);
        const double scale = m_content.width() / w->width();
        return scale * std::min(1.0, (m_content.height() - 30) / (w->height() * scale));
    }

    double figureHeight(const ReportBlock& b) {
        return figureWidget(b)->height() * figureScale(b) + 3 +
               textHeight(b.text, font(8, false, true));
    }

    void figure(const ReportBlock& b) {
        QWidget* w = figureWidget(b);
        const double scale = figureScale(b);
        ensure(figureHeight(b));
        // Recorded at the widget's own scale, then played scaled: rendered through a
        // scaled painter, Qt Charts left out legend entries (the costliest layers' legend
        // showed "Forward" alone). A picture keeps the drawing vector.
        QPicture picture;
        {
            QPainter recorder(&picture);
            w->render(&recorder, QPoint(), QRegion(), QWidget::DrawChildren);
        }
        m_p.save();
        m_p.translate(m_content.left(), m_y);
        m_p.scale(scale, scale);
        m_p.drawPicture(QPointF(0, 0), picture);
        m_p.restore();
        m_y += w->height() * scale + 3;
        text(b.text, font(8, false, true), 8);
    }

    void ensure(double height) {
        if (m_y + height > m_content.bottom() && m_y > m_content.top())
            newPage();
    }

    void footer() {
        m_p.setFont(font(7.5));
        m_p.setPen(QColor(0x70, 0x70, 0x70));
        m_p.drawText(QRectF(m_content.left(), m_content.bottom() + 14, m_content.width(), 20),
                     Qt::AlignRight | Qt::AlignTop, tr("Iterscope report · page %1").arg(m_page));
    }

    void newPage() {
        footer();
        m_pdf.newPage();
        ++m_page;
        m_y = m_content.top();
    }

    QPdfWriter& m_pdf;
    QPainter& m_p;
    const ReportData& m_data;
    std::map<int, std::unique_ptr<QWidget>> m_figures; // by ReportFigure, made once
    QRectF m_content;
    double m_y = 0;
    int m_page = 1;
};

QByteArray pdfBytes(const ReportDocument& doc, const ReportData& data, ReportPage page,
                    QString* why) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setTitle(doc.title);
    pdf.setCreator(QStringLiteral("Iterscope"));
    // 96 dpi: widget pixels are device pixels, so figures render at their own scale.
    pdf.setResolution(96);
    pdf.setPageSize(QPageSize(page == ReportPage::Letter ? QPageSize::Letter : QPageSize::A4));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter;
    if (!painter.begin(&pdf)) {
        *why = tr("cannot start the PDF writer");
        return {};
    }
    PdfLayout layout(pdf, painter, data);
    layout.title(doc.title, doc.subtitle);
    for (std::size_t i = 0; i < doc.blocks.size(); ++i)
        layout.block(doc.blocks[i], i + 1 < doc.blocks.size() ? &doc.blocks[i + 1] : nullptr);
    layout.finish();
    painter.end();
    return bytes;
}

QString svgOf(QWidget* widget) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(), widget->size()));
    QPainter painter;
    if (!painter.begin(&svg))
        return {};
    painter.fillRect(widget->rect(), widget->palette().color(QPalette::Window));
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    // Inline in HTML: the XML declaration and doctype have no place there.
    const qsizetype start = bytes.indexOf("<svg");
    return start < 0 ? QString() : QString::fromUtf8(bytes.mid(start));
}

QString html(const QString& s) {
    return s.toHtmlEscaped();
}

QByteArray htmlBytes(const ReportDocument& doc, const ReportData& data, QString* why) {
    QString out;
    out +=
        QStringLiteral(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%1</title>\n"
            "<style>\n"
            "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
            "color:#202020;background:#fff;line-height:1.4}\n"
            "h1{font-size:1.6em;margin-bottom:0.2em}h2{font-size:1.25em;margin-top:1.6em;"
            "border-bottom:1px solid #ccc}\n"
            ".sub{font-style:italic;color:#555}\n"
            "table{border-collapse:collapse;margin:0.5em 0;font-size:0.9em}\n"
            "th,td{border-bottom:1px solid #ccc;padding:0.2em 0.6em;text-align:left;"
            "vertical-align:top}\nth{background:#eef1f5}\ntd.n,th.n{text-align:right}\n"
            ".caption,figcaption{font-size:0.85em;font-style:italic;color:#444}\n"
            ".warning{background:#fdecea;border-left:4px solid #d62728;padding:0.4em 0.8em;"
            "margin:0.3em 0}\n.note{background:#eef4fb;border-left:4px solid #1f77b4;"
            "padding:0.4em 0.8em;margin:0.3em 0}\n"
            "figure{margin:0.5em 0}figure svg{width:100%;height:auto}\n"
            "</style></head><body>\n")
            .arg(html(doc.title));
    out += QStringLiteral("<h1>%1</h1>\n<p class=\"sub\">%2</p>\n")
               .arg(html(doc.title), html(doc.subtitle));
    for (const ReportBlock& b : doc.blocks) {
        switch (b.type) {
        case ReportBlock::Type::Heading:
            out += QStringLiteral("<h2>%1</h2>\n").arg(html(b.text));
            break;
        case ReportBlock::Type::Paragraph:
            out += QStringLiteral("<p>%1</p>\n").arg(html(b.text));
            break;
        case ReportBlock::Type::Warning:
            out += QStringLiteral("<p class=\"warning\"><b>%1</b> %2</p>\n")
                       .arg(tr("Warning:"), html(b.text));
            break;
        case ReportBlock::Type::Note:
            out += QStringLiteral("<p class=\"note\"><b>%1</b> %2</p>\n")
                       .arg(tr("Note:"), html(b.text));
            break;
        case ReportBlock::Type::Table: {
            const auto cell = [&](const char* tag, int c, const QString& s) {
                return QStringLiteral("<%1%2>%3</%1>")
                    .arg(QLatin1String(tag),
                         b.table.numeric_columns.contains(c) ? QStringLiteral(" class=\"n\"")
                                                             : QString(),
                         html(s));
            };
            out += QStringLiteral("<table>\n<tr>");
            for (int c = 0; c < b.table.header.size(); ++c)
                out += cell("th", c, b.table.header[c]);
            out += QStringLiteral("</tr>\n");
            for (const QStringList& row : b.table.rows) {
                out += QStringLiteral("<tr>");
                for (int c = 0; c < b.table.header.size(); ++c)
                    out += cell("td", c, row.value(c));
                out += QStringLiteral("</tr>\n");
            }
            out += QStringLiteral("</table>\n");
            if (!b.text.isEmpty())
                out += QStringLiteral("<p class=\"caption\">%1</p>\n").arg(html(b.text));
            break;
        }
        case ReportBlock::Type::Figure: {
            std::unique_ptr<QWidget> w = reportFigure(b.figure, data);
            const QString svg = svgOf(w.get());
            if (svg.isEmpty()) {
                *why = tr("cannot draw the figures as SVG");
                return {};
            }
            out += QStringLiteral("<figure>\n%1\n<figcaption>%2</figcaption></figure>\n")
                       .arg(svg, html(b.text));
            break;
        }
        }
    }
    out += QStringLiteral("</body></html>\n");
    return out.toUtf8();
}

} // namespace

QString reportFormatFor(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("pdf"))
        return suffix;
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
        return QStringLiteral("html");
    return {};
}

std::unique_ptr<QWidget> reportFigure(ReportFigure figure, const ReportData& data) {
    ExportChartContent content;
    content.result = data.current;
    for (const ResultPtr& pin : data.pins)
        content.pins.append({pin->settings, pin->curves, pin->label});
    content.measurements = data.measurements;
    content.measurements_file = data.measurements_file;
    switch (figure) {
    case ReportFigure::Timeline:
        return chartForExport(ExportChart::Timeline, content, QSize(kFigureWidth, 0));
    case ReportFigure::Scaling:
        // Stacked (under 900 px wide): two charts of a page's width read better than two
        // half-width ones.
        return chartForExport(ExportChart::Scaling, content, QSize(kFigureWidth, kFigureWidth));
    case ReportFigure::Layers:
        break;
    }
    return chartForExport(ExportChart::Layers, content, QSize(kFigureWidth, 560));
}

bool writeReport(const ReportData& data, const QString& path, ReportPage page, QString* error) {
    const auto fail = [&](const QString& what) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, what);
        return false;
    };
    const QString format = reportFormatFor(path);
    if (format.isEmpty())
        return fail(tr("unknown report type (use .pdf or .html)"));
    if (!data.current)
        return fail(tr("nothing was predicted"));
    const ReportDocument doc = reportDocument(data);
    QString why;
    const QByteArray bytes = format == QLatin1String("pdf") ? pdfBytes(doc, data, page, &why)
                                                            : htmlBytes(doc, data, &why);
    if (bytes.isEmpty())
        return fail(why.isEmpty() ? tr("nothing was rendered") : why);
    return writeFileAtomically(path, bytes, error);
}

} // namespace iterscope::ui
