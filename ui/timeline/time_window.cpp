#include "timeline/time_window.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace iterscope::ui {
namespace {
double sanitizeWidth(double w) {
    return std::isfinite(w) && w >= 1 ? w : 1;
}
double sanitizeTotal(double total_ms) {
    return std::isfinite(total_ms) && total_ms > 0 ? total_ms : 1;
}
} // namespace

TimeWindow TimeWindow::fit(double total_ms, double width_px) {
    return TimeWindow{0, sanitizeTotal(total_ms), sanitizeWidth(width_px)};
}

double TimeWindow::timeToX(double t_ms) const {
    return (t_ms - start_ms) / spanMs() * width_px;
}

double TimeWindow::xToTime(double x_px) const {
    return start_ms + x_px / width_px * spanMs();
}

TimeWindow TimeWindow::clampedTo(double total_ms) const {
    const double total = sanitizeTotal(total_ms);
    const double span = std::clamp(spanMs(), std::min(kMinSpanMs, total), total);
    const double start = std::clamp(start_ms, 0.0, total - span);
    return TimeWindow{start, start + span, sanitizeWidth(width_px)};
}

TimeWindow TimeWindow::zoomedAround(double x_px, double factor, double total_ms) const {
    if (!std::isfinite(factor) || factor <= 0)
        return *this;
    const double total = sanitizeTotal(total_ms);
    const double anchor = xToTime(std::clamp(x_px, 0.0, width_px));
    const double span = std::clamp(spanMs() / factor, std::min(kMinSpanMs, total), total);
    const double fraction = std::clamp(x_px, 0.0, width_px) / width_px;
    const double start = anchor - fraction * span;
    return TimeWindow{start, start + span, width_px}.clampedTo(total);
}

TimeWindow TimeWindow::pannedBy(double dx_px, double total_ms) const {
    const double dt = dx_px * msPerPixel();
    return TimeWindow{start_ms - dt, end_ms - dt, width_px}.clampedTo(total_ms);
}

TimeWindow TimeWindow::resized(double new_width_px) const {
    return TimeWindow{start_ms, end_ms, sanitizeWidth(new_width_px)};
}

double niceTickStep(double ms_per_px, double min_spacing_px) {
    const double raw = std::max(ms_per_px * std::max(min_spacing_px, 1.0), 1e-12);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * magnitude >= raw * (1 - 1e-9))
            return m * magnitude;
    }
    return 10 * magnitude;
}

std::vector<double> ticksFor(const TimeWindow& window, double min_spacing_px) {
    const double step = niceTickStep(window.msPerPixel(), min_spacing_px);
    std::vector<double> ticks;
    const double first = std::ceil(window.start_ms / step - 1e-9) * step;
    // The window is at most width_px / min_spacing_px steps wide; the cap guards NaNs.
    for (double t = first; t <= window.end_ms + step * 1e-9 && ticks.size() < 10000;
         t = first + static_cast<double>(ticks.size()) * step)
        ticks.push_back(t);
    return ticks;
}

std::string tickLabel(double t_ms, double step_ms, double window_end_ms) {
    struct Unit {
        double per_ms;
        const char* symbol;
    };
    static constexpr Unit kUnits[] = {{1e-3, "s"}, {1.0, "ms"}, {1e3, "µs"}, {1e6, "ns"}};
    constexpr double kSmallestStep = 1e-3 * (1 - 1e-9); // three decimals
    const Unit* unit = &kUnits[std::size(kUnits) - 1];
    for (const Unit& u : kUnits) {
        if (std::abs(window_end_ms) * u.per_ms >= 1 && step_ms * u.per_ms >= kSmallestStep) {
            unit = &u;
            break;
        }
    }
    const double step = step_ms * unit->per_ms;
    double value = t_ms * unit->per_ms;
    if (std::abs(value) < std::abs(step) * 1e-6)
        value = 0; // no "-0" at the origin
    const int decimals =
        step >= 1 || !(step > 0) ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    char text[64];
    std::snprintf(text, sizeof text, "%.*f %s", std::clamp(decimals, 0, 6), value, unit->symbol);
    return text;
}

} // namespace iterscope::ui
