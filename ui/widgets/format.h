// Human-readable figures for labels, tables and axes. One place, so that every view
// shows the same number the same way.
#pragma once

#include <QString>

#include <cstdint>
#include <initializer_list>

namespace iterscope::ui {

// 0.000123 ms -> "123 ns", 0.42 -> "420 µs", 12.3 -> "12.3 ms", 1234 -> "1.23 s".
QString formatMs(double ms);
// Several times as one figure: "23.3 / 38.7 / 1.05 ms" when every one reads in the same
// unit, else each with its own ("75.1 ms / 980 µs / 1.07 ms").
QString formatMsGroup(std::initializer_list<double> ms);
// Binary units, since GPU memory is sold in GiB: "15.8 GiB", "512 MiB".
QString formatBytes(int64_t bytes);
// SI prefixes for counts: "25.6 M", "4.11 G".
QString formatCount(double count);
// "1,234 img/s" style for throughput.
QString formatRate(double per_second);
// 0.873 -> "87.3 %".
QString formatPercent(double fraction);
// A signed difference: 0.123 -> "+12.3 %", -0.041 -> "−4.1 %" (a typographic minus).
QString formatSignedPercent(double fraction);
// The error band of a figure as how far below and above it its bounds lie: value 100, low
// 92, high 104 -> "−8 % / +4 %". Empty where there is no band (both bounds equal the value).
QString formatBand(double value, double low, double high);

} // namespace iterscope::ui
