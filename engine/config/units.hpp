#pragma once
// The unit strings users write in Gantry files ("80Gi", "400Gbps", "1h30m", "500m").
//
// DESIGN.md, "What users write": units are explicit strings. Each function parses the text of
// one scalar and returns either the value or a message saying what was expected and what was
// found; engine/config/reader.hpp adds the file, line, column and field path.
//
// Rules shared by every function here:
//  - no sign: quantities are never negative ("-1s" is an error);
//  - numbers are decimal: digits with an optional fractional part ("1.5", "0.25", not ".5",
//    "1e3", "0x10", "inf" or "nan");
//  - no spaces, no trailing junk ("1x", "90s " are errors);
//  - results that do not fit are errors, never saturated or wrapped: each function takes the
//    largest value its caller allows, and a value past it is "expected a size in bytes from 0
//    to 64Ti, got '1e30GB' (value out of range)" -- also when it was written with an exponent,
//    which is otherwise refused ("write the number without an exponent");
//  - integer results must be exact: "0.3Ki" (307.2 bytes) is an error, not rounded.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "engine/core/status.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// Bytes. A number with an optional suffix:
//   binary   Ki Mi Gi Ti Pi   (powers of 1024; "KiB", "GiB" ... also accepted)
//   decimal  k K M G T P      (powers of 1000; "kB", "GB" ... also accepted)
//   none or B                 plain bytes ("1024", "1024B").
// "80Gi" = 80 * 2^30, "1.5G" = 1'500'000'000, "80GB" = 80'000'000'000.
Result<int64_t> parse_bytes(std::string_view text,
                            int64_t max = std::numeric_limits<int64_t>::max());

// Bandwidth in bytes per second. A number, an optional prefix (k K M G T decimal; Ki Mi Gi Ti
// binary) and a unit that is required:
//   bits per second   bps, bit/s      "400Gbps" = 400e9 bit/s = 50e9 B/s, "25Gbit/s"
//   bytes per second  B/s, Bps        "25GB/s" = 25e9 B/s, "300GiB/s" = 300 * 2^30 B/s
// Zero is accepted here; callers that divide by a bandwidth check for it. At most `max`
// (default 1 EB/s, far above any link).
inline constexpr double kMaxBandwidth = 1e18;
Result<double> parse_bandwidth(std::string_view text, double max = kMaxBandwidth);

// A duration: one or more <number><unit> parts, units largest first and each at most once.
// Units: d (24 h), h, m, s, ms, us. "90s", "1h30m", "1.5h", "500ms", "250us", "7d", "0s".
// A bare number ("90") is an error: the unit must be explicit. The result must be a whole
// number of microseconds (Gantry's time resolution), at most `max`.
Result<Duration> parse_duration(std::string_view text, Duration max = Duration::max());

// CPU in millicores, Kubernetes style: "2" = 2000, "0.5" = 500, "500m" = 500. Finer than one
// millicore is an error. At most `max` millicores.
Result<int64_t> parse_cpu_milli(std::string_view text,
                                int64_t max = std::numeric_limits<int64_t>::max());

// Exact short forms of limits, for messages: 70368744177664 -> "64Ti", 100 years -> "36500d",
// 1000000000 millicores -> "1000000", 1e15 B/s -> "1PB/s".
std::string format_bytes_exact(int64_t bytes);
std::string format_duration_exact(Duration d);
std::string format_cpu_milli(int64_t milli);
std::string format_bandwidth(double bytes_per_s);

// A plain decimal integer in [min, max]. A leading '-' is accepted only when min < 0.
Result<int64_t> parse_integer(std::string_view text, int64_t min, int64_t max);

// A plain decimal number in [min, max]: digits, optional fraction, optional exponent
// ("0.5", "2", "1e-3"). A leading '-' is accepted only when min < 0. NaN and infinities are
// errors.
Result<double> parse_number(std::string_view text, double min, double max);

// The "what was expected" phrase of parse_integer / parse_number for a range, e.g. "an integer
// from 1 to 64", "an integer >= 0", "a number > 0"... for messages about non-scalar values.
std::string describe_integer(int64_t min, int64_t max);
std::string describe_number(double min, double max);

}  // namespace gantry
