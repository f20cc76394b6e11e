#include "workflow/cron/cron_expression.hpp"

#include <date/date.h>

#include <array>
#include <bit>
#include <cctype>

#include "engine/core/floor_div.hpp"

namespace gantry {

namespace {

struct FieldSpec {
  CronField field;
  int low;
  int high;
  const char* const* names;  // 3-letter names for values low.., or nullptr
  const char* step_period;   // what a step restarts with, for messages
};

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr std::array<FieldSpec, 5> kFields = {{
    {CronField::kMinute, 0, 59, nullptr, "hour"},
    {CronField::kHour, 0, 23, nullptr, "day"},
    {CronField::kDayOfMonth, 1, 31, nullptr, "month"},
    {CronField::kMonth, 1, 12, kMonthNames, "year"},
    {CronField::kDayOfWeek, 0, 7, kDayNames, "week"},
}};

struct Macro {
  const char* name;
  const char* expansion;
};
constexpr Macro kMacros[] = {
    {"yearly", "0 0 1 1 *"}, {"annually", "0 0 1 1 *"}, {"monthly", "0 0 1 * *"},
    {"weekly", "0 0 * * 0"}, {"daily", "0 0 * * *"},    {"midnight", "0 0 * * *"},
    {"hourly", "0 * * * *"},
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string range_text(const FieldSpec& f) {
  std::string out = std::to_string(f.low) + "-" + std::to_string(f.high);
  if (f.field == CronField::kMonth) out += " or JAN-DEC";
  if (f.field == CronField::kDayOfWeek) out += " or SUN-SAT";
  return out;
}

// Parses one field's text into a bit set. `column` is the 1-based column of text[0].
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, std::string_view text, int column, CronSyntaxError& error)
      : spec_(spec), text_(text), column_(column), error_(error) {}

  bool parse(uint64_t& bits) {
    size_t pos = 0;
    for (;;) {
      const size_t end = std::min(text_.find(',', pos), text_.size());
      if (end == pos) return fail(pos, "empty list element");
      if (!element(pos, end, bits)) return false;
      if (end == text_.size()) return true;
      pos = end + 1;
      if (pos == text_.size()) return fail(end, "empty list element after \",\"");
    }
  }

 private:
  bool fail(size_t pos, std::string message) {
    error_.field = std::string(cron_field_name(spec_.field));
    error_.column = column_ + static_cast<int>(pos);
    error_.message = std::move(message);
    return false;
  }

  // A value (number or name) starting at `pos`, ending before any of "-/" or `end`.
  bool value(size_t& pos, size_t end, int& out) {
    size_t stop = pos;
    while (stop < end && text_[stop] != '-' && text_[stop] != '/') ++stop;
    const std::string_view token = text_.substr(pos, stop - pos);
    if (token.empty()) {
      return fail(pos, "missing value; expected " + range_text(spec_));
    }
    if (std::isdigit(static_cast<unsigned char>(token[0]))) {
      long long v = 0;
      for (size_t i = 0; i < token.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(token[i]))) {
          return fail(
              pos, "invalid value \"" + std::string(token) + "\"; expected " + range_text(spec_));
        }
        if (v < 1'000'000'000) v = v * 10 + (token[i] - '0');
      }
      if (v < spec_.low || v > spec_.high) {
        return fail(pos, "value " + std::string(token) + " out of range " +
                             std::to_string(spec_.low) + "-" + std::to_string(spec_.high));
      }
      out = static_cast<int>(v);
    } else if (spec_.names != nullptr) {
      const int count = spec_.field == CronField::kMonth ? 12 : 7;
      int found = -1;
      for (int i = 0; i < count; ++i) {
        if (iequals(token, spec_.names[i])) found = i;
      }
      if (found < 0) {
        return fail(pos,
                    "unknown name \"" + std::string(token) + "\"; expected " + range_text(spec_));
      }
      out = spec_.low + found;
    } else {
      return fail(pos, "invalid value \"" + std::string(token) + "\"; expected a number " +
                           std::to_string(spec_.low) + "-" + std::to_string(spec_.high));
    }
    pos = stop;
    return true;
  }

  bool step(size_t& pos, size_t end, int& out) {
    const size_t start = pos;
    long long v = 0;
    while (pos < end && std::isdigit(static_cast<unsigned char>(text_[pos]))) {
      if (v < 1'000'000'000) v = v * 10 + (text_[pos] - '0');
      ++pos;
    }
    if (pos == start || pos != end) {
      return fail(start, "invalid step \"" + std::string(text_.substr(start, end - start)) +
                             "\"; expected a number after \"/\"");
    }
    if (v == 0) return fail(start, "step 0 must be at least 1");
    if (v > spec_.high) {
      return fail(start, "step " + std::string(text_.substr(start, end - start)) + " larger than " +
                             std::to_string(spec_.high) + " (steps restart every " +
                             spec_.step_period + ")");
    }
    out = static_cast<int>(v);
    return true;
  }

  bool element(size_t pos, size_t end, uint64_t& bits) {
    int first = spec_.low;
    int last = spec_.high;
    int every = 1;
    if (text_[pos] == '*') {
      ++pos;
      if (pos < end && text_[pos] != '/') {
        return fail(pos, "unexpected \"" + std::string(1, text_[pos]) +
                             "\" after \"*\"; expected \",\" or \"/step\"");
      }
    } else {
      const size_t value_pos = pos;
      if (!value(pos, end, first)) return false;
      last = first;
      if (pos < end && text_[pos] == '/') {
        return fail(value_pos, "a step needs a range or \"*\" before it: write " +
                                   std::string(text_.substr(value_pos, pos - value_pos)) + "-" +
                                   std::to_string(spec_.high) +
                                   std::string(text_.substr(pos, end - pos)));
      }
      if (pos < end && text_[pos] == '-') {
        ++pos;
        if (!value(pos, end, last)) return false;
        if (last < first) {
          return fail(value_pos, "range " + std::string(text_.substr(value_pos, pos - value_pos)) +
                                     " goes backwards (cron ranges do not wrap)");
        }
        if (pos < end && text_[pos] == '-') {
          return fail(pos, "unexpected \"-\" after range; expected \",\" or \"/step\"");
        }
      }
    }
    if (pos < end) {  // text_[pos] == '/'
      ++pos;
      if (!step(pos, end, every)) return false;
    }
    for (int v = first; v <= last; v += every) bits |= uint64_t{1} << v;
    return true;
  }

  const FieldSpec& spec_;
  std::string_view text_;
  int column_;
  CronSyntaxError& error_;
};

// Next set bit at or above `from`, or -1.
int next_bit(uint64_t bits, int from) {
  if (from >= 64) return -1;
  const uint64_t rest = bits >> from;
  if (rest == 0) return -1;
  return from + std::countr_zero(rest);
}

}  // namespace

std::string_view cron_field_name(CronField field) {
  switch (field) {
    case CronField::kMinute:
      return "minute";
    case CronField::kHour:
      return "hour";
    case CronField::kDayOfMonth:
      return "day-of-month";
    case CronField::kMonth:
      return "month";
    case CronField::kDayOfWeek:
      return "day-of-week";
  }
  return "expression";
}

std::string CronSyntaxError::describe(std::string_view expression) const {
  return field + ": " + message + " (at column " + std::to_string(column) + " of \"" +
         std::string(expression) + "\")";
}

std::optional<CronExpression> CronExpression::parse(std::string_view text, CronSyntaxError& error) {
  auto fail = [&](size_t pos, std::string message) -> std::optional<CronExpression> {
    error.field = "expression";
    error.column = static_cast<int>(pos) + 1;
    error.message = std::move(message);
    return std::nullopt;
  };

  // Split into blank-separated words, remembering where each starts.
  struct Word {
    size_t pos;
    std::string_view text;
  };
  std::array<Word, 5> words{};
  size_t count = 0;
  size_t extra_pos = 0;  // where the sixth word starts, if any
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (is_blank(c)) {
      ++i;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return fail(i, "control character in expression; fields are separated by spaces or tabs");
    }
    size_t end = i;
    while (end < text.size() && !is_blank(text[end])) ++end;
    if (count < words.size()) words[count] = {i, text.substr(i, end - i)};
    if (count == words.size()) extra_pos = i;
    ++count;
    i = end;
  }
  if (count == 0) {
    return fail(0,
                "empty expression; expected 5 fields (minute hour day-of-month month "
                "day-of-week) or a macro such as @daily");
  }

  CronExpression expr;
  expr.text_ = std::string(text);
  std::array<std::string_view, 5> fields{};
  std::array<size_t, 5> columns{};  // 1-based column of each field's first character

  if (words[0].text[0] == '@') {
    const std::string_view name = words[0].text.substr(1);
    if (iequals(name, "reboot")) {
      return fail(words[0].pos,
                  "@reboot is not supported: a pipeline schedule needs points in time and "
                  "Gantry has no boot event; trigger the pipeline manually instead");
    }
    const Macro* macro = nullptr;
    for (const Macro& m : kMacros) {
      if (iequals(name, m.name)) macro = &m;
    }
    if (macro == nullptr) {
      return fail(words[0].pos, "unknown macro \"" + std::string(words[0].text) +
                                    "\"; expected @yearly, @annually, @monthly, @weekly, "
                                    "@daily, @midnight or @hourly");
    }
    if (count > 1) {
      return fail(words[1].pos, "unexpected \"" + std::string(words[1].text) + "\" after " +
                                    std::string(words[0].text));
    }
    // Expand; errors cannot happen in a macro, so columns only need to be plausible.
    std::string_view expansion = macro->expansion;
    for (size_t f = 0, i = 0; f < 5; ++f) {
      const size_t end = std::min(expansion.find(' ', i), expansion.size());
      fields[f] = expansion.substr(i, end - i);
      columns[f] = words[0].pos + 1;
      i = end + 1;
    }
  } else {
    if (count > 5) {
      return fail(extra_pos,
                  "expected 5 fields (minute hour day-of-month month day-of-week), "
                  "found " +
                      std::to_string(count) + "; there is no seconds or command field");
    }
    if (count < 5) {
      return fail(text.size(),
                  "expected 5 fields (minute hour day-of-month month day-of-week), "
                  "found " +
                      std::to_string(count));
    }
    for (size_t f = 0; f < 5; ++f) {
      fields[f] = words[f].text;
      columns[f] = words[f].pos + 1;
    }
  }

  std::array<uint64_t, 5> bits{};
  for (size_t f = 0; f < 5; ++f) {
    FieldParser parser(kFields[f], fields[f], static_cast<int>(columns[f]), error);
    if (!parser.parse(bits[f])) return std::nullopt;
  }
  expr.minutes_ = bits[0];
  expr.hours_ = static_cast<uint32_t>(bits[1]);
  expr.days_ = static_cast<uint32_t>(bits[2]);
  expr.months_ = static_cast<uint16_t>(bits[3]);
  // Vixie: "make sundays equivalent" -- 7 is another name for 0.
  expr.weekdays_ = static_cast<uint8_t>((bits[4] | (bits[4] >> 7)) & 0x7f);
  expr.dom_star_ = fields[2][0] == '*';
  expr.dow_star_ = fields[4][0] == '*';
  auto wild = [](std::string_view f) {
    return f.find('*') != std::string_view::npos || f.find('/') != std::string_view::npos;
  };
  expr.fixed_time_ = !wild(fields[0]) && !wild(fields[1]);
  return expr;
}

bool CronExpression::day(int day_of_month, int weekday) const {
  const bool dom = (days_ >> day_of_month) & 1;
  const bool dow = (weekdays_ >> weekday) & 1;
  // Vixie's find_jobs(): AND when either field is star-flagged, OR when both are restricted.
  return (dom_star_ || dow_star_) ? (dom && dow) : (dom || dow);
}

std::optional<int64_t> CronExpression::next_local_minute(int64_t from, int64_t last) const {
  if (from > last) return std::nullopt;
  int64_t day_number = floor_div(from, 1440);
  int minute_of_day = static_cast<int>(from - day_number * 1440);
  int h = minute_of_day / 60;
  int mi = minute_of_day % 60;
  const int64_t last_day = floor_div(last, 1440);

  while (day_number <= last_day) {
    const date::year_month_day ymd{date::sys_days{date::days{day_number}}};
    const int m = static_cast<int>(static_cast<unsigned>(ymd.month()));
    if (!month(m)) {
      // Jump to the 1st of the next allowed month (this year or the next).
      const int nm = next_bit(months_, m + 1);
      date::year_month_day next =
          nm > 0 ? date::year_month_day{ymd.year(), date::month(static_cast<unsigned>(nm)),
                                        date::day(1)}
                 : date::year_month_day{ymd.year() + date::years(1),
                                        date::month(static_cast<unsigned>(next_bit(months_, 1))),
                                        date::day(1)};
      day_number = date::sys_days(next).time_since_epoch().count();
      h = mi = 0;
      continue;
    }
    const int weekday = static_cast<int>(((day_number % 7) + 7 + 4) % 7);  // 1970-01-01: Thu
    if (day(static_cast<int>(static_cast<unsigned>(ymd.day())), weekday)) {
      for (;;) {
        const int nh = next_bit(hours_, h);
        if (nh < 0) break;
        const int nmin = next_bit(minutes_, nh == h ? mi : 0);
        if (nmin >= 0) {
          const int64_t found = day_number * 1440 + nh * 60 + nmin;
          if (found > last) return std::nullopt;
          return found;
        }
        h = nh + 1;
        mi = 0;
      }
    }
    ++day_number;
    h = mi = 0;
  }
  return std::nullopt;
}

}  // namespace gantry
