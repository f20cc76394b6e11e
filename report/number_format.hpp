#pragma once
// Number formats shared by the text reports: thousands separators, percentages and seconds
// shown as human durations.

#include <cstdint>
#include <string>

namespace gantry {

// 1234567 -> "1,234,567"
std::string with_commas(int64_t n);
// 1234.567 with 1 decimal -> "1,234.6" (rounded as printf rounds)
std::string with_commas(double x, int decimals);
// 0.7834 -> "78.3 %"
std::string percent(double ratio);
// 754.2 -> "12m34s"; sub-second values in ms.
std::string seconds_human(double s);

}  // namespace gantry
