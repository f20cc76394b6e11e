#include "engine/config/units.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gantry {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kKi = 1024;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t bytes(std::string_view text) {
  const Result<int64_t> r = parse_bytes(text);
  EXPECT_TRUE(r.is_ok()) << text << ": " << (r ? "" : r.error());
  return r ? r.value() : -1;
}

std::string bytes_error(std::string_view text) {
  const Result<int64_t> r = parse_bytes(text);
  EXPECT_FALSE(r.is_ok()) << text << " parsed as " << (r ? r.value() : 0);
  return r ? "" : r.error();
}

TEST(ParseBytes, BinarySuffixes) {
  EXPECT_EQ(bytes("80Gi"), 80 * kKi * kKi * kKi);
  EXPECT_EQ(bytes("512Mi"), 512 * kKi * kKi);
  EXPECT_EQ(bytes("1Ti"), kKi * kKi * kKi * kKi);
  EXPECT_EQ(bytes("2Pi"), 2 * kKi * kKi * kKi * kKi * kKi);
  EXPECT_EQ(bytes("4Ki"), 4 * kKi);
  EXPECT_EQ(bytes("64GiB"), 64 * kKi * kKi * kKi);
  EXPECT_EQ(bytes("1.5Ki"), 1536);
}

TEST(ParseBytes, DecimalSuffixesAndPlain) {
  EXPECT_EQ(bytes("80GB"), 80'000'000'000);
  EXPECT_EQ(bytes("1.5G"), 1'500'000'000);
  EXPECT_EQ(bytes("1.3GB"), 1'300'000'000);
  EXPECT_EQ(bytes("100MB"), 100'000'000);
  EXPECT_EQ(bytes("3k"), 3000);
  EXPECT_EQ(bytes("3K"), 3000);
  EXPECT_EQ(bytes("2T"), 2'000'000'000'000);
  EXPECT_EQ(bytes("1P"), 1'000'000'000'000'000);
  EXPECT_EQ(bytes("1024"), 1024);
  EXPECT_EQ(bytes("1024B"), 1024);
  EXPECT_EQ(bytes("0"), 0);
}

TEST(ParseBytes, ExactWithLongFractions) {
  // Scaled exactly, not through a double.
  EXPECT_EQ(bytes("1.000000000000000000000Pi"), kKi * kKi * kKi * kKi * kKi);
  EXPECT_EQ(bytes("0.000000001G"), 1);
  EXPECT_EQ(bytes("9223372036854775807"), kMax);
}

TEST(ParseBytes, Rejects) {
  EXPECT_THAT(bytes_error("eight"), HasSubstr("expected a size in bytes such as 80Gi"));
  EXPECT_THAT(bytes_error("eight"), HasSubstr("got 'eight'"));
  EXPECT_THAT(bytes_error(""), HasSubstr("got ''"));
  EXPECT_THAT(bytes_error("-1Gi"), HasSubstr("got '-1Gi'"));
  EXPECT_THAT(bytes_error("1x"), HasSubstr("unknown suffix"));
  EXPECT_THAT(bytes_error("1Gi "), HasSubstr("unknown suffix"));
  EXPECT_THAT(bytes_error(" 1Gi"), HasSubstr("expected a size"));
  EXPECT_THAT(bytes_error("1gi"), HasSubstr("unknown suffix"));
  EXPECT_THAT(bytes_error("1.5"), HasSubstr("not a whole number of bytes"));
  EXPECT_THAT(bytes_error("0.3Ki"), HasSubstr("not a whole number of bytes"));
  EXPECT_EQ(bytes_error("9223372036854775808"),
            "expected a size in bytes from 0 to 9223372036854775807, got '9223372036854775808' "
            "(value out of range)");
  // 8192 Pi = 2^63 bytes, one more than int64 holds; 2^63 - 1 has no binary suffix.
  EXPECT_THAT(bytes_error("8192Pi"), HasSubstr("(value out of range)"));
  EXPECT_THAT(bytes_error("99999999999999999999999999999999Gi"), HasSubstr("expected a size"));
  EXPECT_THAT(bytes_error("1."), HasSubstr("expected a size"));
  EXPECT_THAT(bytes_error(".5G"), HasSubstr("expected a size"));
  EXPECT_THAT(bytes_error("1e9"), HasSubstr("write the number without an exponent"));
  EXPECT_THAT(bytes_error("nan"), HasSubstr("expected a size"));
  EXPECT_THAT(bytes_error("0x10"), HasSubstr("unknown suffix"));
}

double bandwidth(std::string_view text) {
  const Result<double> r = parse_bandwidth(text);
  EXPECT_TRUE(r.is_ok()) << text << ": " << (r ? "" : r.error());
  return r ? r.value() : -1;
}

std::string bandwidth_error(std::string_view text) {
  const Result<double> r = parse_bandwidth(text);
  EXPECT_FALSE(r.is_ok()) << text << " parsed as " << (r ? r.value() : 0);
  return r ? "" : r.error();
}

TEST(ParseBandwidth, BitsAndBytes) {
  EXPECT_DOUBLE_EQ(bandwidth("400Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(bandwidth("800Gbps"), 100e9);
  EXPECT_DOUBLE_EQ(bandwidth("25Gbit/s"), 25e9 / 8);
  EXPECT_DOUBLE_EQ(bandwidth("100Mbps"), 12.5e6);
  EXPECT_DOUBLE_EQ(bandwidth("25GB/s"), 25e9);
  EXPECT_DOUBLE_EQ(bandwidth("25GBps"), 25e9);
  EXPECT_DOUBLE_EQ(bandwidth("300GiB/s"), 300.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(bandwidth("1.5TB/s"), 1.5e12);
  EXPECT_DOUBLE_EQ(bandwidth("8bps"), 1);
  EXPECT_DOUBLE_EQ(bandwidth("0Gbps"), 0);
}

TEST(ParseBandwidth, Rejects) {
  EXPECT_THAT(bandwidth_error("400"), HasSubstr("expected a bandwidth such as 400Gbps or 25GB/s"));
  EXPECT_THAT(bandwidth_error("400"), HasSubstr("unit is required"));
  EXPECT_THAT(bandwidth_error("400G"), HasSubstr("unit is required"));
  EXPECT_THAT(bandwidth_error("fast"), HasSubstr("got 'fast'"));
  EXPECT_THAT(bandwidth_error("-1Gbps"), HasSubstr("expected a bandwidth"));
  EXPECT_THAT(bandwidth_error("1Xbps"), HasSubstr("unknown prefix"));
  EXPECT_THAT(bandwidth_error("1 Gbps"), HasSubstr("unknown prefix"));
  EXPECT_THAT(bandwidth_error("Gbps"), HasSubstr("expected a bandwidth"));
  EXPECT_THAT(bandwidth_error(""), HasSubstr("expected a bandwidth"));
}

Duration duration(std::string_view text) {
  const Result<Duration> r = parse_duration(text);
  EXPECT_TRUE(r.is_ok()) << text << ": " << (r ? "" : r.error());
  return r ? r.value() : Duration(-1);
}

std::string duration_error(std::string_view text) {
  const Result<Duration> r = parse_duration(text);
  EXPECT_FALSE(r.is_ok()) << text << " parsed as " << (r ? r.value().micros() : 0) << "us";
  return r ? "" : r.error();
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(duration("90s"), seconds(90));
  EXPECT_EQ(duration("2h"), hours(2));
  EXPECT_EQ(duration("1h30m"), seconds(5400));
  EXPECT_EQ(duration("500ms"), milliseconds(500));
  EXPECT_EQ(duration("250us"), microseconds(250));
  EXPECT_EQ(duration("1.5h"), minutes(90));
  EXPECT_EQ(duration("7d"), days(7));
  EXPECT_EQ(duration("0s"), Duration(0));
  EXPECT_EQ(duration("1d2h3m4s5ms6us"),
            days(1) + hours(2) + minutes(3) + seconds(4) + milliseconds(5) + microseconds(6));
  EXPECT_EQ(duration("0.1s"), milliseconds(100));
  EXPECT_EQ(duration("1.5ms"), microseconds(1500));
}

TEST(ParseDuration, Rejects) {
  EXPECT_THAT(duration_error("90"), HasSubstr("the unit is required"));
  EXPECT_THAT(duration_error("90"), HasSubstr("expected a duration such as 90s"));
  EXPECT_THAT(duration_error("-1s"), HasSubstr("got '-1s'"));
  EXPECT_THAT(duration_error("1x"), HasSubstr("unknown unit 'x'"));
  EXPECT_THAT(duration_error(""), HasSubstr("expected a duration"));
  EXPECT_THAT(duration_error("1h1h"), HasSubstr("largest to smallest"));
  EXPECT_THAT(duration_error("30m1h"), HasSubstr("largest to smallest"));
  EXPECT_THAT(duration_error("1.5us"), HasSubstr("finer than a microsecond"));
  EXPECT_THAT(duration_error("1s "), HasSubstr("unknown unit"));
  EXPECT_THAT(duration_error("1ns"), HasSubstr("unknown unit 'ns'"));
  // int64 microseconds end at 106,751,991 days 4 hours: 9,223,372,036,854,775,807 us.
  EXPECT_THAT(duration_error("110000000d"), HasSubstr("(value out of range)"));
  EXPECT_THAT(duration_error("106751991d5h"), HasSubstr("(value out of range)"));
  EXPECT_THAT(duration_error("h"), HasSubstr("expected a duration"));
  EXPECT_THAT(duration_error("1h30"), HasSubstr("the unit is required"));
  EXPECT_THAT(duration_error("1.s"), HasSubstr("expected a duration"));
}

TEST(ParseCpu, CoresAndMillicores) {
  EXPECT_EQ(parse_cpu_milli("2").value(), 2000);
  EXPECT_EQ(parse_cpu_milli("500m").value(), 500);
  EXPECT_EQ(parse_cpu_milli("0.5").value(), 500);
  EXPECT_EQ(parse_cpu_milli("128").value(), 128'000);
  EXPECT_EQ(parse_cpu_milli("0.001").value(), 1);
  EXPECT_EQ(parse_cpu_milli("0").value(), 0);
}

TEST(ParseCpu, Rejects) {
  EXPECT_THAT(parse_cpu_milli("0.0005").error(), HasSubstr("finer than one millicore"));
  EXPECT_THAT(parse_cpu_milli("1.5m").error(), HasSubstr("finer than one millicore"));
  EXPECT_THAT(parse_cpu_milli("-1").error(), HasSubstr("expected a CPU amount"));
  EXPECT_THAT(parse_cpu_milli("2 cores").error(), HasSubstr("the only suffix is m"));
  EXPECT_THAT(parse_cpu_milli("2k").error(), HasSubstr("the only suffix is m"));
  EXPECT_THAT(parse_cpu_milli("").error(), HasSubstr("expected a CPU amount"));
  EXPECT_THAT(parse_cpu_milli("99999999999999999").error(), HasSubstr("(value out of range)"));
}

TEST(ParseInteger, RangesAndSigns) {
  EXPECT_EQ(parse_integer("8", 1, 64).value(), 8);
  EXPECT_EQ(parse_integer("-5", -10, 10).value(), -5);
  EXPECT_EQ(parse_integer("9223372036854775807", 0, kMax).value(), kMax);
  EXPECT_EQ(parse_integer("-9223372036854775808", std::numeric_limits<int64_t>::min(), 0).value(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parse_integer("eight", 1, 64).error(), "expected an integer from 1 to 64, got 'eight'");
  EXPECT_EQ(parse_integer("65", 1, 64).error(), "expected an integer from 1 to 64, got '65'");
  EXPECT_EQ(parse_integer("-1", 0, kMax).error(), "expected an integer >= 0, got '-1'");
  // Issue 22: past int64 the message names both bounds (it said "an integer >= 0").
  EXPECT_EQ(parse_integer("9223372036854775808", 0, kMax).error(),
            "expected an integer from 0 to 9223372036854775807, got '9223372036854775808' (out "
            "of range)");
  EXPECT_EQ(parse_integer("-99999999999999999999", -5, 5).error(),
            "expected an integer from -5 to 5, got '-99999999999999999999' (out of range)");
  EXPECT_THAT(parse_integer("1.0", 0, 10).error(), HasSubstr("expected an integer"));
  EXPECT_THAT(parse_integer("+1", 0, 10).error(), HasSubstr("expected an integer"));
  EXPECT_THAT(parse_integer("", 0, 10).error(), HasSubstr("expected an integer"));
  EXPECT_THAT(parse_integer("-", -10, 10).error(), HasSubstr("expected an integer"));
  EXPECT_THAT(parse_integer("1_000", 0, 10000).error(), HasSubstr("expected an integer"));
}

TEST(ParseNumber, ShapesAndRanges) {
  EXPECT_DOUBLE_EQ(parse_number("0.5", 0, 1).value(), 0.5);
  EXPECT_DOUBLE_EQ(parse_number("2", 1, 1000).value(), 2);
  EXPECT_DOUBLE_EQ(parse_number("1e-3", 0, 1).value(), 0.001);
  EXPECT_DOUBLE_EQ(parse_number("-2.5", -10, 10).value(), -2.5);
  EXPECT_EQ(parse_number("1.5", 0, 1).error(), "expected a number from 0 to 1, got '1.5'");
  EXPECT_THAT(parse_number("nan", 0, 1).error(), HasSubstr("got 'nan'"));
  EXPECT_THAT(parse_number("inf", 0, 1e300).error(), HasSubstr("got 'inf'"));
  EXPECT_THAT(parse_number("1e999", 0, 1e300).error(), HasSubstr("out of range"));
  EXPECT_THAT(parse_number("-1", 0, 1).error(), HasSubstr("expected a number"));
  EXPECT_THAT(parse_number("1.", 0, 10).error(), HasSubstr("expected a number"));
  EXPECT_THAT(parse_number("1e", 0, 10).error(), HasSubstr("expected a number"));
  EXPECT_THAT(parse_number("0x1p3", 0, 10).error(), HasSubstr("expected a number"));
  EXPECT_THAT(parse_number("2 ", 0, 10).error(), HasSubstr("expected a number"));
}

// Issue 8: a value past the caller's limit names the limit, whether it was written out or
// with an exponent ("1e30GB" used to be an "unknown suffix").
TEST(ParseUnits, OutOfRangeNamesTheRange) {
  constexpr int64_t k64Ti = 64 * kKi * kKi * kKi * kKi;
  EXPECT_EQ(parse_bytes("1e30GB", k64Ti).error(),
            "expected a size in bytes from 0 to 64Ti, got '1e30GB' (value out of range)");
  EXPECT_EQ(parse_bytes("65Ti", k64Ti).error(),
            "expected a size in bytes from 0 to 64Ti, got '65Ti' (value out of range)");
  EXPECT_EQ(parse_bytes("64Ti", k64Ti).value(), k64Ti);
  // 1e3GB = 1e12 bytes is in range; the exponent alone is the problem.
  EXPECT_EQ(parse_bytes("1e3GB", k64Ti).error(),
            "expected a size in bytes such as 80Gi, 512Mi or 1.5GB, got '1e3GB' (write the "
            "number without an exponent)");
  // 100 years = 36,500 days.
  EXPECT_EQ(parse_duration("1000000d", days(36500)).error(),
            "expected a duration from 0s to 36500d, got '1000000d' (value out of range)");
  EXPECT_EQ(parse_duration("36500d", days(36500)).value(), days(36500));
  // 1e10 s = 115,741 days; 1e9 s = 11,574 days is in range but written with an exponent.
  EXPECT_EQ(parse_duration("1e10s", days(36500)).error(),
            "expected a duration from 0s to 36500d, got '1e10s' (value out of range)");
  EXPECT_THAT(parse_duration("1e9s", days(36500)).error(), HasSubstr("without an exponent"));
  EXPECT_EQ(parse_cpu_milli("2000000", 1'000'000'000).error(),
            "expected a CPU amount from 0 to 1000000, got '2000000' (value out of range)");
  EXPECT_EQ(parse_bandwidth("1e30GB/s", 1e18).error(),
            "expected a bandwidth from 0 to 1000PB/s, got '1e30GB/s' (value out of range)");
  EXPECT_EQ(format_bytes_exact(1ll << 50), "1Pi");
  EXPECT_EQ(format_duration_exact(seconds(90)), "90s");
  EXPECT_EQ(format_duration_exact(days(36500)), "36500d");
}

TEST(ParseUnits, MessagesEscapeControlCharacters) {
  EXPECT_EQ(parse_duration("1\n").error(),
            "expected a duration such as 90s, 1h30m or 500ms, got '1\\n' (unknown unit '\\n'; use "
            "d, h, m, s, ms or us)");
}

}  // namespace
}  // namespace gantry
