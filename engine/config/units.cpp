#include "engine/config/units.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "engine/config/quote.hpp"

namespace gantry {

namespace {

// 128-bit arithmetic keeps exact decimal scaling free of floating-point error. __extension__
// silences -Wpedantic: the type is a GCC/Clang extension both compilers support.
__extension__ typedef unsigned __int128 U128;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// More significant digits than this cannot be represented exactly in U128 after scaling; no
// real quantity needs them.
constexpr int kMaxDigits = 30;

// An unsigned decimal "digits[.digits]" read as mantissa / 10^frac_digits.
struct Decimal {
  U128 mantissa = 0;
  int frac_digits = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads a decimal number at the start of `text`; returns the number of characters used, 0 if
// there is no well-formed number there or it has too many digits.
size_t read_decimal(std::string_view text, Decimal& out) {
  size_t i = 0;
  int digits = 0;
  Decimal d;
  while (i < text.size() && is_digit(text[i])) {
    d.mantissa = d.mantissa * 10 + static_cast<unsigned>(text[i] - '0');
    ++i;
    if (++digits > kMaxDigits) return 0;
  }
  if (digits == 0) return 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int frac = 0;
    while (i < text.size() && is_digit(text[i])) {
      d.mantissa = d.mantissa * 10 + static_cast<unsigned>(text[i] - '0');
      ++i;
      ++frac;
      if (++digits > kMaxDigits) return 0;
    }
    if (frac == 0) return 0;  // "1." is not a number
    d.frac_digits = frac;
  }
  out = d;
  return i;
}

U128 pow10(int n) {
  U128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

U128 gcd(U128 a, U128 b) {
  while (b != 0) {
    const U128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

enum class Scaled { kOk, kNotWhole, kTooLarge };

// d * multiplier as an exact integer no larger than `limit`. Divides out common factors first
// so that "1.000000000000000000000Pi" does not overflow on the way to 2^50.
Scaled scale_exact(const Decimal& d, U128 multiplier, U128 limit, U128& out) {
  U128 denominator = pow10(d.frac_digits);
  const U128 g = gcd(multiplier, denominator);
  multiplier /= g;
  denominator /= g;
  if (d.mantissa % denominator != 0) return Scaled::kNotWhole;
  const U128 whole = d.mantissa / denominator;
  if (whole != 0 && multiplier > limit / whole) return Scaled::kTooLarge;
  out = whole * multiplier;
  return out > limit ? Scaled::kTooLarge : Scaled::kOk;
}

double to_double(const Decimal& d) {
  // Both parts are below 10^30, so the conversion loses at most the last bits of precision.
  return static_cast<double>(d.mantissa) / static_cast<double>(pow10(d.frac_digits));
}

std::string quoted(std::string_view text) { return quote_for_message(text); }

std::string format_number(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Status expected(std::string_view what, std::string_view text, std::string_view why = {}) {
  std::string message = "expected " + std::string(what) + ", got " + quoted(text);
  if (!why.empty()) message += " (" + std::string(why) + ")";
  return Status::error(std::move(message));
}

// "1e30GB": the number has an exponent, which unit strings do not accept. Returns the length
// of "e30" (0 if there is no exponent at the start of `rest`) and the magnitude of the number
// with it, so the message can say whether the value would have been in range at all.
size_t read_exponent(std::string_view rest, const Decimal& d, double& magnitude) {
  if (rest.empty() || (rest[0] != 'e' && rest[0] != 'E')) return 0;
  size_t i = 1;
  bool negative = false;
  if (i < rest.size() && (rest[i] == '+' || rest[i] == '-')) negative = rest[i++] == '-';
  const size_t first = i;
  int exponent = 0;
  while (i < rest.size() && is_digit(rest[i])) {
    if (exponent < 100'000) exponent = exponent * 10 + (rest[i] - '0');
    ++i;
  }
  if (i == first) return 0;
  magnitude = to_double(d) * std::pow(10.0, negative ? -exponent : exponent);
  return i;
}

// "expected a size in bytes from 0 to 64Ti, got '1e30GB' (value out of range)".
Status out_of_range(std::string_view noun, std::string_view max, std::string_view text) {
  const std::string_view zero = noun == "a duration" ? "0s" : "0";
  return Status::error("expected " + std::string(noun) + " from " + std::string(zero) + " to " +
                       std::string(max) + ", got " + quoted(text) + " (value out of range)");
}

Status no_exponent(std::string_view what, std::string_view text) {
  return expected(what, text, "write the number without an exponent");
}

struct Suffix {
  std::string_view text;
  U128 multiplier;
};

constexpr U128 kKi = 1024;
constexpr U128 kK = 1000;

// Longest suffixes first so that "Gi" wins over "G".
constexpr Suffix kByteSuffixes[] = {
    {"KiB", kKi},
    {"MiB", kKi* kKi},
    {"GiB", kKi* kKi* kKi},
    {"TiB", kKi* kKi* kKi* kKi},
    {"PiB", kKi* kKi* kKi* kKi* kKi},
    {"Ki", kKi},
    {"Mi", kKi* kKi},
    {"Gi", kKi* kKi* kKi},
    {"Ti", kKi* kKi* kKi* kKi},
    {"Pi", kKi* kKi* kKi* kKi* kKi},
    {"kB", kK},
    {"KB", kK},
    {"MB", kK* kK},
    {"GB", kK* kK* kK},
    {"TB", kK* kK* kK* kK},
    {"PB", kK* kK* kK* kK* kK},
    {"k", kK},
    {"K", kK},
    {"M", kK* kK},
    {"G", kK* kK* kK},
    {"T", kK* kK* kK* kK},
    {"P", kK* kK* kK* kK* kK},
    {"B", 1},
    {"", 1},
};

// Prefixes of bandwidth units.
constexpr Suffix kRatePrefixes[] = {
    {"Ki", kKi}, {"Mi", kKi* kKi}, {"Gi", kKi* kKi* kKi}, {"Ti", kKi* kKi* kKi* kKi}, {"k", kK},
    {"K", kK},   {"M", kK* kK},    {"G", kK* kK* kK},     {"T", kK* kK* kK* kK},      {"", 1},
};

constexpr Suffix kDurationUnits[] = {
    {"d", 86'400'000'000}, {"h", 3'600'000'000}, {"m", 60'000'000},
    {"s", 1'000'000},      {"ms", 1'000},        {"us", 1},
};

constexpr std::string_view kBytesWhat = "a size in bytes such as 80Gi, 512Mi or 1.5GB";
constexpr std::string_view kBandwidthWhat = "a bandwidth such as 400Gbps or 25GB/s";
constexpr std::string_view kDurationWhat = "a duration such as 90s, 1h30m or 500ms";
constexpr std::string_view kCpuWhat = "a CPU amount such as 2, 0.5 or 500m";

const Suffix* byte_suffix(std::string_view text) {
  for (const Suffix& s : kByteSuffixes)
    if (s.text == text) return &s;
  return nullptr;
}

}  // namespace

Result<int64_t> parse_bytes(std::string_view text, int64_t max) {
  Decimal d;
  const size_t used = read_decimal(text, d);
  if (used == 0) return expected(kBytesWhat, text);
  std::string_view suffix = text.substr(used);
  double magnitude = 0;
  if (const size_t e = read_exponent(suffix, d, magnitude)) {
    const Suffix* s = byte_suffix(suffix.substr(e));
    if (s && magnitude * static_cast<double>(s->multiplier) > static_cast<double>(max))
      return out_of_range("a size in bytes", format_bytes_exact(max), text);
    if (s) return no_exponent(kBytesWhat, text);
  }
  if (const Suffix* s = byte_suffix(suffix)) {
    U128 value = 0;
    switch (scale_exact(d, s->multiplier, static_cast<U128>(max), value)) {
      case Scaled::kOk:
        return static_cast<int64_t>(value);
      case Scaled::kNotWhole:
        return expected(kBytesWhat, text, "not a whole number of bytes");
      case Scaled::kTooLarge:
        return out_of_range("a size in bytes", format_bytes_exact(max), text);
    }
  }
  return expected(kBytesWhat, text, "unknown suffix; use Ki, Mi, Gi, Ti, Pi, k, M, G, T or P");
}

Result<double> parse_bandwidth(std::string_view text, double max) {
  Decimal d;
  const size_t used = read_decimal(text, d);
  if (used == 0) return expected(kBandwidthWhat, text);
  std::string_view rest = text.substr(used);
  double magnitude = 0;
  const size_t exponent = read_exponent(rest, d, magnitude);
  rest.remove_prefix(exponent);
  double per_unit = 0;  // bytes per second of one unit, before the prefix
  for (std::string_view unit : {"bps", "bit/s"})
    if (rest.ends_with(unit)) per_unit = 1.0 / 8.0, rest.remove_suffix(unit.size());
  if (per_unit == 0)
    for (std::string_view unit : {"B/s", "Bps"})
      if (rest.ends_with(unit)) per_unit = 1.0, rest.remove_suffix(unit.size());
  if (per_unit == 0)
    return expected(kBandwidthWhat, text, "the unit is required: bps, bit/s, B/s or Bps");
  for (const Suffix& p : kRatePrefixes) {
    if (p.text != rest) continue;
    const double value =
        (exponent ? magnitude : to_double(d)) * static_cast<double>(p.multiplier) * per_unit;
    if (!std::isfinite(value) || value > max)
      return out_of_range("a bandwidth", format_bandwidth(max), text);
    if (exponent) return no_exponent(kBandwidthWhat, text);
    return value;
  }
  return expected(kBandwidthWhat, text, "unknown prefix; use k, M, G, T, Ki, Mi, Gi or Ti");
}

Result<Duration> parse_duration(std::string_view text, Duration max) {
  if (text.empty()) return expected(kDurationWhat, text);
  const auto too_long = [&] {
    return out_of_range("a duration", format_duration_exact(max), text);
  };
  bool had_exponent = false;
  double approx_total = 0;  // seconds, for the message about exponents
  U128 total = 0;
  size_t last_unit = std::size(kDurationUnits);  // index of the previous part's unit
  std::string_view rest = text;
  while (!rest.empty()) {
    Decimal d;
    const size_t used = read_decimal(rest, d);
    if (used == 0) return expected(kDurationWhat, text);
    rest.remove_prefix(used);
    double magnitude = 0;
    const size_t exponent = read_exponent(rest, d, magnitude);
    if (exponent) {
      had_exponent = true;
      rest.remove_prefix(exponent);
    } else {
      magnitude = to_double(d);
    }
    size_t unit_len = 0;
    while (unit_len < rest.size() && !is_digit(rest[unit_len])) ++unit_len;
    const std::string_view unit = rest.substr(0, unit_len);
    rest.remove_prefix(unit_len);
    if (unit.empty())
      return expected(kDurationWhat, text, "the unit is required: d, h, m, s, ms or us");
    size_t index = std::size(kDurationUnits);
    for (size_t i = 0; i < std::size(kDurationUnits); ++i)
      if (kDurationUnits[i].text == unit) index = i;
    if (index == std::size(kDurationUnits))
      return expected(kDurationWhat, text,
                      "unknown unit " + quote_for_message(unit) + "; use d, h, m, s, ms or us");
    if (last_unit != std::size(kDurationUnits) && index <= last_unit)
      return expected(kDurationWhat, text, "units must go from largest to smallest, once each");
    last_unit = index;
    approx_total += magnitude * static_cast<double>(kDurationUnits[index].multiplier);
    if (had_exponent) continue;
    U128 part = 0;
    switch (scale_exact(d, kDurationUnits[index].multiplier, kInt64Max, part)) {
      case Scaled::kOk:
        break;
      case Scaled::kNotWhole:
        return expected(kDurationWhat, text, "finer than a microsecond");
      case Scaled::kTooLarge:
        return too_long();
    }
    total += part;  // both below 2^63: no U128 overflow
    if (total > static_cast<U128>(max.micros())) return too_long();
  }
  if (had_exponent) {
    if (approx_total > static_cast<double>(max.micros())) return too_long();
    return no_exponent(kDurationWhat, text);
  }
  return Duration(static_cast<int64_t>(total));
}

Result<int64_t> parse_cpu_milli(std::string_view text, int64_t max) {
  Decimal d;
  const size_t used = read_decimal(text, d);
  if (used == 0) return expected(kCpuWhat, text);
  std::string_view suffix = text.substr(used);
  double magnitude = 0;
  const size_t exponent = read_exponent(suffix, d, magnitude);
  suffix.remove_prefix(exponent);
  U128 multiplier = 0;
  if (suffix.empty())
    multiplier = 1000;
  else if (suffix == "m")
    multiplier = 1;
  else
    return expected(kCpuWhat, text, "the only suffix is m (millicores)");
  const auto too_large = [&] { return out_of_range("a CPU amount", format_cpu_milli(max), text); };
  if (exponent) {
    if (magnitude * static_cast<double>(multiplier) > static_cast<double>(max)) return too_large();
    return no_exponent(kCpuWhat, text);
  }
  U128 value = 0;
  switch (scale_exact(d, multiplier, static_cast<U128>(max), value)) {
    case Scaled::kOk:
      return static_cast<int64_t>(value);
    case Scaled::kNotWhole:
      return expected(kCpuWhat, text, "finer than one millicore");
    case Scaled::kTooLarge:
      return too_large();
  }
  return expected(kCpuWhat, text);
}

std::string format_bytes_exact(int64_t bytes) {
  constexpr std::string_view kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::string suffix;
  for (std::string_view s : kBinary) {
    if (bytes == 0 || bytes % 1024 != 0) break;
    bytes /= 1024;
    suffix = s;
  }
  return std::to_string(bytes) + suffix;
}

std::string format_duration_exact(Duration d) {
  int64_t us = d.micros();
  if (us == 0) return "0s";
  for (const Suffix& u : kDurationUnits) {
    const auto m = static_cast<int64_t>(u.multiplier);
    if (us % m == 0) return std::to_string(us / m) + std::string(u.text);
  }
  return std::to_string(us) + "us";
}

std::string format_cpu_milli(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string format_bandwidth(double bytes_per_s) {
  constexpr std::pair<double, std::string_view> kUnits[] = {
      {1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}};
  for (const auto& [scale, unit] : kUnits)
    if (bytes_per_s >= scale) return format_number(bytes_per_s / scale) + std::string(unit);
  return format_number(bytes_per_s) + "B/s";
}

std::string describe_integer(int64_t min, int64_t max) {
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();
  std::string out = "an integer";
  if (min != kLowest && max != kInt64Max)
    out += " from " + std::to_string(min) + " to " + std::to_string(max);
  else if (min != kLowest)
    out += " >= " + std::to_string(min);
  else if (max != kInt64Max)
    out += " <= " + std::to_string(max);
  return out;
}

std::string describe_number(double min, double max) {
  constexpr double kLowest = std::numeric_limits<double>::lowest();
  constexpr double kHighest = std::numeric_limits<double>::max();
  std::string out = "a number";
  if (min > kLowest && max < kHighest)
    out += " from " + format_number(min) + " to " + format_number(max);
  else if (min > kLowest)
    out += " >= " + format_number(min);
  else if (max < kHighest)
    out += " <= " + format_number(max);
  return out;
}

Result<int64_t> parse_integer(std::string_view text, int64_t min, int64_t max) {
  const std::string what = describe_integer(min, max);
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-' && min < 0;
  if (negative) digits.remove_prefix(1);
  if (digits.empty()) return expected(what, text);
  for (char c : digits)
    if (!is_digit(c)) return expected(what, text);
  // Magnitudes up to 2^63 fit a uint64; more digits than 19 cannot be in range anyway.
  uint64_t magnitude = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  // Past int64: both bounds are named, whichever describe_integer() leaves out (an integer >= 0
  // said nothing of the 2^63 − 1 that 2^64 − 1 is past).
  if (r.ec != std::errc() || magnitude > static_cast<uint64_t>(kInt64Max) + (negative ? 1 : 0))
    return expected("an integer from " + std::to_string(min) + " to " + std::to_string(max), text,
                    "out of range");
  const int64_t value =
      negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  if (value < min || value > max) return expected(what, text);
  return value;
}

Result<double> parse_number(std::string_view text, double min, double max) {
  const std::string what = describe_number(min, max);
  // Validate the shape first: from_chars alone would accept "inf", "nan" and "1." forms.
  std::string_view body = text;
  if (!body.empty() && body.front() == '-' && min < 0) body.remove_prefix(1);
  size_t used = 0;
  while (used < body.size() && is_digit(body[used])) ++used;
  if (used == 0) return expected(what, text);
  if (used < body.size() && body[used] == '.') {
    const size_t point = ++used;
    while (used < body.size() && is_digit(body[used])) ++used;
    if (used == point) return expected(what, text);
  }
  std::string_view exponent = body.substr(used);
  if (!exponent.empty()) {
    if (exponent.front() != 'e' && exponent.front() != 'E') return expected(what, text);
    exponent.remove_prefix(1);
    if (!exponent.empty() && (exponent.front() == '+' || exponent.front() == '-'))
      exponent.remove_prefix(1);
    if (exponent.empty()) return expected(what, text);
    for (char c : exponent)
      if (!is_digit(c)) return expected(what, text);
  }
  double value = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(value))
    return expected(what, text, "out of range");
  if (!(value >= min && value <= max)) return expected(what, text);
  return value;
}

}  // namespace gantry
