// Data parallelism, the default strategy, is what the model's accuracy is fitted on: the
// parallel strategies must not move its predictions. tests/data/data_parallel_pins.csv
// holds the predictions of tests/data/published.csv's rows as they were before the
// strategies came; every pinned row must come out bit for bit the same. When the accuracy
// changes on purpose, ITERSCOPE_UPDATE_PINS=1 rewrites the file from the current model.
#include "model/model.h"
#include "validation/validation.h"

#include <QtTest>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace iterscope;

namespace {

const std::string kPins = std::string(ITERSCOPE_TEST_DATA) + "/data_parallel_pins.csv";

std::map<std::string, double> readPins() {
    std::map<std::string, double> pins;
    std::ifstream in(kPins);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("id,", 0) == 0)
            continue;
        const auto comma = line.find(',');
        pins[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
    }
    return pins;
}

} // namespace

class DataParallelPins : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void dataParallelGivesTheSamePredictionsAsBeforeTheStrategies() {
        const auto rows = readValidationCsv(std::string(ITERSCOPE_TEST_DATA) + "/published.csv");
        const ValidationResolver resolver = defaultResolver();
        if (qEnvironmentVariableIsSet("ITERSCOPE_UPDATE_PINS")) {
            std::ifstream old(kPins);
            std::string header, line;
            while (std::getline(old, line) && line.rfind('#', 0) == 0)
                header += line + "\n";
            std::ostringstream out;
            out << header << "id,predicted\n";
            for (const ValidationRow& row : rows) {
                if (row.sync == "ps-gpu")
                    continue;
                char value[64];
                std::snprintf(
                    value, sizeof value, "%.17g",
                    metricValue(predict(scenarioForRow(row, resolver), PredictDetail::Totals),
                                row.metric));
                out << row.id << "," << value << "\n";
            }
            std::ofstream(kPins) << out.str();
            QSKIP("pins rewritten");
        }
        const auto pins = readPins();
        QVERIFY(pins.size() > 100);
        int checked = 0;
        for (const ValidationRow& row : rows) {
            const auto pin = pins.find(row.id);
            if (pin == pins.end())
                continue;
            Scenario s = scenarioForRow(row, resolver);
            QCOMPARE(s.parallel, ParallelStrategy::Data);
            const double predicted = metricValue(predict(s, PredictDetail::Totals), row.metric);
            QVERIFY2(predicted == pin->second,
                     qPrintable(QString::fromStdString(row.id) + ": " +
                                QString::number(predicted, 'g', 17) + " instead of " +
                                QString::number(pin->second, 'g', 17)));
            // The pipeline's fields mean nothing to data parallelism.
            s.pipeline_stages = 4;
            s.micro_batches = 16;
            s.schedule = PipelineSchedule::GPipe;
            QCOMPARE(metricValue(predict(s, PredictDetail::Totals), row.metric), predicted);
            ++checked;
        }
        QCOMPARE(checked, static_cast<int>(pins.size()));
    }
};

QTEST_APPLESS_MAIN(DataParallelPins)
#include "tst_data_parallel_pins.moc"
