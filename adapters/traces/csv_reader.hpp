#pragma once
// A small CSV reader for trace files, with error positions a user can act on.
//
// Accepted syntax (RFC 4180, plus what real trace files do):
//   - a UTF-8 byte order mark at the start is skipped (columns count from after it);
//   - records end with LF or CRLF; the last record may lack a line end;
//   - fields are separated by commas; a field may be wrapped in double quotes, inside which
//     commas, line ends and doubled quotes ("" for one ") are literal;
//   - empty lines at the end of the text are ignored.
// Rejected, with an InputError naming file, line and column:
//   - an unterminated quoted field (position: its opening quote);
//   - a character other than a comma or a line end right after a closing quote;
//   - a double quote inside an unquoted field;
//   - an empty line followed by more records (an editing slip, not an empty record);
//   - a record with fewer or more fields than the header.
// A lone CR (not followed by LF) is an ordinary byte of the field it sits in.
//
// Positions: lines and columns are 1-based; the column is the byte offset, within its line,
// where a field starts (its opening quote, if quoted). Messages quote field text with
// non-printable bytes escaped as \xHH and long values shortened.
//
// Not thread-safe; one reader per text. The reader keeps a view of the text: the caller keeps
// the text alive while reading.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry {

class CsvReader {
 public:
  // `file_name` is used only in messages. Nothing is parsed until read_header() or
  // use_columns().
  CsvReader(std::string_view text, std::string file_name);

  // Reads the first record as the header. Throws InputError if the text is empty, a column
  // name is empty or repeated, or a name is not in `known` (when `known` is not empty).
  void read_header(const std::vector<std::string_view>& known = {});
  // For files without a header row: the columns are `names`, in order, and the first record is
  // data.
  void use_columns(std::vector<std::string> names);

  // Index of the column `name`, or -1 if the header lacks it.
  int find_column(std::string_view name) const;
  // Index of the column `name`; throws InputError "file:1: name: missing column ..." if absent.
  int require_column(std::string_view name) const;
  const std::vector<std::string>& columns() const { return columns_; }

  // Advances to the next record; false at the end of the text. Throws InputError on malformed
  // syntax or a wrong number of fields.
  bool next();

  // The current record. `col` is a column index from find_column/require_column.
  std::string_view text(int col) const { return fields_[static_cast<size_t>(col)].text; }
  int line(int col) const { return fields_[static_cast<size_t>(col)].line; }
  int column(int col) const { return fields_[static_cast<size_t>(col)].column; }
  // Line where the current record starts.
  int record_line() const { return record_line_; }

  // The field as an integer in [min, max]; throws InputError at the field otherwise. Accepts
  // an optional '-' and decimal digits, nothing else (no spaces, no '+', no fraction).
  int64_t integer(int col, int64_t min, int64_t max) const;

  // Throws InputError "file:line:col: <column name>: message" for field `col`.
  [[noreturn]] void fail(int col, const std::string& message) const;

  const std::string& file_name() const { return file_; }

  // `value` for a message: in single quotes, non-printable bytes as \xHH, at most 40 bytes
  // (then "...").
  static std::string quote(std::string_view value);

 private:
  struct Field {
    std::string text;
    int line = 0;
    int column = 0;
  };
  // Parses one record into fields_ (resizing it); false if the text is exhausted. Does not
  // check the field count.
  bool parse_record();
  [[noreturn]] void fail_at(int line, int column, const std::string& field,
                            const std::string& message) const;
  // The column's name, or "column N" (1-based) past the header's columns.
  std::string field_label(size_t index) const;

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0;         // next byte to read
  int line_ = 1;           // line of text_[pos_]
  size_t line_start_ = 0;  // offset of the first byte of line_
  std::vector<std::string> columns_;
  std::vector<Field> fields_;
  size_t field_count_ = 0;  // fields in the current record (fields_ may be larger: reused)
  int record_line_ = 0;
  int record_end_line_ = 0;    // line and column just past the last byte of the current
  int record_end_column_ = 0;  // record (where a missing field would have started)
};

// The largest trace file read: 256 MiB, checked before reading (issue 8: input is bounded).
// The largest shipped trace is 0.7 MB; whole public traces (openb, PAI) are under 100 MB.
inline constexpr std::uintmax_t kMaxTraceFileBytes = 256u << 20;

// The whole file as a string; throws FileError naming the path if it cannot be read,
// InputError naming it if it is larger than kMaxTraceFileBytes.
std::string read_trace_file(const std::string& path);

}  // namespace gantry
