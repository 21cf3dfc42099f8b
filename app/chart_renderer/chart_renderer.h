// The boundary between iterscope-cli and its chart renderer. The renderer needs Qt Widgets
// and Charts; linking them into the CLI would cost every command some 40 ms of dynamic
// loading, so `export-chart` loads the renderer as a module only when it runs.
#pragma once

#include "options/scenario_options.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace iterscope {

// The plan's training length and constraints, for kind "plan" (0 or "": the default).
struct PlanChartRequest {
    int64_t epochs = 0;
    int64_t dataset_images = 0;
    int64_t max_gpus = 0;
    // -1: the default bound (plan.h, kDefaultMaxGlobalBatch); 0: no bound.
    int64_t max_global_batch = -1;
    double deadline_hours = 0;
    double budget_usd = 0;
    const char* prices = "";
};

struct ChartRenderRequest {
    const ScenarioFlags* flags = nullptr;
    const char* kind = "scaling";           // scaling, timeline, layers or plan
    const char* out = "";                   // .png, .svg or .pdf
    double scale = 2;                       // PNG pixels per widget pixel
    const PlanChartRequest* plan = nullptr; // kind "plan" only; null: the defaults
};

// The module's one entry point, looked up by kChartRendererSymbol. Returns 0 on success;
// otherwise writes a one-line message (NUL-terminated, truncated to error_size) and
// returns 1. Never throws.
using ChartRenderFunction = int (*)(const ChartRenderRequest* request, char* error,
                                    std::size_t error_size);
inline constexpr const char* kChartRendererSymbol = "iterscope_render_chart_v1";
inline constexpr const char* kChartRendererFile = "iterscope-chart-renderer.so";

// `iterscope-cli report`: the whole report document, drawn by the same module.
struct ReportRenderRequest {
    const ScenarioFlags* flags = nullptr;
    // The scenario flags given on the command line ("--gpu", ...), ended by a null: with a
    // session they replace its choices, every other choice is the session's.
    const char* const* given_flags = nullptr;
    const char* session = "";               // .iterscope file; "": the flags alone
    const char* page = "a4";                // a4 or letter (PDF only)
    const char* out = "";                   // .pdf or .html
    const PlanChartRequest* plan = nullptr; // plan flags; each one set replaces the session's
    const char* measurements = "";          // a measurements CSV (validation format); "": none
    const char* trace = "";                 // a PyTorch profiler trace; "": none
};
using ReportRenderFunction = int (*)(const ReportRenderRequest* request, char* error,
                                     std::size_t error_size);
inline constexpr const char* kReportRendererSymbol = "iterscope_render_report_v1";

} // namespace iterscope
