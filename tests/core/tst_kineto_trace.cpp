// The Kineto trace reader (core/trace/kineto_trace.h, trace_input.h): the real fixture reads
// with its devices and every kernel, .gz and plain text read alike, times are exact to the
// nanosecond, and every bad trace is one InputError naming the file, with memory bounded.
#include "gzip_bytes.h"
#include "kineto_builder.h"
#include "trace/kineto_trace.h"
#include "trace/trace_input.h"
#include "util/error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <istream>

using namespace iterscope;

namespace {

const std::string kFixture = ITERSCOPE_TEST_DATA "/traces/a100-alexnet-forward.pt.trace.json.gz";

std::string tinyTrace(const std::string& ts, const std::string& dur) {
    return R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
           ts + R"(, "dur": )" + dur + R"(, "args": {"correlation": 5, "device": 0}}]})";
}

QString errorOf(const std::string& bytes, const std::string& file = "t.json") {
    try {
        parseKinetoTrace(bytes, file);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void write(const QString& path, const std::string& bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << bytes;
}

} // namespace

class KinetoTraceReader : public QObject {
    Q_OBJECT
  private slots:
    void theFixtureReadsWithItsDevicesAndEveryKernel() {
        const KinetoTrace trace = readKinetoTrace(kFixture);
        // What the fixture holds, counted by Qt's JSON parser on zlib's output.
        const QJsonObject doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(gunzipFile(kFixture))).object();
        const QJsonArray devices = doc["deviceProperties"].toArray();
        QCOMPARE(trace.devices.size(), std::size_t(devices.size()));
        QCOMPARE(QString::fromStdString(trace.devices[0].name),
                 devices[0].toObject()["name"].toString());
        QCOMPARE(trace.devices[0].sm_count, devices[0].toObject()["numSms"].toInt());
        int kernels = 0;
        qint64 kernel_us = 0;
        for (const QJsonValue& v : doc["traceEvents"].toArray()) {
            const QJsonObject e = v.toObject();
            if (e["cat"].toString() == "kernel") {
                ++kernels;
                kernel_us += e["dur"].toInteger();
            }
        }
        int read = 0;
        std::int64_t read_ns = 0;
        for (const TraceEvent& e : trace.events)
            if (e.kind == TraceEventKind::Kernel) {
                ++read;
                read_ns += e.dur_ns;
            }
        QVERIFY(kernels > 0);
        QCOMPARE(read, kernels);
        QCOMPARE(read_ns, kernel_us * 1000);
        QVERIFY(trace.compressed);
        QCOMPARE(trace.rank, doc["distributedInfo"].toObject()["rank"].toInt());
    }

    void gzipAndPlainTextReadAlike() {
        KinetoBuilder b;
        b.device(0, "NVIDIA H100 80GB HBM3", 132, 9, 0, std::int64_t{80} << 30);
        b.op("aten::conv2d", 1, 10.5, 20);
        b.launch(1, 11, "conv_kernel", 40.25, 100.125);
        const std::string text = b.text();
        QTemporaryDir dir;
        write(dir.filePath("t.json"), text);
        write(dir.filePath("t.json.gz"), gzipBytes(text));
        const KinetoTrace plain = readKinetoTrace(dir.filePath("t.json").toStdString());
        const KinetoTrace gz = readKinetoTrace(dir.filePath("t.json.gz").toStdString());
        QVERIFY(!plain.compressed);
        QVERIFY(gz.compressed);
        QCOMPARE(gz.events.size(), plain.events.size());
        QCOMPARE(gz.text_bytes, plain.text_bytes);
        for (std::size_t i = 0; i < gz.events.size(); ++i) {
            QCOMPARE(gz.events[i].ts_ns, plain.events[i].ts_ns);
            QCOMPARE(gz.nameOf(gz.events[i]), plain.nameOf(plain.events[i]));
        }
    }

    void microsecondsWithAFractionAreExactNanoseconds() {
        const KinetoTrace t = parseKinetoTrace(tinyTrace("1695835573023613.251", "12.3456"), "t");
        QCOMPARE(t.events.size(), std::size_t(1));
        QCOMPARE(t.events[0].ts_ns, std::int64_t(1695835573023613251));
        QCOMPARE(t.events[0].dur_ns, std::int64_t(12346)); // rounded to the nearest ns
        const KinetoTrace whole = parseKinetoTrace(tinyTrace("42", "7"), "t");
        QCOMPARE(whole.events[0].ts_ns, std::int64_t(42000));
        QCOMPARE(whole.events[0].dur_ns, std::int64_t(7000));
    }

    void aBareArrayOfEventsAndTextPidsRead() {
        const std::string text =
            R"([{"ph": "X", "cat": "kernel", "name": "k", "pid": "GPU 0", "tid": "stream 7", "ts": 1, "dur": 2},
                {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "pid": "Spans", "tid": 0, "ts": 0, "dur": 9}])";
        const KinetoTrace t = parseKinetoTrace(text, "t");
        QCOMPARE(t.events.size(), std::size_t(1));
        QVERIFY(t.events[0].pid < 0);
        QCOMPARE(t.skipped_events, std::uint64_t(1));
    }

    // PyTorch 1.8's Kineto wrote capitalised categories and a lower-case "external id".
    void olderCategoryNamesAndKeysRead() {
        const std::string text =
            R"({"traceEvents": [
              {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 10, "dur": 9, "args": {"external id": 7}},
              {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 11, "dur": 1, "args": {"correlation": 3, "external id": 7}},
              {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 4, "args": {"correlation": 3, "external id": 7, "device": 0}},
              {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 30, "dur": 2, "args": {"bytes": 64}}]})";
        const KinetoTrace t = parseKinetoTrace(text, "old.json");
        QCOMPARE(t.events.size(), std::size_t(4));
        QCOMPARE(t.events[0].kind, TraceEventKind::CpuOp);
        QCOMPARE(t.events[0].external_id, std::int64_t(7));
        QCOMPARE(t.events[1].kind, TraceEventKind::Runtime);
        QCOMPARE(t.events[2].kind, TraceEventKind::Kernel);
        QCOMPARE(t.events[3].kind, TraceEventKind::Memcpy);
        QCOMPARE(t.events[3].bytes, std::int64_t(64));
    }

    void badTracesAreOneErrorNamingTheFile_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        const std::string good = tinyTrace("1", "2");
        QTest::newRow("not JSON") << QByteArray("hello, trace") << "not a JSON trace";
        QTest::newRow("cut JSON") << QByteArray::fromStdString(good.substr(0, good.size() / 2))
                                  << "not a JSON trace";
        QTest::newRow("empty") << QByteArray() << "not a JSON trace";
        QTest::newRow("no traceEvents")
            << QByteArray(R"({"schemaVersion": 1})") << "no \"traceEvents\"";
        QTest::newRow("no kernels")
            << QByteArray(
                   R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})")
            << "no GPU kernels";
        const std::string gz = gzipBytes(good);
        QTest::newRow("truncated gz")
            << QByteArray::fromStdString(gz.substr(0, gz.size() - 12)) << "truncated gzip";
        std::string corrupt = gz;
        for (std::size_t i = 12; i < corrupt.size() - 8; ++i)
            corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
        QTest::newRow("corrupt gz") << QByteArray::fromStdString(corrupt) << "gzip";
        QTest::newRow("nested too deep")
            << QByteArray::fromStdString(R"({"traceEvents": [], "x": )" + std::string(100, '[') +
                                         std::string(100, ']') + "}")
            << "nests deeper";
        QTest::newRow("a number") << QByteArray("42") << "no \"traceEvents\"";
    }
    void badTracesAreOneErrorNamingTheFile() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        const QString what = errorOf(bytes.toStdString(), "bad.json");
        QVERIFY2(what.startsWith("bad.json: "), qPrintable(what));
        QVERIFY2(what.contains(problem), qPrintable(what));
        QVERIFY2(!what.contains('\n'), qPrintable(what));
    }

    void aMissingOrSpecialFileIsAnError() {
        try {
            readKinetoTrace("/nonexistent/trace.json");
            QFAIL("read a missing file");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).contains("no such file"));
        }
        try {
            readKinetoTrace("/dev/null");
            QFAIL("read a device");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).contains("not a regular file"));
        }
    }

    // A .gz bomb: inflating stops at the limit, so memory stays bounded by the buffers.
    void inflatingStopsAtTheLimit() {
        const std::string big(8u << 20, ' ');
        const std::string gz = gzipBytes(big);
        QVERIFY(gz.size() < big.size() / 100);
        auto buffer = TraceInputBuffer::fromMemory(gz, "bomb.json.gz", 1u << 20);
        try {
            while (buffer->sbumpc() != std::char_traits<char>::eof()) {
            }
            QFAIL("inflated past the limit");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("bomb.json.gz: inflates to more than"), e.what());
        }
        QVERIFY(buffer->textBytes() <= (1u << 20) + (256u << 10));
    }

    void everyMemberOfAMultiMemberGzipIsRead() {
        const std::string a = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k",)";
        const std::string b = R"( "pid": 0, "tid": 7, "ts": 1, "dur": 2}]})";
        const std::string both = gzipBytes(a) + gzipBytes(b);
        const KinetoTrace t = parseKinetoTrace(both, "two.json.gz");
        QCOMPARE(t.events.size(), std::size_t(1));
        QCOMPARE(t.text_bytes, std::uint64_t(a.size() + b.size()));
    }
};

QTEST_APPLESS_MAIN(KinetoTraceReader)
#include "tst_kineto_trace.moc"
