#pragma once
// An IANA time zone as cron needs it: the UTC offset in force at any instant, as a sequence of
// segments of constant offset, and the reverse mapping from a wall-clock time to instants.
//
// Data comes from the system zoneinfo files (/usr/share/zoneinfo, Debian's tzdata) through
// Howard Hinnant's date library built with USE_OS_TZDB. That library reads only the explicit
// transitions of a TZif file, which Debian's files list up to 2037; later rules live in the
// file's POSIX TZ footer (RFC 8536 section 3.3), which this class reads and applies itself, so
// "America/New_York" still changes to EDT in March 2040.
//
// Instants here are sys seconds (seconds since the Unix epoch, UTC); local times are local
// seconds (wall-clock seconds since 1970-01-01T00:00, no zone). Offsets are seconds east of UTC.
// Copying is cheap (a pointer into the process-wide database and a shared footer).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/status.hpp"

namespace date {
class time_zone;
}

namespace gantry {

class TimeZone {
 public:
  // A span [begin, end) of instants with one UTC offset. The first and last segments are
  // open-ended (begin = kMinSeconds / end = kMaxSeconds).
  struct Segment {
    int64_t begin;
    int64_t end;
    int32_t offset;
  };
  static constexpr int64_t kMinSeconds = -(int64_t{1} << 50);
  static constexpr int64_t kMaxSeconds = int64_t{1} << 50;

  // UTC: no lookup, works without tzdata.
  TimeZone() = default;

  // "UTC" (and "" for the default) or an IANA name as spelled in the database (case matters:
  // "Europe/Paris"). An unknown name gives `unknown time zone "europe/paris"`, with a
  // suggestion when the name differs from a known one only in case. Thread-safe.
  static Result<TimeZone> locate(std::string_view name);

  const std::string& name() const { return name_; }
  bool is_utc() const { return zone_ == nullptr; }

  // The segment containing instant `s`.
  Segment segment_at(int64_t s) const;

  // How a wall-clock time maps to instants.
  struct Local {
    enum Kind { kUnique, kAmbiguous, kNonexistent } kind;
    // kUnique: the instant. kAmbiguous (fall-back overlap): the earlier of the two instants.
    // kNonexistent (spring-forward gap): the first instant after the gap, i.e. the transition.
    int64_t first;
    // kAmbiguous: the later instant; otherwise equal to `first`.
    int64_t second;
  };
  Local resolve(int64_t local_seconds) const;

  // The POSIX TZ footer's rules; defined and used only in time_zone.cpp.
  struct Footer;

 private:
  std::string name_ = "UTC";
  const date::time_zone* zone_ = nullptr;
  std::shared_ptr<const Footer> footer_;  // rules after the last explicit transition, if any
};

}  // namespace gantry
