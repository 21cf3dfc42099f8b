// The wall-clock time as written into files that say when they were made (a calibrator's
// measurement, a fitted profile's source).
#pragma once

#include <string>

namespace iterscope {

// "2026-03-04T05:06:07Z": ISO 8601, UTC, to the second.
std::string utcTimestamp();

} // namespace iterscope
