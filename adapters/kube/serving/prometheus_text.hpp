#pragma once
// A strict parser of the Prometheus text exposition format, version 0.0.4
// (prometheus.io/docs/instrumenting/exposition_formats/, "Text format details"): what a serving
// pod's /metrics (and kubelet-sim's) answers with `Content-Type: text/plain; version=0.0.4`.
//
//   text     = { line "\n" }             every line ends with a line feed, the last one too
//   line     = blank line                (ignored)
//            | "#" [ "HELP" name docstring | "TYPE" name type | anything ]   (other comments
//              ignored)
//            | name [ "{" [ label { "," label } [ "," ] ] "}" ] value [ timestamp ]
//   label    = label_name "=" '"' escaped '"'
// Tokens are separated by blanks and tabs; blanks around the braces' contents are allowed, and
// leading and trailing ones ignored.
//   name        [a-zA-Z_:][a-zA-Z0-9_:]*            label_name  [a-zA-Z_][a-zA-Z0-9_]*
//   escaped     label values: \\ \" \n; docstrings: \\ \n (any other escape is an error)
//   value       a float as Go's strconv.ParseFloat reads it in decimal: [+-]digits[.digits]
//               [e[+-]digits], or NaN, Inf, +Inf, -Inf (case-insensitive; "Infinity" too)
//   timestamp   an int64, milliseconds since the epoch
//   type        counter | gauge | histogram | summary | untyped
//
// Rules checked (each an error): at most one HELP and one TYPE per metric, both before its
// first sample; all lines of a metric (its HELP, TYPE and samples) one uninterrupted group; a
// histogram's <name>_bucket samples carry `le`, a summary's <name> samples `quantile`; no label
// name twice in a sample; no sample (name and labels) twice; a counter is not negative. A
// metric's samples are its own name, and for a histogram <name>_bucket, _sum and _count, for a
// summary <name>, _sum and _count. Not supported, refused: the 2025 quoted (UTF-8) metric and
// label names, hexadecimal floats, OpenMetrics' "# EOF".
//
// Errors: InputError with `source` as the file, the 1-based line and column, the metric name
// as the field when known, and what was expected.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::kube {

enum class PromType { kUntyped, kCounter, kGauge, kHistogram, kSummary };
const char* to_string(PromType type);

struct PromSample {
  std::string name;                                         // as written: "x_bucket"
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written, unescaped
  double value = 0;
  std::optional<int64_t> timestamp_ms;
  std::string family;  // the metric it belongs to: "x" for a histogram's "x_bucket"
  int line = 0;
  // The value of label `key`, or "" when absent (an empty label is an absent one).
  std::string label(std::string_view key) const;
};

struct PromFamily {
  std::string name;
  PromType type = PromType::kUntyped;
  std::string help;  // unescaped
};

struct PromExposition {
  std::vector<PromFamily> families;  // in the order first seen
  std::vector<PromSample> samples;   // in the order written
  // The family named `name`, or nullptr.
  const PromFamily* family(std::string_view name) const;
};

// Throws InputError (above).
PromExposition parse_prometheus_text(std::string_view text, const std::string& source = "metrics");

// Escapes a label value for the text format (\\, \", \n).
std::string escape_label_value(std::string_view value);
// The shortest text that reads back as exactly `value` ("NaN", "+Inf", "-Inf" as the format
// spells them).
std::string format_prom_value(double value);

}  // namespace gantry::kube
