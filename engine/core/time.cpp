#include "engine/core/time.hpp"

#include <fmt/format.h>

#include <cmath>

#include "engine/core/floor_div.hpp"

namespace gantry {

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

// Floor modulo (floor_div is in floor_div.hpp): calendar arithmetic needs days before the
// epoch to round down.
// From the remainder, not a - floor_div(a, b) * b: that product overflows for INT64_MIN.
int64_t floor_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

struct CivilDate {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
};

// Proleptic Gregorian calendar in 400-year eras (146,097 days each), counted from March 1 so
// that the leap day ends a year: then the day of the year maps to a month by a linear formula
// (153 days per five months from March), and no table is needed. Exact for every int64 day
// count an int64 microsecond instant can produce.
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = floor_div(y, 400);
  const int64_t year_of_era = y - era * 400;                             // [0, 399]
  const int64_t month_from_march = (m + 9) % 12;                         // March = 0
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;  // [0, 365]
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;  // [0, 146096]
  return era * 146'097 + day_of_era - 719'468;  // 719,468 days from 0000-03-01 to 1970-01-01
}

CivilDate civil_from_days(int64_t days) {
  days += 719'468;
  const int64_t era = floor_div(days, 146'097);
  const int64_t day_of_era = days - era * 146'097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  const int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t y, int m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

}  // namespace

Duration Duration::from_seconds(double s) {
  const double us = std::round(s * 1e6);
  if (!(us < 9.2e18)) return Duration::max();
  if (!(us > -9.2e18)) return Duration::min();
  return Duration(static_cast<int64_t>(us));
}

std::optional<Time> checked_add(Time t, Duration d) {
  int64_t r = 0;
  if (__builtin_add_overflow(t.micros(), d.micros(), &r)) return std::nullopt;
  return Time::from_micros(r);
}

std::optional<Duration> checked_add(Duration a, Duration b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a.micros(), b.micros(), &r)) return std::nullopt;
  return Duration(r);
}

std::optional<Duration> checked_sub(Time a, Time b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a.micros(), b.micros(), &r)) return std::nullopt;
  return Duration(r);
}

std::optional<Duration> checked_mul(Duration d, int64_t k) {
  int64_t r = 0;
  if (__builtin_mul_overflow(d.micros(), k, &r)) return std::nullopt;
  return Duration(r);
}

Time saturating_add(Time t, Duration d) {
  if (auto r = checked_add(t, d)) return *r;
  return d.micros() > 0 ? Time::max() : Time::from_micros(std::numeric_limits<int64_t>::min());
}

Duration saturating_add(Duration a, Duration b) {
  if (auto r = checked_add(a, b)) return *r;
  return b.micros() > 0 ? Duration::max() : Duration::min();
}

Duration saturating_mul(Duration d, int64_t k) {
  if (auto r = checked_mul(d, k)) return *r;
  return (d.micros() < 0) == (k < 0) ? Duration::max() : Duration::min();
}

std::string format_rfc3339(Time t) {
  const int64_t us = t.micros();
  const int64_t secs = floor_div(us, kMicrosPerSecond);
  const int64_t frac = floor_mod(us, kMicrosPerSecond);
  const int64_t days = floor_div(secs, kSecondsPerDay);
  const int64_t in_day = floor_mod(secs, kSecondsPerDay);
  const CivilDate date = civil_from_days(days);
  // Written digit by digit: three fmt::format calls per instant were an eighth of the time
  // of a page of runs in the REST API (perf), and every answer carries dozens of instants.
  const auto put = [](std::string& s, int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) s[s.size() - width + i] = '0' + (v % 10);
  };
  std::string out;
  out.reserve(32);
  if (date.year >= 0 && date.year <= 9999) {
    out.append(4, '0');
    put(out, date.year, 4);
  } else {
    out += fmt::format("{}{:04d}", date.year < 0 ? '-' : '+',
                       date.year < 0 ? -int64_t{date.year} : int64_t{date.year});
  }
  const auto field = [&](char sep, int64_t v) {
    out += sep;
    out.append(2, '0');
    put(out, v, 2);
  };
  field('-', date.month);
  field('-', date.day);
  field('T', in_day / 3600);
  field(':', (in_day % 3600) / 60);
  field(':', in_day % 60);
  if (frac != 0) {
    int64_t f = frac;
    int digits = 6;
    while (f % 10 == 0) {
      f /= 10;
      --digits;
    }
    out += '.';
    out.append(digits, '0');
    put(out, f, digits);
  }
  out += 'Z';
  return out;
}

// YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), read by hand: every field is range-checked
// here, so no library converts a malformed field (date::parse turned a NaN seconds field into
// an integer on "2026-03-01T08000:00Z", found by tests/fuzz/scenario_fuzz).
Result<Time> read_rfc3339(std::string_view t) {
  const auto malformed = [] { return Status::error(std::string(kRfc3339Malformed)); };
  const auto digits = [&](size_t at, size_t n, int64_t& value) {
    if (at + n > t.size()) return false;
    value = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      value = value * 10 + (t[i] - '0');
    }
    return true;
  };
  const auto is = [&](size_t at, char c) { return at < t.size() && t[at] == c; };
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!(digits(0, 4, year) && is(4, '-') && digits(5, 2, month) && is(7, '-') &&
        digits(8, 2, day) && (is(10, 'T') || is(10, 't')) && digits(11, 2, hour) && is(13, ':') &&
        digits(14, 2, minute) && is(16, ':') && digits(17, 2, second)))
    return malformed();
  size_t i = 19;
  int64_t micros = 0;
  if (is(i, '.')) {
    const size_t first = ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == first || i - first > 9) return malformed();
    for (size_t k = first; k < first + 6; ++k) micros = micros * 10 + (k < i ? t[k] - '0' : 0);
    for (size_t k = first + 6; k < i; ++k)
      if (t[k] != '0') return Status::error("finer than a microsecond (Gantry's time resolution)");
  }
  int64_t offset_minutes = 0;
  if (is(i, 'Z') || is(i, 'z')) {
    if (i + 1 != t.size()) return malformed();
  } else {
    int64_t oh = 0, om = 0;
    if (!((is(i, '+') || is(i, '-')) && digits(i + 1, 2, oh) && is(i + 3, ':') &&
          digits(i + 4, 2, om) && i + 6 == t.size()))
      return malformed();
    if (oh > 23 || om > 59)
      return Status::error("offset " + std::string(t.substr(i)) +
                           " is out of range: hours 00-23, minutes 00-59");
    offset_minutes = (t[i] == '-' ? -1 : 1) * (oh * 60 + om);
  }
  if (year < 1) return Status::error("year 0000 is out of range: years 0001-9999");
  if (month < 1 || month > 12)
    return Status::error("month " + std::to_string(month) + " is out of range: 01-12");
  if (day < 1 || day > days_in_month(year, static_cast<int>(month)))
    return Status::error(fmt::format("day {:02d} is out of range: {:04d}-{:02d} has {} days", day,
                                     year, month, days_in_month(year, static_cast<int>(month))));
  if (hour > 23 || minute > 59 || second > 59)
    return Status::error("time of day out of range: hours 00-23, minutes and seconds 00-59");
  const int64_t secs =
      days_from_civil(year, static_cast<int>(month), static_cast<int>(day)) * kSecondsPerDay +
      hour * 3600 + minute * 60 + second - offset_minutes * 60;
  const Time out = Time::from_micros(secs * kMicrosPerSecond + micros);
  // An offset can move 0001-01-01 or 9999-12-31 past the range's ends.
  if (out < kEarliestTime || out > kLatestTime)
    return Status::error(
        "the instant is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z");
  return out;
}

bool parse_rfc3339(const std::string& text, Time& out) {
  Result<Time> r = read_rfc3339(text);
  if (!r) return false;
  out = r.value();
  return true;
}

std::string format_duration(Duration d) {
  const int64_t v = d.micros();
  // The magnitude as unsigned: -INT64_MIN does not fit int64 (negating it recursed forever).
  const uint64_t us = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const char* sign = v < 0 ? "-" : "";
  if (us < 1'000) return fmt::format("{}{}us", sign, us);
  if (us < 1'000'000) return fmt::format("{}{:.1f}ms", sign, static_cast<double>(us) / 1e3);
  if (us < 60'000'000) return fmt::format("{}{:.1f}s", sign, static_cast<double>(us) / 1e6);
  const uint64_t s = us / 1'000'000;
  if (s < 3600) return fmt::format("{}{}m{:02d}s", sign, s / 60, s % 60);
  if (s < 86400) return fmt::format("{}{}h{:02d}m", sign, s / 3600, (s % 3600) / 60);
  return fmt::format("{}{}d{:02d}h", sign, s / 86400, (s % 86400) / 3600);
}

}  // namespace gantry
