// The visible time range of the timeline and its mapping to pixels: a small copyable
// value type, so zoom and pan are pure functions with data-driven tests (as in Hotspot's
// and Qt Creator's timelines).
#pragma once

#include <string>
#include <vector>

namespace iterscope::ui {

struct TimeWindow {
    double start_ms = 0;
    double end_ms = 1;
    double width_px = 1; // pixels the range spans; never below 1

    // The narrowest range one can zoom to; below a nanosecond nothing in a model of
    // kernel times means anything.
    static constexpr double kMinSpanMs = 1e-6;

    // The whole of [0, total_ms] across width_px; total_ms <= 0 shows [0, 1].
    static TimeWindow fit(double total_ms, double width_px);

    double spanMs() const { return end_ms - start_ms; }
    double msPerPixel() const { return spanMs() / width_px; }
    // Linear; times outside the window map outside [0, width_px], which painters clip.
    double timeToX(double t_ms) const;
    double xToTime(double x_px) const;

    // factor > 1 zooms in, keeping the time under x_px fixed on screen; the span stays
    // within [kMinSpanMs, total_ms] and the range inside [0, total_ms].
    TimeWindow zoomedAround(double x_px, double factor, double total_ms) const;
    // Moves the content by dx_px pixels (positive: content moves right, earlier times
    // come into view), clamped to [0, total_ms].
    TimeWindow pannedBy(double dx_px, double total_ms) const;
    // The same range at another width (resizing the widget keeps what is shown).
    TimeWindow resized(double new_width_px) const;
    // The range shifted (not rescaled) to fit inside [0, total_ms].
    TimeWindow clampedTo(double total_ms) const;

    bool operator==(const TimeWindow&) const = default;
};

// A 1-2-5 tick step so that ticks are at least min_spacing_px apart.
double niceTickStep(double ms_per_px, double min_spacing_px);
// Tick positions (ms) inside the window for that step.
std::vector<double> ticksFor(const TimeWindow& window, double min_spacing_px);
// A tick's label, in one unit for every tick of a window: the largest of s, ms, µs and ns in
// which the window's end reads at least 1 and the step needs at most three decimals
// ("3.5 s", not "3500 ms"; "35 ms", not "0.035 s"). UTF-8.
std::string tickLabel(double t_ms, double step_ms, double window_end_ms);

} // namespace iterscope::ui
