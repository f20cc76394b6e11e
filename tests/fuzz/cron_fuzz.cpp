// libFuzzer target for cron expressions (workflow/cron). The first byte picks a time zone and a
// starting instant; the rest is the expression. Parsing must either succeed or fill a
// CronSyntaxError naming a field and a column inside (or just past) the text. A parsed
// schedule must answer next_after() (terminating: searches are bounded) with an instant
// strictly after the start, and next_after / previous_at_or_before must agree. Violations
// trap; sanitizers report memory errors and UB.
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   CXX=clang++ cmake -S . -B build-fuzz-cron -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF \
//     -DGANTRY_BUILD_TESTS=OFF
//   cmake --build build-fuzz-cron --target cron_fuzz
//   build-fuzz-cron/tests/fuzz/cron_fuzz -max_total_time=60 -dict=tests/fuzz/cron.dict \
//     tests/fuzz/corpus/cron

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "workflow/cron/cron.hpp"

namespace {

using gantry::CronExpression;
using gantry::CronSchedule;
using gantry::CronSyntaxError;
using gantry::Time;
using gantry::TimeZone;

const std::array<TimeZone, 6>& zones() {
  static const std::array<TimeZone, 6> z = {
      TimeZone(),
      TimeZone::locate("America/New_York").value(),
      TimeZone::locate("Australia/Lord_Howe").value(),
      TimeZone::locate("Europe/London").value(),
      TimeZone::locate("Pacific/Apia").value(),       // skipped a whole day in 2011
      TimeZone::locate("America/Sao_Paulo").value(),  // past transitions at midnight
  };
  return z;
}

// Around transitions and far ends: 2026-03-08T06:00Z, 2026-11-01T05:00Z, 2011-12-29T10:00Z,
// 2040-03-11T06:00Z, 1970-01-01, 9999-12-01, 0001-01-01.
constexpr std::array<int64_t, 7> kStartSeconds = {1772949600, 1793509200,   1325152800,  2214972000,
                                                  0,          253399622400, -62135596800};

bool known_field(const std::string& f) {
  return f == "minute" || f == "hour" || f == "day-of-month" || f == "month" ||
         f == "day-of-week" || f == "expression";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const TimeZone& zone = zones()[data[0] % zones().size()];
  const Time start =
      Time::from_micros(kStartSeconds[(data[0] / 8) % kStartSeconds.size()] * 1'000'000);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  CronSyntaxError error;
  const std::optional<CronExpression> expr = CronExpression::parse(text, error);
  if (!expr) {
    if (!known_field(error.field) || error.message.empty() || error.column < 1 ||
        static_cast<size_t>(error.column) > text.size() + 1)
      __builtin_trap();
    return 0;
  }
  const CronSchedule schedule(*expr, zone);
  std::optional<Time> t = schedule.next_after(start);
  for (int i = 0; i < 3 && t; ++i) {
    if (*t <= start) __builtin_trap();
    if (schedule.previous_at_or_before(*t) != t) __builtin_trap();
    if (schedule.next_after(*t - gantry::microseconds(1)) != t) __builtin_trap();
    const std::optional<Time> n = schedule.next_after(*t);
    if (n && *n <= *t) __builtin_trap();
    t = n;
  }
  return 0;
}
