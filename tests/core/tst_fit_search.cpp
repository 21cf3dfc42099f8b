// The fitting engine's searches (core/fitting/search.h), which every path from a measurement
// to a profile runs: each finds what it is asked for on functions whose answer is known, stays
// within its bounds, and the descent moves only the free parameters.
#include "fitting/search.h"

#include <QtTest>

#include <cmath>

using namespace iterscope;

class FitSearch : public QObject {
    Q_OBJECT

  private slots:
    void bisectionFindsTheRootInLogSpace() {
        // A time that goes as 1/efficiency meets 2 ms at efficiency 0.37.
        int calls = 0;
        const double x = bisectInLogSpace(0.01, 1.0, 1e-9, 200, [&](double e) {
            ++calls;
            return 0.74 / e > 2.0; // still too slow: the root lies above
        });
        QVERIFY2(std::abs(x - 0.37) < 1e-8, qPrintable(QString::number(x, 'g', 12)));
        QVERIFY(calls < 60); // halving ln(100) down to 1e-9 takes about 33 steps
    }

    void bisectionStopsAfterItsSteps() {
        // Three halvings of [1, 16] in log space toward the root 2 leave [2^(1/2), 2], whose
        // middle is 2^(3/4), however small the tolerance asked.
        const double x = bisectInLogSpace(1, 16, 0, 3, [](double v) { return v < 2; });
        QVERIFY2(std::abs(x - std::pow(2.0, 0.75)) < 1e-12, qPrintable(QString::number(x)));
    }

    void goldenSectionFindsTheMinimumAndStaysInItsBracket() {
        const auto around3 = [](double x) { return std::pow(std::log(x / 3), 2); };
        QVERIFY(std::abs(goldenSectionInLogSpace(0.25, 4, 1e-8, around3) - 3) < 1e-6);
        // A minimum outside the bracket: the search ends at the nearer bound.
        const double edge = goldenSectionInLogSpace(0.25, 2, 1e-8, around3);
        QVERIFY2(edge <= 2 && edge > 1.999, qPrintable(QString::number(edge)));
    }

    void descentMovesOnlyTheFreeParametersWithinTheirBounds() {
        FitSpec spec;
        for (const char* name : {"a", "b"}) {
            FitParameter p;
            p.name = name;
            p.field = "conv_efficiency";
            p.prior = 0.5;
            p.min = 0.1;
            p.max = 0.8;
            spec.parameters.push_back(p);
        }
        // Wants a at 0.6 and b at 2 (past its bound); only a is free at first.
        const auto evaluate = [](const std::vector<double>& v) {
            FitScore s;
            s.objective = std::pow(std::log(v[0] / 0.6), 2) + std::pow(std::log(v[1] / 2), 2);
            return s;
        };
        FitResult only_a = descendFromPriors(spec, {0}, evaluate);
        QVERIFY2(std::abs(only_a.values[0] - 0.6) < 0.01,
                 qPrintable(QString::number(only_a.values[0])));
        QCOMPARE(only_a.values[1], 0.5);
        FitResult both = descendFromPriors(spec, {0, 1}, evaluate);
        QCOMPARE(both.values[1], 0.8); // held at its bound
        QVERIFY(both.score.objective < only_a.score.objective);
        QVERIFY(both.evaluations > 0);
    }
};

QTEST_GUILESS_MAIN(FitSearch)
#include "tst_fit_search.moc"
