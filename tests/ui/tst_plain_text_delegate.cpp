// The layer table's cell painter: text where the model's alignment puts it, elided inside
// its cell, in the model's colour. Checked on the pixels it paints.
#include "widgets/plain_text_delegate.h"
#include "widgets/static_text_cache.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QTest>

using iterscope::ui::PlainTextDelegate;
using iterscope::ui::StaticTextCache;

namespace {
struct Ink {
    int left = -1, right = -1; // columns holding text pixels, -1 if none
};

// Paints one cell of `width` px into an image twice as wide and reports where ink fell.
Ink paintCell(const QString& text, Qt::Alignment alignment, int width, QColor color = Qt::black) {
    QStandardItemModel model(1, 1);
    auto* item = new QStandardItem(text);
    item->setTextAlignment(alignment | Qt::AlignVCenter);
    item->setForeground(color);
    model.setItem(0, 0, item);
    QImage image(2 * width, 24, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QStyleOptionViewItem option;
    option.rect = QRect(0, 0, width, 24);
    option.state = QStyle::State_Enabled | QStyle::State_Active;
    option.palette = QApplication::palette();
    option.font = QApplication::font();
    option.fontMetrics = QFontMetrics(option.font);
    {
        QPainter painter(&image);
        PlainTextDelegate().paint(&painter, option, model.index(0, 0));
    }
    Ink ink;
    for (int x = 0; x < image.width(); ++x)
        for (int y = 0; y < image.height(); ++y)
            if (qGray(image.pixel(x, y)) < 160) {
                if (ink.left < 0)
                    ink.left = x;
                ink.right = x;
                break;
            }
    return ink;
}
} // namespace

class TestPlainTextDelegate : public QObject {
    Q_OBJECT
  private slots:
    void rightAlignedNumbersEndAtTheCellsRightEdge() {
        const Ink ink = paintCell(QStringLiteral("12.34 ms"), Qt::AlignRight, 200);
        QVERIFY(ink.left > 100);
        QVERIFY2(ink.right >= 200 - 12 && ink.right < 200, qPrintable(QString::number(ink.right)));
    }

    void leftAlignedTextStartsAtTheCellsLeftEdge() {
        const Ink ink = paintCell(QStringLiteral("layer1.0.conv1"), Qt::AlignLeft, 200);
        QVERIFY2(ink.left >= 0 && ink.left < 12, qPrintable(QString::number(ink.left)));
        QVERIFY(ink.right < 150);
    }

    void longTextIsElidedInsideItsCell() {
        const Ink ink = paintCell(QStringLiteral("a_very_long_layer_name_that_cannot_fit.conv"),
                                  Qt::AlignLeft, 80);
        QVERIFY(ink.left >= 0);
        QVERIFY2(ink.right < 80, qPrintable(QString::number(ink.right)));
    }

    void aCellPaintedAgainShowsItsNewText() {
        // The shaped texts are kept between paints: a number that changed must not paint
        // the old one's glyphs.
        const Ink short_text = paintCell(QStringLiteral("1 ms"), Qt::AlignLeft, 300);
        const Ink long_text = paintCell(QStringLiteral("1234567.89 ms"), Qt::AlignLeft, 300);
        QVERIFY(long_text.right > short_text.right + 20);
    }

    void theTextCacheElidesToItsWidthAndKeepsWhatItShaped() {
        StaticTextCache cache;
        const QFont font = QApplication::font();
        const QString name = QStringLiteral("features.2.0/block.0.0/Conv_with_a_long_tail");
        const QStaticText& whole = cache.get(name, font);
        QCOMPARE(whole.text(), name);
        const double whole_width = whole.size().width();
        const QStaticText& elided = cache.get(name, font, 80, Qt::ElideMiddle);
        QVERIFY2(elided.size().width() <= 80, qPrintable(QString::number(elided.size().width())));
        QVERIFY(elided.text().contains(QChar(0x2026)));
        QVERIFY(elided.text().endsWith(QStringLiteral("tail"))); // the middle went
        // Asked again: the same shaped text, not another.
        QCOMPARE(&cache.get(name, font, 80, Qt::ElideMiddle), &elided);
        // A text that fits is not elided, whatever the width asked.
        QCOMPARE(cache.get(QStringLiteral("Conv"), font, 400).text(), QStringLiteral("Conv"));
        // Another font: shaped again, at its own size.
        QFont large = font;
        large.setPointSizeF(font.pointSizeF() * 2);
        QVERIFY(cache.get(name, large).size().width() > 1.5 * whole_width);
    }

    void theModelsForegroundIsUsed() {
        const Ink red = paintCell(QStringLiteral("no"), Qt::AlignLeft, 100, QColor(0xd6, 0, 0));
        // qGray of pure-ish red is below the ink threshold; white text would leave none.
        QVERIFY(red.left >= 0);
        const Ink white = paintCell(QStringLiteral("no"), Qt::AlignLeft, 100, Qt::white);
        QCOMPARE(white.left, -1);
    }
};

QTEST_MAIN(TestPlainTextDelegate)
#include "tst_plain_text_delegate.moc"
