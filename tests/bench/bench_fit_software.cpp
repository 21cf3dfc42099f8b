// Fits a software profile's few parameters on the measurement file as a whole (docs/model.md
// "How the software parameters were fitted"). Not a benchmark: a tool that lives here
// because tests/bench builds plain executables against the core.
//
//   bench_fit_software SOFTWARE_ID [CSV] [param ...]
//
// Coordinate descent on multiplicative steps, minimising the mean absolute percentage error
// of that software's rows plus the excess of its worst (source, gpu, sync) group over 15%.
// It prints the fitted values; copying them into profiles/software/<id>.json is a manual,
// reviewed step, so the shipped model never reads measurements.
#include "hardware/profile_loader.h"
#include "validation/validation.h"
#include "util/error.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using namespace iterscope;

namespace {

double* field(SoftwareProfile& s, const std::string& name) {
    static const std::map<std::string, double SoftwareProfile::*> fields{
        {"per_layer_overhead_us", &SoftwareProfile::per_layer_overhead_us},
        {"kernel_gap_us", &SoftwareProfile::kernel_gap_us},
        {"conv_efficiency", &SoftwareProfile::conv_efficiency},
        {"fc_efficiency", &SoftwareProfile::fc_efficiency},
        {"tensor_core_efficiency", &SoftwareProfile::tensor_core_efficiency},
        {"gemm_k_half", &SoftwareProfile::gemm_k_half},
        {"winograd_speedup", &SoftwareProfile::winograd_speedup},
        {"memory_efficiency", &SoftwareProfile::memory_efficiency},
        {"input_gpu_us_per_image", &SoftwareProfile::input_gpu_us_per_image},
        {"nccl_efficiency", &SoftwareProfile::nccl_efficiency},
        {"memcpy_efficiency", &SoftwareProfile::memcpy_efficiency},
        {"collective_hop_latency_us", &SoftwareProfile::collective_hop_latency_us},
    };
    auto it = fields.find(name);
    return it == fields.end() ? nullptr : &(s.*(it->second));
}

struct Score {
    double mape = 0, worst_group = 0, objective = 0;
};

Score score(const std::vector<ValidationRow>& rows, const ValidationResolver& r) {
    const ValidationReport rep = validate(rows, r);
    Score s;
    s.mape = rep.mape;
    for (const auto& g : rep.groups)
        s.worst_group = std::max(s.worst_group, g.mape);
    s.objective = s.mape + std::max(0.0, s.worst_group - 15.0);
    return s;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_fit_software SOFTWARE_ID [CSV] [param ...]\n";
        return 1;
    }
    try {
        const std::string id = argv[1];
        std::string csv = std::string(ITERSCOPE_TEST_DATA) + "/published.csv";
        int first_param = 2;
        if (argc > 2 && std::string(argv[2]).find(".csv") != std::string::npos) {
            csv = argv[2];
            first_param = 3;
        }
        std::vector<std::string> params;
        for (int i = first_param; i < argc; ++i)
            params.emplace_back(argv[i]);
        if (params.empty())
            params = {"conv_efficiency",       "winograd_speedup", "memory_efficiency",
                      "per_layer_overhead_us", "kernel_gap_us",    "fc_efficiency"};

        std::vector<ValidationRow> rows;
        for (auto& row : readValidationCsv(csv))
            if (row.software == id)
                rows.push_back(row);
        if (rows.empty())
            throw InputError(csv + ": no rows for software '" + id + "'");

        SoftwareProfile profile = loadSoftwareProfile(id);
        ValidationResolver resolver = defaultResolver();
        resolver.software = [&profile](const std::string&) { return profile; };
        for (const auto& p : params)
            if (!field(profile, p))
                throw InputError("unknown parameter '" + p + "'");

        Score best = score(rows, resolver);
        std::printf("start: mape %.2f%%, worst group %.2f%%\n", best.mape, best.worst_group);
        for (double step = 0.2; step > 0.004; step /= 2) {
            bool improved = true;
            for (int round = 0; improved && round < 20; ++round) {
                improved = false;
                for (const auto& p : params) {
                    double* v = field(profile, p);
                    for (double factor : {1 + step, 1 / (1 + step)}) {
                        const double old = *v;
                        double next = old == 0 ? step : old * factor;
                        if (p.find("efficiency") != std::string::npos)
                            next = std::min(next, 1.0);
                        if (p == "winograd_speedup")
                            next = std::max(next, 1.0);
                        *v = next;
                        Score s;
                        try {
                            s = score(rows, resolver);
                        } catch (const InputError&) {
                            *v = old;
                            continue;
                        }
                        if (s.objective < best.objective - 1e-9) {
                            best = s;
                            improved = true;
                        } else {
                            *v = old;
                        }
                    }
                }
            }
        }
        std::printf("fitted: mape %.2f%%, worst group %.2f%%\n", best.mape, best.worst_group);
        for (const auto& p : params)
            std::printf("  \"%s\": %.4g,\n", p.c_str(), *field(profile, p));
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "bench_fit_software: " << e.what() << "\n";
        return 1;
    }
}
