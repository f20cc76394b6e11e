#include "engine/core/time.hpp"

#include <date/date.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <string_view>

namespace gantry {

Duration Duration::from_seconds(double s) {
  const double us = std::round(s * 1e6);
  if (!(us < 9.2e18)) return Duration::max();
  if (!(us > -9.2e18)) return Duration(std::numeric_limits<int64_t>::min());
  return Duration(static_cast<int64_t>(us));
}

std::string format_rfc3339(Time t) {
  namespace ch = std::chrono;
  const ch::sys_time<ch::microseconds> tp{ch::microseconds{t.micros()}};
  const auto secs = ch::floor<ch::seconds>(tp);
  const int64_t frac = (tp - secs).count();
  std::string out = date::format("%Y-%m-%dT%H:%M:%S", secs);
  if (frac != 0) {
    std::string f = fmt::format("{:06d}", frac);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  out += "Z";
  return out;
}

// The exact shape of an RFC 3339 timestamp: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM).
// Checked before date::parse because it converts a NaN seconds
// field to an integer (undefined behaviour) on some malformed inputs such as
// "2026-03-01T08000:00Z"; found by tests/fuzz/scenario_fuzz.
namespace {
bool has_rfc3339_shape(std::string_view t) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > t.size()) return false;
    for (size_t i = at; i < at + n; ++i)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  };
  auto is = [&](size_t at, char c) { return at < t.size() && t[at] == c; };
  if (!(digits(0, 4) && is(4, '-') && digits(5, 2) && is(7, '-') && digits(8, 2) &&
        (is(10, 'T') || is(10, 't')) && digits(11, 2) && is(13, ':') && digits(14, 2) &&
        is(16, ':') && digits(17, 2)))
    return false;
  size_t i = 19;
  if (is(i, '.')) {
    const size_t first = ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == first || i - first > 9) return false;
  }
  if (is(i, 'Z') || is(i, 'z')) return i + 1 == t.size();
  return (is(i, '+') || is(i, '-')) && digits(i + 1, 2) && is(i + 3, ':') && digits(i + 4, 2) &&
         i + 6 == t.size();
}
}  // namespace

bool parse_rfc3339(const std::string& text, Time& out) {
  if (!has_rfc3339_shape(text)) return false;
  namespace ch = std::chrono;
  // date::parse with %FT%T accepts fractional seconds at the precision of the target type;
  // %Ez accepts "+02:00". "Z" is handled separately because %Ez does not accept it.
  std::string body = text;
  bool zulu = false;
  if (!body.empty() && (body.back() == 'Z' || body.back() == 'z')) {
    body.pop_back();
    zulu = true;
  }
  if (body.size() < 19 || (body[10] != 'T' && body[10] != 't')) return false;
  std::istringstream in(body);
  ch::sys_time<ch::microseconds> tp;
  if (zulu) {
    in >> date::parse("%FT%T", tp);
  } else {
    ch::minutes offset{};
    // For a sys_time target, date::parse applies the parsed offset itself.
    in >> date::parse("%FT%T%Ez", tp, offset);
  }
  if (in.fail()) return false;
  in.peek();
  if (!in.eof()) return false;
  out = Time::from_micros(tp.time_since_epoch().count());
  return true;
}

std::string format_duration(Duration d) {
  int64_t us = d.micros();
  if (us < 0) return "-" + format_duration(Duration(-us));
  if (us < 1'000) return fmt::format("{}us", us);
  if (us < 1'000'000) return fmt::format("{:.1f}ms", us / 1e3);
  if (us < 60'000'000) return fmt::format("{:.1f}s", us / 1e6);
  const int64_t s = us / 1'000'000;
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
  return fmt::format("{}d{:02d}h", s / 86400, (s % 86400) / 3600);
}

}  // namespace gantry
