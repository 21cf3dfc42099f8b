// The boundary between iterscope-cli and its chart renderer. The renderer needs Qt Widgets
// and Charts; linking them into the CLI would cost every command some 40 ms of dynamic
// loading, so `export-chart` loads the renderer as a module only when it runs.
#pragma once

#include "options/scenario_options.h"

#include <cstddef>
#include <string>

namespace iterscope {

struct ChartRenderRequest {
    const ScenarioFlags* flags = nullptr;
    const char* kind = "scaling"; // scaling, timeline or layers
    const char* out = "";         // .png, .svg or .pdf
    double scale = 2;             // PNG pixels per widget pixel
};

// The module's one entry point, looked up by kChartRendererSymbol. Returns 0 on success;
// otherwise writes a one-line message (NUL-terminated, truncated to error_size) and
// returns 1. Never throws.
using ChartRenderFunction = int (*)(const ChartRenderRequest* request, char* error,
                                    std::size_t error_size);
inline constexpr const char* kChartRendererSymbol = "iterscope_render_chart_v1";
inline constexpr const char* kChartRendererFile = "iterscope-chart-renderer.so";

} // namespace iterscope
