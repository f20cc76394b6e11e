#pragma once
// Integer time for both worlds (DESIGN.md rule 2).
//
// `Time` is an absolute UTC instant, microseconds since the Unix epoch; `Duration` is a signed
// span in microseconds. Both are plain 64-bit integers underneath, so event ordering never
// compares doubles (STYLE.md habit 6). Doubles appear only at the edges (seconds() for reports,
// from_seconds() for models that compute in seconds).

#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace gantry {

class Duration {
 public:
  constexpr Duration() = default;
  constexpr explicit Duration(int64_t micros) : us_(micros) {}

  constexpr int64_t micros() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }

  // Rounds to the nearest microsecond; saturates at the representable range.
  static Duration from_seconds(double s);
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator*(int64_t k) const { return Duration(us_ * k); }
  constexpr Duration& operator+=(Duration o) { us_ += o.us_; return *this; }
  constexpr Duration& operator-=(Duration o) { us_ -= o.us_; return *this; }

 private:
  int64_t us_ = 0;
};

constexpr Duration microseconds(int64_t n) { return Duration(n); }
constexpr Duration milliseconds(int64_t n) { return Duration(n * 1'000); }
constexpr Duration seconds(int64_t n) { return Duration(n * 1'000'000); }
constexpr Duration minutes(int64_t n) { return seconds(n * 60); }
constexpr Duration hours(int64_t n) { return seconds(n * 3600); }
constexpr Duration days(int64_t n) { return hours(n * 24); }

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_micros(int64_t us) { return Time(us); }
  static constexpr Time epoch() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t micros() const { return us_; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return Time(us_ + d.micros()); }
  constexpr Time operator-(Duration d) const { return Time(us_ - d.micros()); }
  constexpr Duration operator-(Time o) const { return Duration(us_ - o.us_); }
  constexpr Time& operator+=(Duration d) { us_ += d.micros(); return *this; }

 private:
  constexpr explicit Time(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

// "2026-01-01T00:00:00Z", or with a fractional part when the instant has one
// ("2026-01-01T00:00:00.250Z"). Always UTC.
std::string format_rfc3339(Time t);

// Parses RFC 3339 ("2026-01-01T00:00:00Z", "2026-01-01T02:00:00+02:00", fractional seconds
// allowed). Returns false and leaves `out` untouched on malformed input.
bool parse_rfc3339(const std::string& text, Time& out);

// Compact human form for reports: "950us", "12.5ms", "3.2s", "4m05s", "2h03m", "3d04h".
std::string format_duration(Duration d);

}  // namespace gantry
