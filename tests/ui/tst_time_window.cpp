// The timeline's time <-> pixel maths: mapping, zoom around the cursor, pan, clamping and
// tick steps, data-driven.
#include "timeline/time_window.h"

#include <QTest>

#include <cmath>

using iterscope::ui::TimeWindow;

class TestTimeWindow : public QObject {
    Q_OBJECT
  private slots:
    void mappingIsLinearBothWays_data() {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("end");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("whole window, left edge") << 0.0 << 100.0 << 1000.0 << 0.0 << 0.0;
        QTest::newRow("whole window, middle") << 0.0 << 100.0 << 1000.0 << 50.0 << 500.0;
        QTest::newRow("whole window, right edge") << 0.0 << 100.0 << 1000.0 << 100.0 << 1000.0;
        QTest::newRow("zoomed window") << 20.0 << 30.0 << 500.0 << 25.0 << 250.0;
        QTest::newRow("time left of the window maps left of 0")
            << 20.0 << 30.0 << 500.0 << 10.0 << -500.0;
        QTest::newRow("microsecond window") << 1.0 << 1.001 << 1000.0 << 1.0005 << 500.0;
    }
    void mappingIsLinearBothWays() {
        QFETCH(double, start);
        QFETCH(double, end);
        QFETCH(double, width);
        QFETCH(double, time);
        QFETCH(double, x);
        const TimeWindow w{start, end, width};
        QVERIFY(std::fabs(w.timeToX(time) - x) < 1e-6);
        QVERIFY(std::fabs(w.xToTime(x) - time) < 1e-9);
    }

    void fitShowsEverythingAndSurvivesNonsense_data() {
        QTest::addColumn<double>("total");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("end");
        QTest::addColumn<double>("width_px");
        QTest::newRow("ordinary") << 120.0 << 800.0 << 120.0 << 800.0;
        QTest::newRow("zero duration shows one ms") << 0.0 << 800.0 << 1.0 << 800.0;
        QTest::newRow("negative duration") << -5.0 << 800.0 << 1.0 << 800.0;
        QTest::newRow("NaN duration") << std::nan("") << 800.0 << 1.0 << 800.0;
        QTest::newRow("zero width is one pixel") << 10.0 << 0.0 << 10.0 << 1.0;
    }
    void fitShowsEverythingAndSurvivesNonsense() {
        QFETCH(double, total);
        QFETCH(double, width);
        QFETCH(double, end);
        QFETCH(double, width_px);
        const auto w = TimeWindow::fit(total, width);
        QCOMPARE(w.start_ms, 0.0);
        QCOMPARE(w.end_ms, end);
        QCOMPARE(w.width_px, width_px);
    }

    void zoomKeepsTheTimeUnderTheCursor_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("zoom in at the middle") << 500.0 << 2.0;
        QTest::newRow("zoom in at a quarter") << 250.0 << 4.0;
        QTest::newRow("zoom in near the right edge") << 990.0 << 1.25;
        QTest::newRow("zoom in at the left edge") << 0.0 << 10.0;
    }
    void zoomKeepsTheTimeUnderTheCursor() {
        QFETCH(double, x);
        QFETCH(double, factor);
        const TimeWindow w = TimeWindow::fit(200, 1000);
        const double anchor = w.xToTime(x);
        const TimeWindow z = w.zoomedAround(x, factor, 200);
        QVERIFY(std::fabs(z.spanMs() - 200 / factor) < 1e-9);
        QVERIFY(std::fabs(z.xToTime(x) - anchor) < 1e-9);
    }

    void zoomIsBoundedBothWays() {
        TimeWindow w = TimeWindow::fit(50, 1000);
        for (int i = 0; i < 200; ++i)
            w = w.zoomedAround(300, 4, 50);
        QVERIFY(std::fabs(w.spanMs() - TimeWindow::kMinSpanMs) < 1e-9);
        QVERIFY(w.start_ms >= 0 && w.end_ms <= 50);
        for (int i = 0; i < 200; ++i)
            w = w.zoomedAround(300, 0.25, 50);
        QCOMPARE(w.start_ms, 0.0);
        QCOMPARE(w.end_ms, 50.0);
        QCOMPARE(w.zoomedAround(10, 0, 50), w);            // a zero factor changes nothing
        QCOMPARE(w.zoomedAround(10, std::nan(""), 50), w); // nor does NaN
    }

    void panMovesContentWithTheMouseAndStopsAtTheEnds_data() {
        QTest::addColumn<double>("dx");
        QTest::addColumn<double>("start");
        QTest::newRow("drag right shows earlier times") << 100.0 << 15.0;
        QTest::newRow("drag left shows later times") << -100.0 << 25.0;
        QTest::newRow("far right stops at zero") << 10000.0 << 0.0;
        QTest::newRow("far left stops at the end") << -10000.0 << 90.0;
    }
    void panMovesContentWithTheMouseAndStopsAtTheEnds() {
        QFETCH(double, dx);
        QFETCH(double, start);
        const TimeWindow w{20, 30, 200}; // 0.05 ms per pixel
        const TimeWindow p = w.pannedBy(dx, 100);
        QVERIFY(std::fabs(p.start_ms - start) < 1e-9);
        QVERIFY(std::fabs(p.spanMs() - 10) < 1e-9);
    }

    void resizingKeepsTheRange() {
        const TimeWindow w{3, 7, 400};
        const TimeWindow r = w.resized(800);
        QCOMPARE(r.start_ms, 3.0);
        QCOMPARE(r.end_ms, 7.0);
        QCOMPARE(r.timeToX(5), 400.0);
    }

    void tickStepsAreOneTwoFive_data() {
        QTest::addColumn<double>("msPerPixel");
        QTest::addColumn<double>("spacing");
        QTest::addColumn<double>("step");
        QTest::newRow("0.1 ms/px at 90 px -> 10 ms") << 0.1 << 90.0 << 10.0;
        QTest::newRow("0.011 ms/px at 90 px -> 1 ms") << 0.011 << 90.0 << 1.0;
        QTest::newRow("0.012 ms/px at 90 px -> 2 ms") << 0.012 << 90.0 << 2.0;
        QTest::newRow("0.03 ms/px at 90 px -> 5 ms") << 0.03 << 90.0 << 5.0;
        QTest::newRow("microseconds") << 1e-5 << 100.0 << 1e-3;
        QTest::newRow("seconds") << 20.0 << 100.0 << 2000.0;
    }
    void tickStepsAreOneTwoFive() {
        QFETCH(double, msPerPixel);
        QFETCH(double, spacing);
        QFETCH(double, step);
        const double got = iterscope::ui::niceTickStep(msPerPixel, spacing);
        QVERIFY2(std::fabs(got - step) < step * 1e-9, qPrintable(QString::number(got)));
        QVERIFY(got / msPerPixel >= spacing * (1 - 1e-9));
    }

    void ticksCoverTheWindowAtTheStep() {
        const TimeWindow w{0.3, 10.7, 1000}; // 0.0104 ms/px, 90 px -> 1 ms step
        const auto ticks = iterscope::ui::ticksFor(w, 90);
        QCOMPARE(ticks.size(), std::size_t(10));
        QVERIFY(std::fabs(ticks.front() - 1) < 1e-9);
        QVERIFY(std::fabs(ticks.back() - 10) < 1e-9);
    }

    void tickLabelsUseTheLargestReadableUnit_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<double>("step");
        QTest::addColumn<double>("end");
        QTest::addColumn<QString>("label");
        QTest::newRow("a 3.5 s iteration reads in seconds") << 3500.0 << 500.0 << 4000.0 << "3.5 s";
        QTest::newRow("whole seconds") << 2000.0 << 1000.0 << 5000.0 << "2 s";
        QTest::newRow("a 40 ms iteration reads in ms") << 35.0 << 5.0 << 40.0 << "35 ms";
        QTest::newRow("the origin has no sign") << -1e-12 << 5.0 << 40.0 << "0 ms";
        QTest::newRow("fine steps late in a long window stay in ms")
            << 3500.2 << 0.2 << 3600.0 << "3500.2 ms";
        QTest::newRow("sub-millisecond window") << 0.25 << 0.05 << 0.3 << "250 µs";
        QTest::newRow("nanoseconds") << 2e-6 << 1e-6 << 5e-6 << "2 ns";
        QTest::newRow("three decimals at most") << 1500.0 << 1.0 << 1510.0 << "1.500 s";
    }
    void tickLabelsUseTheLargestReadableUnit() {
        QFETCH(double, t);
        QFETCH(double, step);
        QFETCH(double, end);
        QFETCH(QString, label);
        QCOMPARE(QString::fromStdString(iterscope::ui::tickLabel(t, step, end)), label);
    }
};

QTEST_APPLESS_MAIN(TestTimeWindow)
#include "tst_time_window.moc"
