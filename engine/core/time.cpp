#include "engine/core/time.hpp"

#include <date/date.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <sstream>

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

bool parse_rfc3339(const std::string& text, Time& out) {
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
