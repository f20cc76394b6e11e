#include "workflow/cron/time_zone.hpp"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "engine/core/floor_div.hpp"

namespace gantry {

namespace {

// Where Debian's tzdata installs the TZif files; the date library (USE_OS_TZDB) reads the same
// directory, so both views agree on the zone list.
constexpr const char* kZoneInfoDir = "/usr/share/zoneinfo";

// The date library represents "forever" as year +-32767; anything past these is open-ended.
constexpr int64_t kDateLibraryLimit = 900'000'000'000;  // ~ year 30,500

int64_t days_from_civil(int y, unsigned m, unsigned d) {
  return date::sys_days(date::year(y) / date::month(m) / date::day(d)).time_since_epoch().count();
}

}  // namespace

// The POSIX TZ string at the end of a TZif v2+ file, e.g. "EST5EDT,M3.2.0,M11.1.0" or
// "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0". Only footers with daylight saving are kept.
struct TimeZone::Footer {
  struct Rule {
    char kind = 'M';  // 'J' (1-365, Feb 29 never counted), 'N' (0-365), 'M' (month.week.day)
    int a = 0, b = 0, c = 0;
    int32_t time = 2 * 3600;  // local time of day of the transition; may be <0 or >24h
  };
  int32_t std_offset = 0;  // seconds east
  int32_t dst_offset = 0;
  Rule start, end;
  int64_t from = 0;  // the footer applies from here on (the last explicit transition)

  // Day number (days since 1970-01-01) on which `r` falls in year `y`.
  static int64_t day_of(const Rule& r, int y) {
    const bool leap = date::year(y).is_leap();
    const int64_t jan1 = days_from_civil(y, 1, 1);
    if (r.kind == 'J') return jan1 + r.a - 1 + ((leap && r.a >= 60) ? 1 : 0);
    if (r.kind == 'N') return jan1 + r.a;
    const int64_t first = days_from_civil(y, static_cast<unsigned>(r.a), 1);
    const int first_weekday = static_cast<int>(((first % 7) + 7 + 4) % 7);
    int64_t day = first + ((r.c - first_weekday + 7) % 7) + int64_t{7} * (r.b - 1);
    const date::year_month_day_last last{
        date::year(y), date::month_day_last(date::month(static_cast<unsigned>(r.a)))};
    const int64_t last_day = date::sys_days(last).time_since_epoch().count();
    while (day > last_day) day -= 7;  // week 5 = the last such weekday
    return day;
  }

  TimeZone::Segment segment_at(int64_t s) const {
    const int y = static_cast<int>(
        date::year_month_day{date::sys_days{date::days{floor_div(s + std_offset, 86400)}}}.year());
    struct Change {
      int64_t at;
      int32_t offset;
    };
    std::array<Change, 6> changes{};
    for (int k = 0; k < 3; ++k) {
      const int yy = y - 1 + k;
      changes[2 * k] = {day_of(end, yy) * 86400 + end.time - dst_offset, std_offset};
      changes[2 * k + 1] = {day_of(start, yy) * 86400 + start.time - std_offset, dst_offset};
    }
    std::stable_sort(changes.begin(), changes.end(),
                     [](const Change& l, const Change& r) { return l.at < r.at; });
    TimeZone::Segment seg{from, TimeZone::kMaxSeconds, std_offset};
    for (const Change& c : changes) {
      if (c.at <= s) {
        seg.begin = std::max(from, c.at);
        seg.offset = c.offset;
      } else {
        seg.end = c.at;
        break;
      }
    }
    return seg;
  }
};

namespace {

class FooterParser {
 public:
  explicit FooterParser(std::string_view s) : s_(s) {}

  // Returns nullopt for footers without daylight saving or that do not parse.
  std::optional<TimeZone::Footer> parse() {
    TimeZone::Footer f;
    if (!name() || !offset(f.std_offset, 24)) return std::nullopt;
    f.std_offset = -f.std_offset;  // POSIX counts west
    if (i_ == s_.size() || !name()) return std::nullopt;
    f.dst_offset = f.std_offset + 3600;
    if (i_ < s_.size() && s_[i_] != ',') {
      if (!offset(f.dst_offset, 24)) return std::nullopt;
      f.dst_offset = -f.dst_offset;
    }
    if (!eat(',') || !rule(f.start) || !eat(',') || !rule(f.end) || i_ != s_.size()) {
      return std::nullopt;
    }
    return f;
  }

 private:
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool name() {
    if (eat('<')) {
      const size_t close = s_.find('>', i_);
      if (close == std::string_view::npos) return false;
      i_ = close + 1;
      return true;
    }
    const size_t start = i_;
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ - start >= 3;
  }
  bool number(int& out, int max) {
    const size_t start = i_;
    out = 0;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])) && out <= max) {
      out = out * 10 + (s_[i_++] - '0');
    }
    return i_ > start && out <= max;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  bool offset(int32_t& out, int max_hours) {
    int sign = 1;
    if (eat('-'))
      sign = -1;
    else
      eat('+');
    int h = 0, m = 0, sec = 0;
    if (!number(h, max_hours)) return false;
    if (eat(':') && (!number(m, 59) || (eat(':') && !number(sec, 59)))) return false;
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool rule(TimeZone::Footer::Rule& r) {
    if (eat('M')) {
      r.kind = 'M';
      if (!number(r.a, 12) || r.a < 1 || !eat('.') || !number(r.b, 5) || r.b < 1 || !eat('.') ||
          !number(r.c, 6))
        return false;
    } else if (eat('J')) {
      r.kind = 'J';
      if (!number(r.a, 365) || r.a < 1) return false;
    } else {
      r.kind = 'N';
      if (!number(r.a, 365)) return false;
    }
    if (eat('/')) return offset(r.time, 167);  // RFC 8536 allows -167..167 hours
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// Reads the zone's TZif file once per process and keeps its footer, if it has daylight saving.
std::shared_ptr<const TimeZone::Footer> load_footer(const date::time_zone* zone) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TimeZone::Footer>, std::less<>> cache;
  const std::string name(zone->name());
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
  }
  std::shared_ptr<const TimeZone::Footer> result;
  std::ifstream in(std::string(kZoneInfoDir) + "/" + name, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // TZif version 2 and later end with "\n<POSIX TZ string>\n".
  if (data.size() > 6 && data.compare(0, 4, "TZif") == 0 && data[4] >= '2' && data.back() == '\n') {
    const size_t open = data.rfind('\n', data.size() - 2);
    if (open != std::string::npos) {
      const std::string_view tz(data.data() + open + 1, data.size() - open - 2);
      if (std::optional<TimeZone::Footer> f = FooterParser(tz).parse()) {
        // The footer takes over from the start of the library's last, open-ended segment.
        const date::sys_info last =
            zone->get_info(date::sys_seconds{std::chrono::seconds{kDateLibraryLimit - 1}});
        f->from = last.begin.time_since_epoch().count();
        result = std::make_shared<const TimeZone::Footer>(*f);
      }
    }
  }
  std::lock_guard lock(mutex);
  cache.emplace(name, result);
  return result;
}
}  // namespace

Result<TimeZone> TimeZone::locate(std::string_view name) {
  TimeZone tz;
  if (name.empty() || name == "UTC") return tz;
  try {
    const date::tzdb& db = date::get_tzdb();
    const date::time_zone* zone = nullptr;
    for (const date::time_zone& z : db.zones) {
      if (z.name() == name) zone = &z;
    }
    if (zone == nullptr) {
      std::string message = "unknown time zone \"" + std::string(name) + "\"";
      for (const date::time_zone& z : db.zones) {
        const std::string_view candidate = z.name();
        if (candidate.size() == name.size() &&
            std::equal(candidate.begin(), candidate.end(), name.begin(), [](char a, char b) {
              return std::tolower(static_cast<unsigned char>(a)) ==
                     std::tolower(static_cast<unsigned char>(b));
            })) {
          message += "; did you mean \"" + std::string(candidate) + "\"?";
          return Status::error(message);
        }
      }
      return Status::error(message + "; expected an IANA name such as \"Europe/Paris\"");
    }
    tz.name_ = std::string(name);
    tz.zone_ = zone;
    tz.footer_ = load_footer(zone);
  } catch (const std::exception& e) {
    return Status::error("time zone database not readable (" + std::string(e.what()) +
                         "); install tzdata");
  }
  return tz;
}

TimeZone::Segment TimeZone::segment_at(int64_t s) const {
  if (zone_ == nullptr) return {kMinSeconds, kMaxSeconds, 0};
  if (footer_ && s >= footer_->from) return footer_->segment_at(s);
  const int64_t q = std::clamp(s, -kDateLibraryLimit + 1, kDateLibraryLimit - 1);
  const date::sys_info info = zone_->get_info(date::sys_seconds{std::chrono::seconds{q}});
  Segment seg{info.begin.time_since_epoch().count(), info.end.time_since_epoch().count(),
              static_cast<int32_t>(info.offset.count())};
  if (seg.begin <= -kDateLibraryLimit) seg.begin = kMinSeconds;
  if (seg.end >= kDateLibraryLimit) seg.end = kMaxSeconds;
  if (footer_ && seg.end > footer_->from) seg.end = footer_->from;
  return seg;
}

TimeZone::Local TimeZone::resolve(int64_t local) const {
  if (zone_ == nullptr) return {Local::kUnique, local, local};
  // Offsets stay within +-26 h, so every instant showing `local` lies within 27 h of it.
  constexpr int64_t kReach = 27 * 3600;
  Segment seg = segment_at(local - kReach);
  std::optional<int64_t> found;
  for (;;) {
    const int64_t candidate = local - seg.offset;
    if (seg.begin <= candidate && candidate < seg.end) {
      if (found) return {Local::kAmbiguous, *found, candidate};
      found = candidate;
    } else if (!found && seg.begin + seg.offset > local) {
      // The wall clock jumped over `local` when this segment began.
      return {Local::kNonexistent, seg.begin, seg.begin};
    }
    if (seg.end >= kMaxSeconds || seg.end > local + kReach) break;
    seg = segment_at(seg.end);
  }
  return {Local::kUnique, found.value_or(local), found.value_or(local)};
}

}  // namespace gantry
