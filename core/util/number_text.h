// A number as text with a fixed count of decimals, as every table and message prints them
// ("%.*f"): one function, so reports, the advisor and the fit print alike.
#pragma once

#include <string>

namespace iterscope {

std::string fixedDecimals(double value, int decimals);

} // namespace iterscope
