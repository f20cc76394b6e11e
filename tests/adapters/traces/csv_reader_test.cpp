#include "adapters/traces/csv_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/adapters/traces/error_text.hpp"

namespace gantry {
namespace {

using trace_test::input_error_of;

// All records of `text` (header "a,b,c"), fields joined by '|'.
std::vector<std::string> records(const std::string& text) {
  CsvReader csv(text, "t.csv");
  csv.read_header();
  std::vector<std::string> out;
  while (csv.next()) {
    std::string r;
    for (size_t i = 0; i < csv.columns().size(); ++i)
      r += (i ? "|" : "") + std::string(csv.text(static_cast<int>(i)));
    out.push_back(r);
  }
  return out;
}

std::string error_reading(const std::string& text) {
  return input_error_of([&] { records(text); });
}

TEST(CsvReader, PlainQuotedAndEscapedFields) {
  EXPECT_THAT(records("a,b,c\n1,2,3\nx,,z\n"), ::testing::ElementsAre("1|2|3", "x||z"));
  // Quotes protect commas, line ends and doubled quotes; "" is an empty field.
  EXPECT_THAT(records("a,b,c\n\"1,5\",\"say \"\"hi\"\"\",\"two\nlines\"\n\"\",q,r\n"),
              ::testing::ElementsAre("1,5|say \"hi\"|two\nlines", "|q|r"));
}

TEST(CsvReader, CrlfMissingFinalLineEndAndTrailingEmptyLines) {
  EXPECT_THAT(records("a,b,c\r\n1,2,3\r\n4,5,6"), ::testing::ElementsAre("1|2|3", "4|5|6"));
  EXPECT_THAT(records("a,b,c\n1,2,3\n\n\r\n\n"), ::testing::ElementsAre("1|2|3"));
  // A quoted last field followed by CRLF.
  EXPECT_THAT(records("a,b,c\r\n1,2,\"3\"\r\n"), ::testing::ElementsAre("1|2|3"));
  // A lone CR is data, not a line end.
  EXPECT_THAT(records("a,b,c\n1,2\r,3\n"), ::testing::ElementsAre("1|2\r|3"));
}

TEST(CsvReader, PositionsAreOneBasedByteColumnsWhereFieldsStart) {
  CsvReader csv("a,b,c\n10,\"x\",300\n\"m\nn\",7,8\n", "t.csv");
  csv.read_header();
  ASSERT_TRUE(csv.next());
  // "10," is bytes 1-3, the quote of "x" is byte 4, "x", is 5-7, so 300 starts at byte 8.
  EXPECT_EQ(csv.line(0), 2);
  EXPECT_EQ(csv.column(0), 1);
  EXPECT_EQ(csv.column(1), 4);
  EXPECT_EQ(csv.column(2), 8);
  ASSERT_TRUE(csv.next());
  // The quoted field spans lines 3-4; 7 starts on line 4 after `n",` (3 bytes).
  EXPECT_EQ(csv.record_line(), 3);
  EXPECT_EQ(csv.line(1), 4);
  EXPECT_EQ(csv.column(1), 4);
  EXPECT_FALSE(csv.next());
}

// Issue 22: a file saved with a UTF-8 byte order mark gave `\ufeffarrived_at: unknown column`.
// The mark is skipped: the first column is "a", and an error on the header's second name is at
// byte 3 of the line as the user sees it ("a," is bytes 1-2), not 6.
TEST(CsvReader, AByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_THAT(records(bom + "a,b,c\n1,2,3\n"), ::testing::ElementsAre("1|2|3"));
  const std::string header = bom + "a,b,c\n", unknown = bom + "a,x,c\n";  // the reader keeps views
  CsvReader csv(header, "t.csv");
  csv.read_header();
  EXPECT_EQ(csv.columns(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(input_error_of([&] {
              CsvReader known(unknown, "t.csv");
              known.read_header({"a", "b", "c"});
            }),
            "t.csv:1:3: x: unknown column; expected columns: a, b, c");
  // Only at the very start: elsewhere the bytes are data.
  EXPECT_THAT(records("a,b,c\n" + bom + "1,2,3\n"), ::testing::ElementsAre(bom + "1|2|3"));
}

TEST(CsvReader, SyntaxErrorsNamePositionAndColumn) {
  // The opening quote of the unterminated field is line 3, byte 3.
  EXPECT_EQ(error_reading("a,b,c\n1,2,3\n4,\"5,6\n"), "t.csv:3:3: b: unterminated quoted field");
  EXPECT_EQ(error_reading("a,b,c\n1,\"2\"x,3\n"),
            "t.csv:2:6: b: expected a comma or a line end after the closing quote, got 'x'");
  EXPECT_THAT(error_reading("a,b,c\n1,2\"2,3\n"),
              ::testing::StartsWith("t.csv:2:4: b: double quote inside an unquoted field"));
  EXPECT_EQ(error_reading("a,b,c\n1,2,3\n\n4,5,6\n"), "t.csv:3:1: empty line between records");
}

TEST(CsvReader, FieldCountMismatch) {
  // Too few: the missing field would start just past "1,2" (byte 4 of line 2).
  EXPECT_EQ(error_reading("a,b,c\n1,2\n"),
            "t.csv:2:4: c: missing field; the row has 2 fields, the header 3");
  // Too many: the fourth field starts at byte 7.
  EXPECT_EQ(error_reading("a,b,c\n1,2,3,4\n"),
            "t.csv:2:7: column 4: unexpected field; the row has 4 fields, the header 3");
}

TEST(CsvReader, HeaderErrors) {
  EXPECT_EQ(input_error_of([] { CsvReader("", "t.csv").read_header(); }),
            "t.csv:1: empty file; expected a header row");
  EXPECT_EQ(input_error_of([] { CsvReader("a,b,a\n", "t.csv").read_header(); }),
            "t.csv:1:5: a: column appears twice in the header");
  EXPECT_EQ(input_error_of([] { CsvReader("a,,c\n", "t.csv").read_header(); }),
            "t.csv:1:3: column 2: empty column name in the header");
  EXPECT_EQ(input_error_of([] {
              CsvReader("a,x\n", "t.csv").read_header({"a", "b"});
            }),
            "t.csv:1:3: x: unknown column; expected columns: a, b");
  EXPECT_EQ(input_error_of([] {
              CsvReader csv("a,c\n", "t.csv");
              csv.read_header();
              csv.require_column("b");
            }),
            "t.csv:1: b: missing column; the header is 'a,c'");
}

TEST(CsvReader, Integers) {
  CsvReader csv("a,b,c,d,e,f,g\n12x,-5,1500,99999999999999999999, 1,+1,\n", "t.csv");
  csv.read_header();
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(input_error_of([&] { csv.integer(0, 0, 100); }),
            "t.csv:2:1: a: expected a non-negative integer, got '12x'");
  EXPECT_EQ(input_error_of([&] { csv.integer(1, 0, 100); }),
            "t.csv:2:5: b: expected an integer from 0 to 100, got '-5'");
  EXPECT_EQ(csv.integer(1, -10, 10), -5);
  EXPECT_EQ(input_error_of([&] { csv.integer(2, 0, 1000); }),
            "t.csv:2:8: c: expected an integer from 0 to 1000, got '1500'");
  EXPECT_EQ(input_error_of([&] { csv.integer(3, 0, 1000); }),
            "t.csv:2:13: d: expected an integer from 0 to 1000, got '99999999999999999999'");
  EXPECT_EQ(input_error_of([&] { csv.integer(4, 0, 1000); }),
            "t.csv:2:34: e: expected a non-negative integer, got ' 1'");
  EXPECT_EQ(input_error_of([&] { csv.integer(5, -5, 5); }),
            "t.csv:2:37: f: expected an integer, got '+1'");
  EXPECT_EQ(input_error_of([&] { csv.integer(6, 0, 5); }),
            "t.csv:2:40: g: expected a non-negative integer, got ''");
}

TEST(CsvReader, QuoteEscapesAndShortens) {
  EXPECT_EQ(CsvReader::quote(std::string("a\x01\xff", 3)), "'a\\x01\\xff'");
  EXPECT_EQ(CsvReader::quote(std::string(45, 'z')), "'" + std::string(40, 'z') + "...'");
}

TEST(CsvReader, UseColumnsForFilesWithoutHeader) {
  CsvReader csv("m1,T4\nm2,P100\n", "t.csv");
  csv.use_columns({"machine", "gpu_type"});
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.text(0), "m1");
  EXPECT_EQ(csv.line(0), 1);
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.text(1), "P100");
  EXPECT_FALSE(csv.next());
}

// Issue 8: trace files are bounded too, checked from the size before reading. The file is
// sparse (resize_file), so the test writes no data.
TEST(ReadTraceFile, RefusesFilesPastTheLimit) {
  const std::filesystem::path p =
      std::filesystem::path(::testing::TempDir()) / "gantry_big_trace.csv";
  { std::ofstream(p) << "a,b\n"; }
  std::filesystem::resize_file(p, kMaxTraceFileBytes + 1);
  try {
    read_trace_file(p.string());
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              p.string() + ": the trace file is 268435457 bytes; trace files are at most 256 MiB");
  }
  std::filesystem::remove(p);
}

}  // namespace
}  // namespace gantry
