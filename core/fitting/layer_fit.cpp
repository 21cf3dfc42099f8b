#include "fitting/layer_fit.h"

#include "fitting/search.h"

#include "model/compute_model.h"
#include "model/model.h"
#include "util/error.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace iterscope {
namespace {

enum class LayerClass { Conv, Fc, Other };

LayerClass classOf(LayerKind kind) {
    switch (kind) {
    case LayerKind::Convolution:
    case LayerKind::Deconvolution:
        return LayerClass::Conv;
    case LayerKind::FullyConnected:
        return LayerClass::Fc;
    default:
        return LayerClass::Other;
    }
}

// Measured forward + backward per layer index, only for layers that ran kernels.
std::map<std::size_t, double> measuredByLayer(const Network& net, const NetworkRun& run) {
    std::map<std::string, std::size_t> index_of;
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        index_of.emplace(net.layers[i].name, i);
    std::map<std::size_t, double> out;
    for (const LayerMeasurement& l : run.layers) {
        if (!l.measured)
            continue;
        auto it = index_of.find(l.name);
        if (it == index_of.end())
            throw InputError("measured layer '" + l.name + "' is not in network '" + net.name +
                             "'");
        out[it->second] = l.forward_ms + l.backward_ms;
    }
    return out;
}

double classSum(const Prediction& p, const Network& net,
                const std::map<std::size_t, double>& measured,
                const std::function<bool(LayerClass)>& in_class) {
    double sum = 0;
    for (const LayerTiming& t : p.layers)
        if (t.layer < net.layers.size() && in_class(classOf(net.layers[t.layer].kind)) &&
            measured.count(t.layer))
            sum += t.forward_ms + t.backward_ms;
    return sum;
}

// Bisects `parameter` of the software profile (in log space: time goes as 1/efficiency)
// until the class's predicted sum meets the measured one.
ClassFit fitClass(const std::string& name, double SoftwareProfile::*parameter, Scenario scenario,
                  const std::map<std::size_t, double>& measured,
                  const std::function<bool(LayerClass)>& in_class) {
    const Network& net = scenario.network->network;
    ClassFit fit;
    fit.parameter = name;
    fit.before = scenario.software.*parameter;
    for (const auto& [index, ms] : measured)
        if (in_class(classOf(net.layers[index].kind))) {
            fit.measured_ms += ms;
            ++fit.layers;
        }
    auto predicted = [&](double value) {
        scenario.software.*parameter = value;
        return classSum(predict(scenario), net, measured, in_class);
    };
    fit.predicted_before_ms = predicted(fit.before);
    if (fit.layers == 0 || !(fit.measured_ms > 0)) {
        fit.after = fit.before;
        fit.predicted_after_ms = fit.predicted_before_ms;
        return fit;
    }
    const double lo = std::log(kMinEfficiency), hi = std::log(kMaxEfficiency);
    if (predicted(std::exp(hi)) > fit.measured_ms) {
        fit.after = kMaxEfficiency;
        fit.clamped = true;
    } else if (predicted(std::exp(lo)) < fit.measured_ms) {
        fit.after = kMinEfficiency;
        fit.clamped = true;
    } else {
        fit.after = bisectInLogSpace(kMinEfficiency, kMaxEfficiency, 1e-6, 60, [&](double value) {
            return predicted(value) > fit.measured_ms;
        });
    }
    fit.predicted_after_ms = predicted(fit.after);
    return fit;
}

} // namespace

SoftwareFit fitSoftwareProfile(std::shared_ptr<const AnalyzedNetwork> network,
                               const GpuProfile& calibrated_gpu, const SoftwareProfile& base,
                               const std::vector<NetworkRun>& runs) {
    if (!network)
        throw InputError("fit: no network");
    SoftwareFit result;
    result.software = base;
    result.software.id = (base.id.empty() ? std::string("software") : base.id) + "-calibrated";
    result.software.name = base.name + " (calibrated)";
    result.software.source =
        base.source + (base.source.empty() ? "" : "; ") +
        "conv/fc/tensor-core efficiencies fitted by iterscope-calibrate to "
        "per-layer cuDNN and cuBLAS timings on one GPU (parameters.calibration)";
    for (const NetworkRun& run : runs) {
        const auto precision = parsePrecision(run.precision);
        if (!precision)
            throw InputError("fit: run precision '" + run.precision + "' is unknown");
        const auto measured = measuredByLayer(network->network, run);
        Scenario scenario =
            kernelScenario(network, calibrated_gpu, result.software, run.batch, *precision);
        PrecisionFit pf;
        pf.precision = run.precision;
        if (computeRates(calibrated_gpu, result.software, *precision).tensor_cores) {
            ClassFit f =
                fitClass("tensor_core_efficiency", &SoftwareProfile::tensor_core_efficiency,
                         scenario, measured, [](LayerClass c) { return c != LayerClass::Other; });
            result.software.tensor_core_efficiency = f.after;
            pf.classes.push_back(f);
        } else {
            ClassFit conv = fitClass("conv_efficiency", &SoftwareProfile::conv_efficiency, scenario,
                                     measured, [](LayerClass c) { return c == LayerClass::Conv; });
            result.software.conv_efficiency = conv.after;
            scenario.software.conv_efficiency = conv.after;
            ClassFit fc = fitClass("fc_efficiency", &SoftwareProfile::fc_efficiency, scenario,
                                   measured, [](LayerClass c) { return c == LayerClass::Fc; });
            result.software.fc_efficiency = fc.after;
            pf.classes.push_back(conv);
            pf.classes.push_back(fc);
        }
        result.fits.push_back(std::move(pf));
    }
    return result;
}

std::string describeFit(const SoftwareFit& fit) {
    std::string out;
    char line[320];
    for (const PrecisionFit& p : fit.fits)
        for (const ClassFit& c : p.classes) {
            if (c.layers == 0)
                continue;
            std::snprintf(line, sizeof line,
                          "%s %s: %.4f -> %.4f over %d layers; measured %.3f ms, predicted "
                          "%.3f ms before, %.3f ms after%s\n",
                          p.precision.c_str(), c.parameter.c_str(), c.before, c.after, c.layers,
                          c.measured_ms, c.predicted_before_ms, c.predicted_after_ms,
                          c.clamped ? " (clamped at the schema's bound)" : "");
            out += line;
        }
    return out;
}

} // namespace iterscope
