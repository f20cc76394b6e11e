#include "report/number_format.hpp"

#include <fmt/format.h>

#include <cmath>

#include "engine/core/time.hpp"

namespace gantry {

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string with_commas(double x, int decimals) {
  const std::string fixed = fmt::format("{:.{}f}", std::abs(x), decimals);
  const size_t point = fixed.find('.');
  const std::string whole = fixed.substr(0, point);
  std::string out;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  if (point != std::string::npos) out += fixed.substr(point);
  return std::signbit(x) && fixed.find_first_not_of("0.") != std::string::npos ? "-" + out : out;
}

std::string percent(double ratio) { return fmt::format("{:.1f} %", ratio * 100); }

std::string seconds_human(double s) {
  if (s == 0) return "0s";
  return format_duration(Duration::from_seconds(s));
}

}  // namespace gantry
