// Figures as every view shows them (ui/format.h): three digits in the unit that reads best,
// never four digits where the next unit has room ("1.00 ms", not "1000 µs", issue 20 item 11).
#include "widgets/format.h"

#include <QTest>

using namespace iterscope::ui;

class TestFormat : public QObject {
    Q_OBJECT

  private slots:
    void timesTakeTheUnitTheirRoundedValueReads_data() {
        QTest::addColumn<double>("ms");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0 ms";
        QTest::newRow("nanoseconds") << 0.000123 << "123 ns";
        QTest::newRow("microseconds") << 0.42 << "420 µs";
        QTest::newRow("just under a millisecond") << 0.9996 << "1.00 ms";
        QTest::newRow("999.4 µs stays") << 0.9994 << "999 µs";
        QTest::newRow("milliseconds") << 12.34 << "12.3 ms";
        QTest::newRow("rounds up to 100") << 99.96 << "100 ms";
        QTest::newRow("rounds up to 10") << 9.996 << "10.0 ms";
        QTest::newRow("just under a second") << 999.7 << "1.00 s";
        QTest::newRow("seconds") << 1234.0 << "1.23 s";
    }
    void timesTakeTheUnitTheirRoundedValueReads() {
        QFETCH(double, ms);
        QFETCH(QString, text);
        QCOMPARE(formatMs(ms), text);
    }

    void bytesAndCountsDoTheSame() {
        QCOMPARE(formatBytes(999), QStringLiteral("999 B"));
        QCOMPARE(formatBytes(1023), QStringLiteral("1.00 KiB"));
        QCOMPARE(formatBytes(int64_t(1023.9 * 1024)), QStringLiteral("1.00 MiB"));
        QCOMPARE(formatBytes(int64_t(16) << 30), QStringLiteral("16.0 GiB"));
        QCOMPARE(formatCount(999.6e3), QStringLiteral("1.00 M"));
        QCOMPARE(formatCount(25.6e6), QStringLiteral("25.6 M"));
        QCOMPARE(formatMsGroup({23.3, 38.7, 1.05}), QStringLiteral("23.3 / 38.7 / 1.05 ms"));
        QCOMPARE(formatMsGroup({75.1, 0.98, 1.07}), QStringLiteral("75.1 ms / 980 µs / 1.07 ms"));
    }
};

QTEST_MAIN(TestFormat)
#include "tst_format.moc"
