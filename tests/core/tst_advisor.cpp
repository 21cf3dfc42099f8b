// The advisor (issue 32 "Checks"): on hand-built scenarios the diagnosis and the first
// suggestion are the obvious ones; suggestions are sorted, fit, help and reproduce; what
// does not fit or apply is listed apart; the ratio bands read back.
#include "advisor/advisor.h"
#include "advisor/comparison.h"
#include "hardware/profile_loader.h"
#include "io/network_loader.h"
#include "model/model.h"
#include "util/error.h"
#include "validation/error_band.h"
#include "validation/ratio_band.h"

#include <QtTest>

#include <cmath>
#include <set>

using namespace iterscope;

namespace {

Scenario scenario(const std::string& network, const std::string& gpu, const std::string& system,
                  int nodes, int gpus_per_node, int64_t batch, Precision precision) {
    Scenario s;
    s.network = loadNetwork(network);
    s.gpu = loadGpuProfile(gpu);
    s.system = loadSystemProfile(system);
    s.software = loadSoftwareProfile("pytorch");
    s.sync = SyncStrategy::AllreduceNccl;
    s.nodes = nodes;
    s.gpus_per_node = gpus_per_node;
    s.batch_per_gpu = batch;
    s.precision = precision;
    return s;
}

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

// What every advice must keep, whatever the scenario.
void checkInvariants(const Scenario& base, const Advice& a) {
    for (std::size_t i = 0; i < a.suggestions.size(); ++i) {
        const Suggestion& s = a.suggestions[i];
        QVERIFY2(s.fits_in_memory, s.change.c_str());
        // Faster, or the change that lets a scenario that does not fit run at all.
        QVERIFY2(s.speedup > 1 || !predict(base).fits_in_memory, s.change.c_str());
        QVERIFY2(!s.flags.empty(), s.change.c_str());
        QVERIFY2(!s.why.empty(), s.change.c_str());
        if (i > 0)
            QVERIFY(a.suggestions[i - 1].speedup >= s.speedup);
        // A band that holds 1x would have put it apart.
        if (s.band.pairs > 0 && predict(base).fits_in_memory)
            QVERIFY2(s.band.low > 1, s.change.c_str());
        QVERIFY(s.band.low <= s.speedup && s.speedup <= s.band.high);
        // Its numbers are the model's for the changed scenario, in full detail too.
        const Prediction p = predict(applySuggestion(base, s));
        QVERIFY2(std::abs(p.iteration_ms / s.iteration_ms - 1) < 1e-3, s.change.c_str());
        QVERIFY(std::abs(p.images_per_second / a.images_per_second - s.speedup) < 1e-6);
    }
    for (const Suggestion& s : a.not_suggested)
        QVERIFY2(!s.reason.empty(), s.change.c_str());
    for (const Suggestion& c : a.combinations) {
        QVERIFY(c.parts.size() >= 2 && c.parts.size() <= 3);
        QVERIFY(c.fits_in_memory);
        const Prediction p = predict(applySuggestion(base, c), PredictDetail::Totals);
        QVERIFY(std::abs(p.iteration_ms / c.iteration_ms - 1) < 1e-3);
    }
}

} // namespace

class Advisor : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { qputenv("ITERSCOPE_PROFILES", ITERSCOPE_PROFILES_DIR); }

    void fp32OnTensorCoresSuggestsAPrecisionFirst() {
        const Scenario s =
            scenario("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 8, 64, Precision::FP32);
        const Advice a = advise(s);
        QVERIFY2(startsWith(a.diagnosis, "compute-bound"), a.diagnosis.c_str());
        QVERIFY2(a.diagnosis.find("tensor cores") != std::string::npos, a.diagnosis.c_str());
        QVERIFY(!a.suggestions.empty());
        QCOMPARE(a.suggestions.front().kind, std::string("precision"));
        QCOMPARE(a.suggestions.front().flags, (std::vector<std::string>{"--precision", "amp"}));
        // Free to try: no global batch change, no hardware.
        QVERIFY(!a.suggestions.front().cost);
        checkInvariants(s, a);
    }

    void aDataParallelScenarioTriesAtLeastEightKinds() {
        const Scenario s =
            scenario("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 8, 64, Precision::FP32);
        const Advice a = advise(s);
        QVERIFY2(a.kinds_considered.size() >= 8, std::to_string(a.kinds_considered.size()).c_str());
        AdviceOptions o;
        o.hardware = true;
        const Advice h = advise(s, o);
        QVERIFY(h.kinds_considered.size() > a.kinds_considered.size());
    }

    void slowEthernetVggIsCommunicationBoundAndTheFirstStepCutsIt() {
        const Scenario s =
            scenario("vgg16", "v100-pcie", "cluster-10gbe", 16, 8, 32, Precision::AMP);
        const Prediction base = predict(s);
        for (const bool hardware : {false, true}) {
            AdviceOptions o;
            o.hardware = hardware;
            const Advice a = advise(s, o);
            QVERIFY2(startsWith(a.diagnosis, "communication"), a.diagnosis.c_str());
            QVERIFY2(a.diagnosis.find("10gbe") != std::string::npos, a.diagnosis.c_str());
            QVERIFY(!a.suggestions.empty());
            const Suggestion& first = a.suggestions.front();
            const std::set<std::string> cutting{"batch",     "sync",    "bucket",  "overlap",
                                                "allreduce", "network", "parallel"};
            QVERIFY2(cutting.count(first.kind), first.kind.c_str());
            // It cuts the exchange's share of the iteration.
            const Prediction p = predict(applySuggestion(s, first));
            QVERIFY(p.exposed_communication_ms / p.iteration_ms <
                    base.exposed_communication_ms / base.iteration_ms);
            checkInvariants(s, a);
        }
    }

    void inputBoundEfficientNetIsDiagnosedAsInput() {
        Scenario s =
            scenario("efficientnet-b0", "a100-sxm4-80gb", "dgx-a100", 1, 8, 256, Precision::AMP);
        s.data = DataSource::Real;
        s.software.loader_workers_per_gpu = 4;
        const Prediction p = predict(s);
        QVERIFY(p.input_bound);
        const Advice a = advise(s);
        QVERIFY2(startsWith(a.diagnosis, "input-bound"), a.diagnosis.c_str());
        QVERIFY(!a.suggestions.empty());
        QCOMPARE(a.suggestions.front().kind, std::string("loader-workers"));
        checkInvariants(s, a);
    }

    void changesThatDoNotFitAreListedApart() {
        // A 48 GB card at a batch that fills it: the 16 and 24 GB cards the workstation also
        // takes cannot hold it.
        const Scenario s =
            scenario("resnet50", "rtx-a6000", "workstation-pcie4", 1, 2, 256, Precision::AMP);
        QVERIFY(predict(s).fits_in_memory);
        AdviceOptions o;
        o.hardware = true;
        const Advice a = advise(s, o);
        bool listed = false;
        for (const Suggestion& n : a.not_suggested)
            listed = listed || startsWith(n.reason, "does not fit");
        QVERIFY(listed);
        checkInvariants(s, a);
    }

    void aScenarioThatDoesNotFitIsToldTheBatchThatDoes() {
        const Scenario s =
            scenario("vgg16", "rtx3070", "workstation-pcie4", 1, 1, 256, Precision::FP32);
        const Prediction p = predict(s);
        QVERIFY(!p.fits_in_memory);
        const Advice a = advise(s);
        QVERIFY2(a.diagnosis.find("does not fit") != std::string::npos, a.diagnosis.c_str());
        bool batch = false;
        for (const Suggestion& x : a.suggestions)
            batch =
                batch || (x.kind == "batch" && x.flags[1] == std::to_string(p.max_batch_that_fits));
        QVERIFY(batch);
        checkInvariants(s, a);
    }

    void aGlobalBatchBoundKeepsLargerBatchesOut() {
        const Scenario s =
            scenario("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 8, 64, Precision::AMP);
        AdviceOptions o;
        o.max_global_batch = 512; // the scenario's own
        const Advice a = advise(s, o);
        for (const Suggestion& x : a.suggestions)
            QVERIFY(x.global_batch <= 512);
        for (const Suggestion& x : a.combinations)
            QVERIFY(x.global_batch <= 512);
    }

    void aPinIsComparedAsARatioWithTheBandOfItsKind() {
        const Scenario fp32 =
            scenario("resnet50", "v100-sxm2-16gb", "dgx1-v100", 1, 8, 64, Precision::FP32);
        Scenario amp = fp32;
        amp.precision = Precision::AMP;
        const double a = predict(amp).images_per_second, f = predict(fp32).images_per_second;
        RatioBands bands;
        bands.kinds = {{"precision", 20, 0.1, 0.05}, {"*", 50, 0.2, 0.1}};
        const ScenarioComparison c = compareScenarios(amp, a, fp32, f, bands);
        QCOMPARE(c.kinds, std::vector<std::string>{"precision"});
        QVERIFY(std::abs(c.ratio - a / f) < 1e-12);
        QVERIFY(std::abs(c.band.high / c.ratio - std::exp(0.1)) < 1e-9);
        QVERIFY(c.clear());
        const std::string text = c.text("Pin 1");
        QVERIFY2(text.find("x the images/s of Pin 1 (band ") != std::string::npos, text.c_str());
        QVERIFY2(text.find("not a clear win") == std::string::npos, text.c_str());
        // A small difference of a kind no pair backs: the band of every pair, holding 1x.
        Scenario bucket = fp32;
        bucket.bucket_mb = 50;
        const ScenarioComparison b = compareScenarios(bucket, f * 1.05, fp32, f, bands);
        QCOMPARE(b.kinds, std::vector<std::string>{"bucket"});
        QVERIFY(!b.band.backed);
        QVERIFY(!b.clear());
        QVERIFY2(b.text("Pin 2").find("not a clear win") != std::string::npos,
                 b.text("Pin 2").c_str());
        // The same scenario: 1x, no band needed.
        QVERIFY(compareScenarios(fp32, f, fp32, f, bands).kinds.empty());
        // Cost per million images: GPUs x price per hour / images per hour.
        Scenario priced = fp32;
        priced.gpu.usd_per_gpu_hour = 3.6;
        QVERIFY(std::abs(*usdPerMillionImages(priced, 1000.0) - 8 * 3.6 / 3600 / 1000 * 1e6) <
                1e-9);
        priced.gpu.usd_per_gpu_hour.reset();
        QVERIFY(!usdPerMillionImages(priced, 1000.0));
    }

    void ratioPairsDifferInOneFactorAlone() {
        ValidationRow a;
        a.source = "src";
        a.network = "resnet50";
        a.image = 224;
        a.batch_per_gpu = 64;
        a.gpu = "v100-sxm2-16gb";
        a.system = "dgx1-v100";
        a.precision = "fp32";
        a.software = "pytorch";
        a.sync = "none";
        a.metric = "images_per_second";
        ValidationRow b = a;
        QCOMPARE(ratioPairKind(a, b), std::string()); // the same run twice
        b.precision = "amp";
        QCOMPARE(ratioPairKind(a, b), std::string("precision"));
        b.batch_per_gpu = 128;
        b.layout = "nhwc";
        // As published AMP runs are: channels-last at twice the batch.
        QCOMPARE(ratioPairKind(a, b), std::string("precision"));
        b.gpus_per_node = 8;
        QCOMPARE(ratioPairKind(a, b), std::string()); // another factor too
        b = a;
        b.batch_per_gpu = 128;
        b.layout = "nhwc";
        QCOMPARE(ratioPairKind(a, b), std::string()); // two factors, no precision
        b = a;
        b.gpus_per_node = 8;
        QCOMPARE(ratioPairKind(a, b), std::string("gpu-count"));
        b = a;
        b.gpu = "v100-sxm2-32gb";
        QCOMPARE(ratioPairKind(a, b), std::string("gpu"));
        b.source = "other";
        QCOMPARE(ratioPairKind(a, b), std::string());
    }

    void ratioBandsComeFromPairErrorsAndReadBack() {
        std::vector<ValidationRow> rows;
        std::vector<double> errors;
        ValidationRow r;
        r.source = "src";
        r.network = "resnet50";
        r.gpu = "g";
        r.system = "s";
        r.software = "pytorch";
        r.metric = "images_per_second";
        // Eight fp32/amp pairs whose ratio errors are 0.01 .. 0.08.
        for (int i = 0; i < 8; ++i) {
            r.network = "net" + std::to_string(i); // pairs only within each network
            r.batch_per_gpu = 64;
            r.precision = "fp32";
            rows.push_back(r);
            errors.push_back(0.3); // the rows' own errors are large...
            r.precision = "amp";
            rows.push_back(r);
            errors.push_back(0.3 + 0.01 * (i + 1)); // ...but err together
        }
        RatioBands bands;
        bands.kinds = ratioClasses(rows, errors);
        QCOMPARE(bands.kinds.front().kind, std::string("precision"));
        QCOMPARE(bands.kinds.front().pairs, 8);
        // Conformal: the ceil(9 x 0.8) = 8th smallest of 0.01 .. 0.08.
        QVERIFY(std::abs(bands.kinds.front().half_width_log - 0.08) < 1e-9);
        const RatioBands back = parseRatioBands(ratioBandsToJson(bands), "ratio-bands.json");
        const RatioBand band = ratioBandFor(back, {"precision"}, 2.0);
        QVERIFY(band.backed);
        QVERIFY(std::abs(band.high / 2.0 - std::exp(0.08)) < 1e-3);
        // A kind no pair backs borrows the band of every pair, and says so.
        const RatioBand other = ratioBandFor(back, {"bucket"}, 1.5);
        QVERIFY(!other.backed);
        QVERIFY2(other.basis.find("no published pair changes bucket") != std::string::npos,
                 other.basis.c_str());
        QVERIFY(std::abs(other.high / 1.5 - std::exp(0.08)) < 1e-3);
        QVERIFY_THROWS_EXCEPTION(InputError, parseRatioBands("{\"format\": 1}", "x.json"));
    }

    void theShippedRatioBandsBackEveryFactorTheIssueNames() {
        const RatioBands& bands = shippedRatioBands();
        for (const char* kind : {"precision", "gpu-count", "batch", "gpu"}) {
            bool found = false;
            for (const RatioClass& c : bands.kinds)
                found = found || (c.kind == kind && c.pairs >= kMinBandRows);
            QVERIFY2(found, kind);
        }
    }
};

QTEST_GUILESS_MAIN(Advisor)
#include "tst_advisor.moc"
