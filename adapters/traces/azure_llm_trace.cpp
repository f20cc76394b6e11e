#include "adapters/traces/azure_llm_trace.hpp"

#include <fmt/format.h>

#include <string>

#include "adapters/traces/csv_reader.hpp"
#include "engine/config/limits.hpp"
#include "engine/config/units.hpp"
#include "sim/serving/service_loader.hpp"

namespace gantry {

namespace {

int32_t read_tokens(const CsvReader& csv, int col) {
  const std::string_view text = csv.text(col);
  if (!text.empty() && text.front() == '-')
    csv.fail(col, "a token count cannot be negative, got " + CsvReader::quote(text));
  return static_cast<int32_t>(csv.integer(col, 0, kMaxTraceTokens));
}

}  // namespace

std::vector<TraceRequest> load_azure_llm_trace(const std::string& path, double speedup) {
  const std::string text = read_trace_file(path);
  return load_azure_llm_trace_text(text, path, speedup);
}

std::vector<TraceRequest> load_azure_llm_trace_text(std::string_view text,
                                                    const std::string& file_name, double speedup) {
  CsvReader csv(text, file_name);
  csv.read_header({"arrived_at", "num_prefill_tokens", "num_decode_tokens"});
  const int arrived = csv.require_column("arrived_at");
  const int prefill = csv.require_column("num_prefill_tokens");
  const int decode = csv.require_column("num_decode_tokens");
  std::vector<TraceRequest> out;
  // Rows of the shipped files are about 19 bytes: a hint, not a bound.
  out.reserve(text.size() / 19 + 1);
  std::string previous;  // the previous row's arrived_at, for messages
  int previous_line = 0;
  SourceLocation last_arrival;  // of the last row's arrived_at, for the rate check
  while (csv.next()) {
    const std::string_view at = csv.text(arrived);
    if (!at.empty() && at.front() == '-')
      csv.fail(arrived, "an arrival time cannot be negative, got " + CsvReader::quote(at));
    const Result<double> seconds = parse_number(at, 0, kMaxDuration.seconds());
    if (!seconds) csv.fail(arrived, seconds.error() + " (seconds from the trace's start)");
    const Duration arrival = Duration::from_seconds(seconds.value());
    if (!out.empty() && arrival.micros() < out.back().offset_us)
      csv.fail(arrived, "arrival " + CsvReader::quote(at) + " is earlier than the previous row's " +
                            CsvReader::quote(previous) + " (line " + std::to_string(previous_line) +
                            "); arrivals must not decrease");
    out.push_back(
        TraceRequest{arrival.micros(), read_tokens(csv, prefill), read_tokens(csv, decode)});
    previous.assign(at);
    previous_line = csv.record_line();
    last_arrival = SourceLocation{file_name, csv.line(arrived), csv.column(arrived)};
  }
  out.shrink_to_fit();
  const double rate = trace_rate_qps(out, speedup);
  if (rate > kMaxServiceQps)
    throw InputError(
        last_arrival, "arrived_at",
        fmt::format("{} requests in {} µs (one pass: up to this last arrival, {}, plus the mean "
                    "gap) at speedup {} is {:.3g} requests per second, above the limit of 10^7; "
                    "spread the arrivals or lower the speedup",
                    out.size(), trace_pass_us(out), CsvReader::quote(previous), speedup, rate));
  return out;
}

std::shared_ptr<const std::vector<TraceRequest>> load_request_trace(const LoadSpec& load) {
  return std::make_shared<const std::vector<TraceRequest>>(
      load_azure_llm_trace(load.trace_file, load.speedup));
}

}  // namespace gantry
