#include "adapters/traces/csv_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "engine/core/errors.hpp"

namespace gantry {

namespace {
bool is_line_end(std::string_view text, size_t pos) {
  return pos < text.size() && (text[pos] == '\n' || (text[pos] == '\r' && pos + 1 < text.size() &&
                                                     text[pos + 1] == '\n'));
}

bool only_line_ends_from(std::string_view text, size_t pos) {
  return text.find_first_not_of("\r\n", pos) == std::string_view::npos;
}
}  // namespace

CsvReader::CsvReader(std::string_view text, std::string file_name)
    : text_(text), file_(std::move(file_name)) {
  // A UTF-8 byte order mark (spreadsheets save CSV with one) is not part of the first column's
  // name; columns count from the byte after it, where the user sees the line start.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text_.substr(0, kBom.size()) == kBom) pos_ = line_start_ = kBom.size();
}

std::string CsvReader::quote(std::string_view value) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  const size_t shown = value.size() > kMaxShown ? kMaxShown : value.size();
  for (size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (shown < value.size()) out += "...";
  return out + "'";
}

void CsvReader::fail_at(int line, int column, const std::string& field,
                        const std::string& message) const {
  throw InputError(SourceLocation{file_, line, column}, field, message);
}

void CsvReader::fail(int col, const std::string& message) const {
  const Field& f = fields_[static_cast<size_t>(col)];
  fail_at(f.line, f.column, columns_[static_cast<size_t>(col)], message);
}

std::string CsvReader::field_label(size_t index) const {
  if (index < columns_.size()) return columns_[index];
  return "column " + std::to_string(index + 1);
}

bool CsvReader::parse_record() {
  const size_t n = text_.size();
  if (pos_ >= n) return false;
  if (is_line_end(text_, pos_)) {
    // An empty line: fine as trailing padding, an error between records (RFC 4180 would read
    // it as a record of one empty field, which no trace means).
    if (only_line_ends_from(text_, pos_)) {
      pos_ = n;
      return false;
    }
    fail_at(line_, 1, "", "empty line between records");
  }

  field_count_ = 0;
  record_line_ = line_;
  while (true) {
    if (field_count_ == fields_.size()) fields_.emplace_back();
    Field& f = fields_[field_count_++];
    f.text.clear();
    f.line = line_;
    f.column = static_cast<int>(pos_ - line_start_) + 1;

    if (pos_ < n && text_[pos_] == '"') {
      ++pos_;
      while (true) {
        if (pos_ >= n)
          fail_at(f.line, f.column, field_label(field_count_ - 1), "unterminated quoted field");
        const char c = text_[pos_];
        if (c == '"') {
          if (pos_ + 1 < n && text_[pos_ + 1] == '"') {
            f.text += '"';
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        f.text += c;
        ++pos_;
        if (c == '\n') {
          ++line_;
          line_start_ = pos_;
        }
      }
      if (pos_ < n && text_[pos_] != ',' && !is_line_end(text_, pos_))
        fail_at(line_, static_cast<int>(pos_ - line_start_) + 1, field_label(field_count_ - 1),
                "expected a comma or a line end after the closing quote, got " +
                    quote(text_.substr(pos_, 1)));
    } else {
      size_t end = text_.find_first_of(",\n\"", pos_);
      if (end == std::string_view::npos) end = n;
      if (end < n && text_[end] == '"')
        fail_at(line_, static_cast<int>(end - line_start_) + 1, field_label(field_count_ - 1),
                "double quote inside an unquoted field; quote the whole field and double the "
                "quotes inside");
      size_t text_end = end;
      if (end < n && text_[end] == '\n' && end > pos_ && text_[end - 1] == '\r') --text_end;
      f.text.assign(text_.substr(pos_, text_end - pos_));
      pos_ = text_end;
    }

    if (pos_ < n && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    record_end_line_ = line_;
    record_end_column_ = static_cast<int>(pos_ - line_start_) + 1;
    if (pos_ < n) {  // a line end
      pos_ += text_[pos_] == '\r' ? 2 : 1;
      ++line_;
      line_start_ = pos_;
    }
    return true;
  }
}

void CsvReader::read_header(const std::vector<std::string_view>& known) {
  if (!parse_record()) fail_at(1, 0, "", "empty file; expected a header row");
  columns_.clear();
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < field_count_; ++i) {
    const Field& f = fields_[i];
    if (f.text.empty())
      fail_at(f.line, f.column, field_label(i), "empty column name in the header");
    if (!seen.insert(f.text).second)
      fail_at(f.line, f.column, f.text, "column appears twice in the header");
    if (!known.empty()) {
      bool found = false;
      std::string expected;
      for (std::string_view k : known) {
        found = found || k == f.text;
        if (!expected.empty()) expected += ", ";
        expected += k;
      }
      if (!found)
        fail_at(f.line, f.column, f.text, "unknown column; expected columns: " + expected);
    }
    columns_.push_back(f.text);
  }
}

void CsvReader::use_columns(std::vector<std::string> names) { columns_ = std::move(names); }

int CsvReader::find_column(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return static_cast<int>(i);
  return -1;
}

int CsvReader::require_column(std::string_view name) const {
  const int index = find_column(name);
  if (index < 0) {
    std::string header;
    for (const auto& c : columns_) header += (header.empty() ? "" : ",") + c;
    fail_at(1, 0, std::string(name), "missing column; the header is " + quote(header));
  }
  return index;
}

bool CsvReader::next() {
  if (!parse_record()) return false;
  const size_t expected = columns_.size();
  if (field_count_ < expected)
    fail_at(record_end_line_, record_end_column_, columns_[field_count_],
            "missing field; the row has " + std::to_string(field_count_) + " fields, the header " +
                std::to_string(expected));
  if (field_count_ > expected) {
    const Field& extra = fields_[expected];
    fail_at(extra.line, extra.column, field_label(expected),
            "unexpected field; the row has " + std::to_string(field_count_) +
                " fields, the header " + std::to_string(expected));
  }
  return true;
}

int64_t CsvReader::integer(int col, int64_t min, int64_t max) const {
  const std::string& s = fields_[static_cast<size_t>(col)].text;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  const bool parsed = !s.empty() && ec != std::errc::invalid_argument && end == s.data() + s.size();
  if (!parsed)
    fail(col, std::string(min >= 0 ? "expected a non-negative integer" : "expected an integer") +
                  ", got " + quote(s));
  if (ec == std::errc::result_out_of_range || value < min || value > max)
    fail(col, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                  ", got " + quote(s));
  return value;
}

std::string read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open " + path + ": " + std::strerror(errno));
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxTraceFileBytes)
    throw InputError(
        SourceLocation{path, 0, 0}, "",
        "the trace file is " + std::to_string(size) + " bytes; trace files are at most 256 MiB");
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) throw FileError("cannot read " + path);
  return std::move(out).str();
}

}  // namespace gantry
