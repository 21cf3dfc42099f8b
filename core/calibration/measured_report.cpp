#include "calibration/measured_report.h"

#include "calibration/kernel_scenario.h"
#include "model/model.h"
#include "util/error.h"

namespace iterscope {

MeasurementComparison compareScenarioWithMeasurement(const Scenario& scenario,
                                                     const Measurement& measurement,
                                                     const std::string& file) {
    if (!scenario.network)
        throw InputError(file + ": no network to compare with");
    const NetworkRun& run = selectRun(measurement, file, scenario.network->source,
                                      scenario.batch_per_gpu, scenario.precision);
    const Prediction kernels =
        predict(kernelScenario(scenario.network, scenario.gpu, scenario.software,
                               scenario.batch_per_gpu, scenario.precision));
    MeasurementComparison c = compareWithMeasurement(scenario.network->network, kernels, run);
    if (c.layers_in_mape == 0 && c.measured_forward_ms + c.measured_backward_ms <= 0)
        throw InputError(file + ": no measured layer of run '" + run.network +
                         "' matches a layer of '" + scenario.network->source + "'");
    return c;
}

MeasurementComparison compareScenarioWithMeasurementFile(const Scenario& scenario,
                                                         const std::string& path) {
    return compareScenarioWithMeasurement(scenario, readMeasurementFile(path), path);
}

} // namespace iterscope
