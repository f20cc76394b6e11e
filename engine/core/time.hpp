#pragma once
// Integer time for both worlds (DESIGN.md rule 2).
//
// `Time` is an absolute UTC instant, microseconds since the Unix epoch; `Duration` is a signed
// span in microseconds. Both are plain 64-bit integers underneath, so event ordering never
// compares doubles (STYLE.md habit 6). Doubles appear only at the edges (seconds() for reports,
// from_seconds() for models that compute in seconds).
//
// Overflow: the operators below are plain int64 arithmetic and must only combine values known
// to be in range. Wherever a sum or product comes from user input (a submit offset, steps ×
// step time, a retry delay), use the checked_* helpers (nullopt on overflow) or the
// saturating_* ones (clamp to the representable range) instead.

#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/status.hpp"

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
  static constexpr Duration min() { return Duration(std::numeric_limits<int64_t>::min()); }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator*(int64_t k) const { return Duration(us_ * k); }
  constexpr Duration& operator+=(Duration o) {
    us_ += o.us_;
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    us_ -= o.us_;
    return *this;
  }

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
  constexpr Time& operator+=(Duration d) {
    us_ += d.micros();
    return *this;
  }

 private:
  constexpr explicit Time(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

// ---- the range of instants Gantry works with ----
//
// Inputs and simulations stay within the instants RFC 3339 can write with a four-digit year,
// [0001-01-01T00:00:00Z, 9999-12-31T23:59:59.999999Z]: a file can name any of them and every
// report can print them. A simulated event past kLatestTime never happens (the job it belongs
// to is reported as not finished); nothing is wrapped or clamped silently.
inline constexpr Time kEarliestTime = Time::from_micros(-62'135'596'800'000'000);  // 0001-01-01
inline constexpr Time kLatestTime =
    Time::from_micros(253'402'300'799'999'999);  // 9999-12-31T23:59:59.999999

// ---- checked and saturating arithmetic ----
// checked_*: the exact result, or nullopt when it does not fit in int64 microseconds.
// saturating_*: the exact result, or Time::max()/min(), Duration::max()/min() past the ends.
std::optional<Time> checked_add(Time t, Duration d);
std::optional<Duration> checked_add(Duration a, Duration b);
std::optional<Duration> checked_sub(Time a, Time b);
std::optional<Duration> checked_mul(Duration d, int64_t k);
Time saturating_add(Time t, Duration d);
Duration saturating_add(Duration a, Duration b);
Duration saturating_mul(Duration d, int64_t k);

// "2026-01-01T00:00:00Z", or with a fractional part when the instant has one
// ("2026-01-01T00:00:00.250Z"). Always UTC. Defined for every int64: years outside 0000-9999
// get a sign and at least four digits as in ISO 8601's expanded form ("+32768-01-01T00:00:00Z",
// "-0001-12-31T00:00:00Z"), so an out-of-range instant is visible as such, never wrapped.
std::string format_rfc3339(Time t);

// Parses RFC 3339 ("2026-01-01T00:00:00Z", "2026-01-01T02:00:00+02:00", fractional seconds
// allowed): four-digit year, month 01-12, day valid for the month, hour 00-23, minute 00-59,
// second 00-59 (leap seconds are not representable in Unix time), offset -23:59 to +23:59. The
// error says what is wrong ("offset +99:00 is out of range: hours 00-23, minutes 00-59"), or is
// exactly kRfc3339Malformed when the text does not even have the shape.
inline constexpr std::string_view kRfc3339Malformed =
    "not of the form YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)";
Result<Time> read_rfc3339(std::string_view text);
// The same, as a bool: false and `out` untouched on malformed input.
bool parse_rfc3339(const std::string& text, Time& out);

// Compact human form for reports: "950us", "12.5ms", "3.2s", "4m05s", "2h03m", "3d04h". Defined
// for every int64 (negative spans get a '-'), never recursing.
std::string format_duration(Duration d);

}  // namespace gantry
