// The Prometheus text parser (adapters/kube/serving/prometheus_text.hpp): the example of the
// format's documentation read sample by sample, and each rule's error with its line and column.

#include "adapters/kube/serving/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/errors.hpp"

namespace gantry::kube {
namespace {

// The example of prometheus.io/docs/instrumenting/exposition_formats/ ("Text format example").
const char* kDocExample = R"(# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="0.1"} 33444
http_request_duration_seconds_bucket{le="0.2"} 100392
http_request_duration_seconds_bucket{le="0.5"} 129389
http_request_duration_seconds_bucket{le="1"} 133988
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320

# Finally a summary, which has a complex representation, too:
# HELP rpc_duration_seconds A summary of the RPC duration in seconds.
# TYPE rpc_duration_seconds summary
rpc_duration_seconds{quantile="0.01"} 3102
rpc_duration_seconds{quantile="0.05"} 3272
rpc_duration_seconds{quantile="0.5"} 4773
rpc_duration_seconds{quantile="0.9"} 9001
rpc_duration_seconds{quantile="0.99"} 76656
rpc_duration_seconds_sum 1.7560473e+07
rpc_duration_seconds_count 2693
)";

TEST(PrometheusText, ReadsTheDocumentationExample) {
  const PromExposition e = parse_prometheus_text(kDocExample);
  ASSERT_EQ(e.samples.size(), 2u + 1 + 1 + 1 + 8 + 7);
  const PromSample& first = e.samples[0];
  EXPECT_EQ(first.name, "http_requests_total");
  EXPECT_EQ(first.label("method"), "post");
  EXPECT_EQ(first.label("code"), "200");
  EXPECT_EQ(first.value, 1027);
  EXPECT_EQ(first.timestamp_ms, 1395066363000);
  EXPECT_EQ(first.line, 3);
  EXPECT_EQ(e.samples[1].value, 3);  // several blanks before the value
  // Escapes: \\ is one backslash, \n a line feed, \" a quote.
  EXPECT_EQ(e.samples[2].label("path"), "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(e.samples[2].label("error"), "Cannot find file:\n\"FILE.TXT\"");
  EXPECT_EQ(e.samples[2].value, 1.458255915e9);
  EXPECT_FALSE(e.samples[2].timestamp_ms);
  EXPECT_EQ(e.samples[3].name, "metric_without_timestamp_and_labels");
  EXPECT_EQ(e.samples[3].value, 12.47);
  EXPECT_TRUE(std::isinf(e.samples[4].value) && e.samples[4].value > 0);
  EXPECT_EQ(e.samples[4].timestamp_ms, -3982045);  // before the epoch
  // The histogram's samples belong to its family.
  EXPECT_EQ(e.samples[10].name, "http_request_duration_seconds_bucket");
  EXPECT_EQ(e.samples[10].label("le"), "+Inf");
  EXPECT_EQ(e.samples[12].name, "http_request_duration_seconds_count");
  EXPECT_EQ(e.samples[12].family, "http_request_duration_seconds");
  EXPECT_EQ(e.samples[18].name, "rpc_duration_seconds_sum");
  EXPECT_EQ(e.samples[18].value, 1.7560473e+07);
  EXPECT_EQ(e.samples[18].family, "rpc_duration_seconds");
  EXPECT_EQ(e.samples[19].value, 2693);

  const PromFamily* requests = e.family("http_requests_total");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->type, PromType::kCounter);
  EXPECT_EQ(requests->help, "The total number of HTTP requests.");
  EXPECT_EQ(e.family("http_request_duration_seconds")->type, PromType::kHistogram);
  EXPECT_EQ(e.family("rpc_duration_seconds")->type, PromType::kSummary);
  // Without a TYPE line a metric is untyped.
  EXPECT_EQ(e.family("metric_without_timestamp_and_labels")->type, PromType::kUntyped);
  EXPECT_EQ(e.family("http_request_duration_seconds_bucket"), nullptr);
}

TEST(PrometheusText, AcceptsWhatTheGrammarAllows) {
  const PromExposition e = parse_prometheus_text(
      "   \n"
      "\t# TYPE a gauge   \n"
      "a{ x = \"1\" , y=\"\" , } -1.5e-3\t\n"
      "a{x=\"2\"} NaN\n"
      "b{} .5 +7\n"
      "c 1. \n"
      "# HELP d Docs with \\\\ and \\n in them.\n"
      "d -Inf\n"
      "e inf\n"
      "f +Infinity\n"
      "# a comment of any kind { \" \\ \n"
      "g_1:sub 0\n");
  ASSERT_EQ(e.samples.size(), 8u);
  EXPECT_EQ(e.samples[0].value, -1.5e-3);
  EXPECT_EQ(e.samples[0].label("x"), "1");
  EXPECT_EQ(e.samples[0].labels.size(), 2u);  // y="" is kept as written, and reads as absent
  EXPECT_EQ(e.samples[0].label("y"), "");
  EXPECT_TRUE(std::isnan(e.samples[1].value));
  EXPECT_EQ(e.samples[2].value, 0.5);
  EXPECT_EQ(e.samples[2].timestamp_ms, 7);
  EXPECT_EQ(e.samples[3].value, 1.0);
  EXPECT_EQ(e.family("d")->help, "Docs with \\ and \n in them.");
  EXPECT_TRUE(std::isinf(e.samples[4].value) && e.samples[4].value < 0);
  EXPECT_TRUE(std::isinf(e.samples[5].value));
  EXPECT_TRUE(std::isinf(e.samples[6].value));
  EXPECT_EQ(e.samples[7].name, "g_1:sub");
  EXPECT_TRUE(parse_prometheus_text("").samples.empty());
}

// The error of `text`: "metrics:<line>:<column>: ..." with what it must say.
void expect_error(const std::string& text, int line, int column, const std::string& says) {
  try {
    parse_prometheus_text(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "metrics") << e.what();
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(PrometheusText, NamesTheLineAndColumnOfEachError) {
  expect_error("a 1\nb 2", 2, 4, "does not end with a line feed");
  expect_error("a 1\n9a 2\n", 2, 1, "expected a metric name");
  expect_error("a\n", 1, 2, "expected a value");
  expect_error("a{x=\"1\"}2\n", 1, 9, "expected a blank before the value");
  expect_error("a 1 2 3\n", 1, 7, "unexpected text after the timestamp");
  expect_error("a one\n", 1, 3, "'one': expected a number");
  expect_error("a 0x10\n", 1, 3, "expected a number");  // no hexadecimal floats
  expect_error("a 1e999\n", 1, 3, "expected a number");
  expect_error("a 1 1.5\n", 1, 5, "expected a timestamp");
  expect_error("a{x=1} 1\n", 1, 5, "expected '\"' to open the value of label x");
  expect_error("a{x=\"1\" y=\"2\"} 1\n", 1, 9, "expected ',' or '}'");
  expect_error("a{x=\"1\"\n", 1, 8, "unterminated label set");
  expect_error("a{x=\"1} 1\n", 1, 10, "unterminated value of label x");
  expect_error("a{x=\"\\t\"} 1\n", 1, 6, "invalid escape \\t");
  expect_error("a{x=\"1\",x=\"2\"} 1\n", 1, 9, "label x twice");
  expect_error("a{1x=\"1\"} 1\n", 1, 3, "expected a label name");
  expect_error("{\"a.b\"} 1\n", 1, 1, "quoted (UTF-8) metric names are not supported");
  expect_error("# TYPE a countr\n", 1, 10,
               "expected counter, gauge, histogram, summary or untyped");
  expect_error("# TYPE a\n", 1, 9, "expected a type");
  expect_error("# TYPE a counter extra\n", 1, 18, "unexpected text after the type");
  expect_error("# HELP\n", 1, 7, "expected a metric name after HELP");
  expect_error("# HELP a x \\q\n", 1, 12, "invalid escape \\q in a docstring");
  expect_error("# TYPE a counter\n# TYPE a gauge\n", 2, 8, "a second TYPE line for a");
  expect_error("# HELP a x\n# HELP a y\n", 2, 8, "a second HELP line for a");
  expect_error("a 1\n# TYPE a counter\n", 2, 8, "TYPE for a after its samples (from line 1)");
  expect_error("a 1\n# HELP a late\n", 2, 8, "HELP for a after its samples");
  expect_error("a 1\nb 1\na{x=\"1\"} 2\n", 3, 1,
               "the lines of metric a are not one uninterrupted group (it began on line 1)");
  expect_error("# TYPE c counter\nc -1\n", 2, 3, "a counter cannot be negative");
  expect_error("# TYPE h histogram\nh_bucket 1\n", 2, 1, "a histogram bucket without an le label");
  expect_error("# TYPE h histogram\nh 1\n", 2, 1, "its samples are h_bucket, _sum and _count");
  expect_error("# TYPE s summary\ns 1\n", 2, 1, "a summary sample without a quantile label");
  expect_error("a{x=\"1\"} 1\na{x=\"1\"} 2\n", 2, 1, "a second sample of this series");
  // Labels in another order name the same series.
  expect_error("a{x=\"1\",y=\"2\"} 1\na{y=\"2\",x=\"1\"} 2\n", 2, 1, "a second sample");
}

TEST(PrometheusText, EscapesAndFormatsWhatItReadsBack) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(format_prom_value(12.5), "12.5");
  EXPECT_EQ(format_prom_value(0.1), "0.1");
  EXPECT_EQ(format_prom_value(std::nan("")), "NaN");
  EXPECT_EQ(format_prom_value(-INFINITY), "-Inf");
  const std::string text =
      "x{v=\"" + escape_label_value("a\\b\"c\nd") + "\"} " + format_prom_value(1.0 / 3.0) + "\n";
  const PromExposition e = parse_prometheus_text(text);
  EXPECT_EQ(e.samples[0].label("v"), "a\\b\"c\nd");
  EXPECT_EQ(e.samples[0].value, 1.0 / 3.0);  // the shortest form reads back exactly
}

}  // namespace
}  // namespace gantry::kube
