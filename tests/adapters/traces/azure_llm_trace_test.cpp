// The Azure LLM inference trace 2023 as Vidur processed it (adapters/traces/azure_llm_trace.hpp).
// Figures for the shipped file come from its README (scenarios/data/README.md, azure-llm/) and
// its first and last rows.

#include "adapters/traces/azure_llm_trace.hpp"

#include <gtest/gtest.h>

#include <string>

#include "adapters/traces/trace_ref_loader.hpp"
#include "tests/adapters/traces/error_text.hpp"

namespace gantry {
namespace {

using trace_test::input_error_of;

constexpr const char* kHeader = "arrived_at,num_prefill_tokens,num_decode_tokens\n";

TEST(AzureLlmTrace, ShippedCodeTrace) {
  const std::vector<TraceRequest> r =
      load_azure_llm_trace(std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm/code.csv");
  // README: 8,819 requests over 3,435.9 s.
  ASSERT_EQ(r.size(), 8819u);
  // First row 0.0,4808,10; second 0.052,3180,8; last 3435.948056,549,173.
  EXPECT_EQ(r[0].offset_us, 0);
  EXPECT_EQ(r[0].prefill_tokens, 4808);
  EXPECT_EQ(r[0].decode_tokens, 10);
  EXPECT_EQ(r[1].offset_us, 52'000);  // 0.052 s
  EXPECT_EQ(r[1].prefill_tokens, 3180);
  EXPECT_EQ(r[1].decode_tokens, 8);
  EXPECT_EQ(r.back().offset_us, 3'435'948'056);
  EXPECT_EQ(r.back().prefill_tokens, 549);
  EXPECT_EQ(r.back().decode_tokens, 173);
  // Row 222 (line 223) is written 199.96150599999999: rounded to the microsecond.
  EXPECT_EQ(r[221].offset_us, 199'961'506);
}

// The readers a scenario is loaded with keep one copy of a trace per file and speedup, so the
// variants of a sweep, each loaded from the same base, share it.
TEST(AzureLlmTrace, TheScenarioReaderKeepsOneCopyPerFileAndSpeedup) {
  const TraceLoaders readers = trace_loaders();
  LoadSpec load;
  load.kind = LoadKind::kTrace;
  load.trace_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm/code.csv";
  const RequestTrace first = readers.requests(load);
  ASSERT_EQ(first->size(), 8819u);
  EXPECT_EQ(readers.requests(load), first);
  // Twice as fast is read again (the rate limit is checked at the speedup); the offsets stay
  // as written, the request source divides them.
  load.speedup = 2;
  const RequestTrace faster = readers.requests(load);
  EXPECT_NE(faster, first);
  EXPECT_EQ((*faster)[1].offset_us, 52'000);
  // Another set of readers reads again.
  load.speedup = 1;
  EXPECT_NE(trace_loaders().requests(load), first);
}

TEST(AzureLlmTrace, ShippedConvTrace) {
  const std::vector<TraceRequest> r =
      load_azure_llm_trace(std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm/conv.csv");
  // README: 19,366 requests over 3,501.7 s; first row 0.0,374,44.
  ASSERT_EQ(r.size(), 19366u);
  EXPECT_EQ(r[0].prefill_tokens, 374);
  EXPECT_EQ(r[0].decode_tokens, 44);
  EXPECT_EQ(r.back().offset_us, 3'501'721'937);
}

TEST(AzureLlmTrace, CompactRows) {
  // 8 bytes of arrival and two 4-byte counts, as the header promises: the code trace's 8,819
  // requests take 141,104 bytes.
  EXPECT_EQ(sizeof(TraceRequest), 16u);
}

TEST(AzureLlmTrace, ColumnsInAnyOrderAndEqualTimes) {
  const std::vector<TraceRequest> r = load_azure_llm_trace_text(
      "num_decode_tokens,arrived_at,num_prefill_tokens\n"
      "5,1.5,100\n"
      "6,1.5,0\n"
      "7,2e1,3\n",
      "t.csv");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].offset_us, 1'500'000);
  EXPECT_EQ(r[0].prefill_tokens, 100);
  EXPECT_EQ(r[0].decode_tokens, 5);
  EXPECT_EQ(r[1].offset_us, 1'500'000);  // equal times are nondecreasing
  EXPECT_EQ(r[1].prefill_tokens, 0);
  EXPECT_EQ(r[2].offset_us, 20'000'000);  // 2e1 s
}

// A trace saved by a spreadsheet starts with a UTF-8 byte order mark; it reads as any other.
TEST(AzureLlmTrace, AByteOrderMarkBeforeTheHeaderIsSkipped) {
  const std::vector<TraceRequest> r =
      load_azure_llm_trace_text(std::string("\xEF\xBB\xBF") + kHeader + "0.5,100,5\n", "t.csv");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset_us, 500'000);
  EXPECT_EQ(r[0].prefill_tokens, 100);
  EXPECT_EQ(r[0].decode_tokens, 5);
}

TEST(AzureLlmTrace, HeaderOnlyIsEmpty) {
  EXPECT_TRUE(load_azure_llm_trace_text(kHeader, "t.csv").empty());
}

TEST(AzureLlmTrace, MissingColumn) {
  EXPECT_EQ(input_error_of(
                [] { load_azure_llm_trace_text("arrived_at,num_prefill_tokens\n0,1\n", "t.csv"); }),
            "t.csv:1: num_decode_tokens: missing column; the header is "
            "'arrived_at,num_prefill_tokens'");
}

TEST(AzureLlmTrace, UnknownColumn) {
  EXPECT_EQ(input_error_of([] {
              load_azure_llm_trace_text(
                  "arrived_at,num_prefill_tokens,num_decode_tokens,model\n0,1,1,x\n", "t.csv");
            }),
            "t.csv:1:49: model: unknown column; expected columns: arrived_at, "
            "num_prefill_tokens, num_decode_tokens");
}

TEST(AzureLlmTrace, BadArrival) {
  const std::string text = std::string(kHeader) + "0.0,1,1\nsoon,1,1\n";
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:3:1: arrived_at: expected a number from 0 to 3153600000, got 'soon' (seconds "
            "from the trace's start)");
}

TEST(AzureLlmTrace, NegativeArrival) {
  const std::string text = std::string(kHeader) + "-1.5,1,1\n";
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:2:1: arrived_at: an arrival time cannot be negative, got '-1.5'");
}

TEST(AzureLlmTrace, DecreasingArrival) {
  const std::string text = std::string(kHeader) +
                           "0.0,1,1\n"     // line 2
                           "2.5,1,1\n"     // line 3
                           "2.499,1,1\n";  // line 4: earlier than line 3
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:4:1: arrived_at: arrival '2.499' is earlier than the previous row's '2.5' "
            "(line 3); arrivals must not decrease");
}

TEST(AzureLlmTrace, NegativeTokens) {
  const std::string text = std::string(kHeader) + "0.0,1,1\n1.0,-3,1\n";
  // Column of "-3" on line 3: "1.0," is 4 bytes, so byte 5.
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:3:5: num_prefill_tokens: a token count cannot be negative, got '-3'");
}

TEST(AzureLlmTrace, BadTokenCount) {
  const std::string text = std::string(kHeader) + "0.0,1,1.5\n";
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:2:7: num_decode_tokens: expected a non-negative integer, got '1.5'");
}

TEST(AzureLlmTrace, TooManyTokens) {
  const std::string text = std::string(kHeader) + "0.0,10000001,1\n";
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:2:5: num_prefill_tokens: expected an integer from 0 to 10000000, got "
            "'10000001'");
}

TEST(AzureLlmTrace, MissingField) {
  const std::string text = std::string(kHeader) + "0.0,1,1\n0.5,2\n";
  const std::string error = input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); });
  EXPECT_EQ(error.rfind("t.csv:3:", 0), 0u) << error;
  EXPECT_NE(error.find("num_decode_tokens: missing field"), std::string::npos) << error;
}

// Issue 22: a trace whose rows are all at one instant made a pass of 1 µs, and a looped replay
// of it ran without end at millions of requests per second. The replay rate is rows per pass
// (sim/serving/request_source.hpp: the last arrival plus the mean gap, at least 1 µs) ×
// speedup, at most 10^7 like every load's qps. Ten rows at 0: 10 per µs = 10^7, accepted;
// eleven: 1.1 × 10^7, refused at the last row (line 12).
TEST(AzureLlmTrace, ARateAboveTheLimitIsRefusedAtTheLastRow) {
  std::string text = kHeader;
  for (int i = 0; i < 10; ++i) text += "0,1,1\n";
  EXPECT_EQ(load_azure_llm_trace_text(text, "t.csv").size(), 10u);
  text += "0,1,1\n";
  EXPECT_EQ(input_error_of([&] { load_azure_llm_trace_text(text, "t.csv"); }),
            "t.csv:12:1: arrived_at: 11 requests in 1 µs (one pass: up to this last arrival, "
            "'0', plus the mean gap) at speedup 1 is 1.1e+07 requests per second, above the "
            "limit of 10^7; spread the arrivals or lower the speedup");
}

// Rows a microsecond apart: at 0, 1 and 2 µs a pass is 2 + 2 / 2 = 3 µs, 3 rows in it, 10^6 a
// second. Speedup 10 gives 10^7, accepted; 11 gives 1.1 × 10^7, refused.
TEST(AzureLlmTrace, TheRateCountsTheSpeedup) {
  const std::string text = std::string(kHeader) + "0,1,1\n0.000001,1,1\n0.000002,1,1\n";
  EXPECT_EQ(load_azure_llm_trace_text(text, "t.csv", 10).size(), 3u);
  const std::string error = input_error_of([&] { load_azure_llm_trace_text(text, "t.csv", 11); });
  EXPECT_EQ(error.rfind("t.csv:4:1: arrived_at: 3 requests in 3 µs", 0), 0u) << error;
  EXPECT_NE(error.find("at speedup 11 is 1.1e+07 requests per second"), std::string::npos) << error;
}

TEST(AzureLlmTrace, MissingFileIsAFileError) {
  EXPECT_THROW(load_azure_llm_trace("/nonexistent/code.csv"), FileError);
}

}  // namespace
}  // namespace gantry
