#include "adapters/kube/serving/prometheus_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "engine/core/errors.hpp"

namespace gantry::kube {

const char* to_string(PromType type) {
  switch (type) {
    case PromType::kUntyped:
      return "untyped";
    case PromType::kCounter:
      return "counter";
    case PromType::kGauge:
      return "gauge";
    case PromType::kHistogram:
      return "histogram";
    case PromType::kSummary:
      return "summary";
  }
  return "untyped";
}

std::string PromSample::label(std::string_view key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return v;
  return {};
}

const PromFamily* PromExposition::family(std::string_view name) const {
  for (const PromFamily& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_label_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_label_char(char c) { return is_label_start(c) || (c >= '0' && c <= '9'); }

std::optional<PromType> type_of(std::string_view t) {
  if (t == "counter") return PromType::kCounter;
  if (t == "gauge") return PromType::kGauge;
  if (t == "histogram") return PromType::kHistogram;
  if (t == "summary") return PromType::kSummary;
  if (t == "untyped") return PromType::kUntyped;
  return std::nullopt;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<double> parse_value(std::string_view t) {
  if (t.empty()) return std::nullopt;
  for (char c : t) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '.' || c == '+' || c == '-';
    if (!ok) return std::nullopt;
  }
  std::string_view s = t;
  if (s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  }
  // from_chars reads hexadecimal only with chars_format::hex; "0x1p3" stops after the 0.
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_timestamp(std::string_view t) {
  std::string_view s = t;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  PromExposition run() {
    size_t start = 0;
    line_no_ = 0;
    while (start < text_.size()) {
      ++line_no_;
      const size_t nl = text_.find('\n', start);
      if (nl == std::string_view::npos) {
        line_ = text_.substr(start);
        fail(static_cast<int>(line_.size()) + 1, "", "the last line does not end with a line feed");
      }
      line_ = text_.substr(start, nl - start);
      parse_line();
      start = nl + 1;
    }
    return std::move(out_);
  }

 private:
  struct FamilyState {
    size_t index = 0;  // in out_.families
    bool help = false;
    bool type = false;
    int first_sample_line = 0;
    int first_line = 0;
  };

  [[noreturn]] void fail(int column, const std::string& field, const std::string& message) const {
    throw InputError(SourceLocation{source_, line_no_, column}, field, message);
  }
  int column() const { return static_cast<int>(pos_) + 1; }
  void skip_blanks() {
    while (pos_ < line_.size() && is_blank(line_[pos_])) ++pos_;
  }
  bool at_end() const { return pos_ >= line_.size(); }
  std::string_view token() {
    const size_t from = pos_;
    while (pos_ < line_.size() && !is_blank(line_[pos_])) ++pos_;
    return line_.substr(from, pos_ - from);
  }
  std::string metric_name(const char* what) {
    const size_t from = pos_;
    if (at_end() || !is_name_start(line_[pos_])) {
      if (!at_end() && line_[pos_] == '"')
        fail(column(), "", "quoted (UTF-8) metric names are not supported");
      fail(column(), "", std::string("expected ") + what);
    }
    while (pos_ < line_.size() && is_name_char(line_[pos_])) ++pos_;
    return std::string(line_.substr(from, pos_ - from));
  }

  void parse_line() {
    pos_ = 0;
    skip_blanks();
    if (at_end()) return;
    if (line_[pos_] == '#') {
      ++pos_;
      skip_blanks();
      const std::string_view keyword = token();
      if (keyword == "HELP") return help_line();
      if (keyword == "TYPE") return type_line();
      return;  // a comment
    }
    sample_line();
  }

  // Marks `name` as the metric whose lines are being read: all of them must be together.
  FamilyState& enter(const std::string& name, int at_column) {
    auto it = state_.find(name);
    if (it == state_.end()) {
      it = state_.emplace(name, FamilyState{}).first;
      it->second.index = out_.families.size();
      it->second.first_line = line_no_;
      out_.families.push_back(PromFamily{name, PromType::kUntyped, {}});
    } else if (current_ != name) {
      fail(at_column, name,
           "the lines of metric " + name + " are not one uninterrupted group (it began on line " +
               std::to_string(it->second.first_line) + ")");
    }
    current_ = name;
    return it->second;
  }

  void help_line() {
    if (!at_end() && !is_blank(line_[pos_])) fail(column(), "", "expected a blank after HELP");
    skip_blanks();
    const int name_column = column();
    const std::string name = metric_name("a metric name after HELP");
    std::string help;
    if (!at_end()) {
      if (!is_blank(line_[pos_])) fail(column(), name, "expected a blank after the metric name");
      ++pos_;
      // The docstring is the rest of the line (its trailing blanks were not part of the line's
      // content: the format ignores them).
      size_t end = line_.size();
      while (end > pos_ && is_blank(line_[end - 1])) --end;
      // Leading blanks before the docstring separate tokens.
      skip_blanks();
      for (; pos_ < end; ++pos_) {
        const char c = line_[pos_];
        if (c != '\\') {
          help.push_back(c);
          continue;
        }
        if (pos_ + 1 >= end) fail(column(), name, "a backslash at the end of the docstring");
        const char e = line_[++pos_];
        if (e == '\\')
          help.push_back('\\');
        else if (e == 'n')
          help.push_back('\n');
        else
          fail(column() - 1, name, std::string("invalid escape \\") + e + " in a docstring");
      }
    }
    FamilyState& f = enter(name, name_column);
    if (f.help) fail(name_column, name, "a second HELP line for " + name);
    if (f.first_sample_line > 0)
      fail(name_column, name,
           "HELP for " + name + " after its samples (from line " +
               std::to_string(f.first_sample_line) + ")");
    f.help = true;
    out_.families[f.index].help = std::move(help);
  }

  void type_line() {
    if (!at_end() && !is_blank(line_[pos_])) fail(column(), "", "expected a blank after TYPE");
    skip_blanks();
    const int name_column = column();
    const std::string name = metric_name("a metric name after TYPE");
    if (!at_end() && !is_blank(line_[pos_]))
      fail(column(), name, "expected a blank after the metric name");
    skip_blanks();
    const int type_column = column();
    const std::string_view t = token();
    if (t.empty()) fail(type_column, name, "expected a type after the metric name");
    const std::optional<PromType> type = type_of(t);
    if (!type)
      fail(type_column, name,
           "'" + std::string(t) + "': expected counter, gauge, histogram, summary or untyped");
    skip_blanks();
    if (!at_end()) fail(column(), name, "unexpected text after the type");
    FamilyState& f = enter(name, name_column);
    if (f.type) fail(name_column, name, "a second TYPE line for " + name);
    if (f.first_sample_line > 0)
      fail(name_column, name,
           "TYPE for " + name + " after its samples (from line " +
               std::to_string(f.first_sample_line) + ")");
    f.type = true;
    out_.families[f.index].type = *type;
  }

  // The metric a sample name belongs to (above), and its type.
  std::string family_of(const std::string& name) const {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (!ends_with(name, suffix)) continue;
      const std::string base = name.substr(0, name.size() - std::string_view(suffix).size());
      const auto it = state_.find(base);
      if (it == state_.end() || !it->second.type) continue;
      const PromType t = out_.families[it->second.index].type;
      if (t == PromType::kHistogram) return base;
      if (t == PromType::kSummary && std::string_view(suffix) != "_bucket") return base;
    }
    return name;
  }

  void sample_line() {
    const int name_column = column();
    if (line_[pos_] == '{') fail(name_column, "", "quoted (UTF-8) metric names are not supported");
    PromSample s;
    s.line = line_no_;
    s.name = metric_name("a metric name, HELP, TYPE or a comment");
    if (!at_end() && line_[pos_] == '{') labels(s);
    if (at_end()) fail(column(), s.name, "expected a value after the metric");
    if (!is_blank(line_[pos_])) fail(column(), s.name, "expected a blank before the value");
    skip_blanks();
    const int value_column = column();
    const std::string_view value = token();
    const std::optional<double> v = parse_value(value);
    if (!v)
      fail(value_column, s.name,
           "'" + std::string(value) + "': expected a number (or NaN, +Inf, -Inf)");
    s.value = *v;
    skip_blanks();
    if (!at_end()) {
      const int ts_column = column();
      const std::string_view ts = token();
      const std::optional<int64_t> t = parse_timestamp(ts);
      if (!t)
        fail(ts_column, s.name,
             "'" + std::string(ts) + "': expected a timestamp (integer milliseconds)");
      s.timestamp_ms = *t;
      skip_blanks();
      if (!at_end()) fail(column(), s.name, "unexpected text after the timestamp");
    }

    s.family = family_of(s.name);
    FamilyState& f = enter(s.family, name_column);
    const PromType type = out_.families[f.index].type;
    if (type == PromType::kHistogram) {
      if (s.name == s.family)
        fail(
            name_column, s.name,
            "histogram " + s.family + ": its samples are " + s.family + "_bucket, _sum and _count");
      if (ends_with(s.name, "_bucket") && s.label("le").empty())
        fail(name_column, s.name, "a histogram bucket without an le label");
    }
    if (type == PromType::kSummary && s.name == s.family && s.label("quantile").empty())
      fail(name_column, s.name, "a summary sample without a quantile label");
    if (type == PromType::kCounter && s.value < 0)
      fail(value_column, s.name, "a counter cannot be negative");
    // One sample per series: the name and its non-empty labels, sorted.
    std::vector<std::pair<std::string, std::string>> key_labels;
    for (const auto& l : s.labels)
      if (!l.second.empty()) key_labels.push_back(l);
    std::sort(key_labels.begin(), key_labels.end());
    std::string key = s.name;
    for (const auto& [k, val] : key_labels) key += "\x1f" + k + "\x1e" + val;
    if (!series_.insert(key).second) fail(name_column, s.name, "a second sample of this series");
    if (f.first_sample_line == 0) f.first_sample_line = line_no_;
    out_.samples.push_back(std::move(s));
  }

  void labels(PromSample& s) {
    ++pos_;  // '{'
    std::set<std::string> seen;
    for (;;) {
      skip_blanks();
      if (at_end()) fail(column(), s.name, "unterminated label set: expected '}'");
      if (line_[pos_] == '}') {
        ++pos_;
        return;
      }
      const int label_column = column();
      if (line_[pos_] == '"') fail(label_column, s.name, "quoted label names are not supported");
      if (!is_label_start(line_[pos_])) fail(label_column, s.name, "expected a label name");
      const size_t from = pos_;
      while (pos_ < line_.size() && is_label_char(line_[pos_])) ++pos_;
      std::string name(line_.substr(from, pos_ - from));
      skip_blanks();
      if (at_end() || line_[pos_] != '=')
        fail(column(), s.name, "expected '=' after label " + name);
      ++pos_;
      skip_blanks();
      if (at_end() || line_[pos_] != '"')
        fail(column(), s.name, "expected '\"' to open the value of label " + name);
      ++pos_;
      std::string value;
      for (;;) {
        if (at_end()) fail(column(), s.name, "unterminated value of label " + name);
        const char c = line_[pos_++];
        if (c == '"') break;
        if (c != '\\') {
          value.push_back(c);
          continue;
        }
        if (at_end()) fail(column(), s.name, "unterminated value of label " + name);
        const char e = line_[pos_++];
        if (e == '\\')
          value.push_back('\\');
        else if (e == '"')
          value.push_back('"');
        else if (e == 'n')
          value.push_back('\n');
        else
          fail(column() - 2, s.name,
               std::string("invalid escape \\") + e + " in the value of label " + name);
      }
      if (!seen.insert(name).second) fail(label_column, s.name, "label " + name + " twice");
      s.labels.emplace_back(std::move(name), std::move(value));
      skip_blanks();
      if (at_end()) fail(column(), s.name, "unterminated label set: expected '}'");
      if (line_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (line_[pos_] != '}') fail(column(), s.name, "expected ',' or '}' after a label");
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::string_view line_;
  size_t pos_ = 0;
  int line_no_ = 0;
  PromExposition out_;
  std::map<std::string, FamilyState> state_;
  std::string current_;
  std::set<std::string> series_;
};

}  // namespace

PromExposition parse_prometheus_text(std::string_view text, const std::string& source) {
  return Parser(text, source).run();
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

std::string format_prom_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

}  // namespace gantry::kube
