#pragma once
// Importer for the Azure LLM inference trace 2023 (Patel et al., "Splitwise: Efficient
// generative LLM inference using phase splitting", ISCA'24; Azure/AzurePublicDataset, CC BY
// 4.0) as Vidur processed it (microsoft/vidur, data/processed_traces/splitwise_{code,conv}.csv).
// Data and terms: scenarios/data/README.md, folder azure-llm/. A service's `load: {trace:
// {format: azure-llm-2023, file}}` names such a file (sim/serving/service_loader.hpp).
//
// ## The file
//
//   arrived_at,num_prefill_tokens,num_decode_tokens
//   0.0,4808,10
//   0.052,3180,8
//
//   arrived_at          seconds from the trace's start, a decimal number (an exponent is
//                       accepted), nondecreasing from row to row, at most 100 years; rounded to
//                       Gantry's microsecond
//   num_prefill_tokens  prompt tokens, 0..10^7
//   num_decode_tokens   generated tokens, 0..10^7
// The header must name exactly these three columns, in any order. A UTF-8 byte order mark
// before the header (spreadsheets write one) is skipped.
//
// The rate it is replayed at, rows per pass × speedup (trace_rate_qps(),
// sim/serving/request_source.hpp), is at most 10^7 requests per second, the limit of every
// service's load (kMaxServiceQps): rows all at one instant, or a microsecond apart at a large
// speedup, would replay without end. The error names the last row, where the pass ends.
//
// ## What it gives
//
// One TraceRequest per row, in file order (sim/serving/request_source.hpp's row type, which
// make_request_source replays): 16 bytes each, so the hour-long code trace (8,819 requests)
// takes 141 KB and the largest file accepted (256 MiB, kMaxTraceFileBytes) some 160 MB. Arrival
// offsets are integer microseconds (events are never ordered by doubles).
//
// Errors: FileError if the file cannot be read; InputError "file:line:col: column: message"
// otherwise (a bad number, a negative or too large token count, a time earlier than the row
// before, a missing or unknown column, a malformed CSV record, a rate past the limit).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "sim/serving/request_source.hpp"

namespace gantry {

inline constexpr int64_t kMaxTraceTokens = 10'000'000;

// `speedup`: the load's (LoadSpec::speedup), for the rate check.
std::vector<TraceRequest> load_azure_llm_trace(const std::string& path, double speedup = 1.0);
// Parses trace text; `file_name` only labels errors.
std::vector<TraceRequest> load_azure_llm_trace_text(std::string_view text,
                                                    const std::string& file_name,
                                                    double speedup = 1.0);

// The rows of a trace load (LoadSpec::trace_file at its speedup), shared as the service runs
// take them: the reader a scenario is loaded with (trace_ref_loader.hpp, trace_loaders()).
// Throws as load_azure_llm_trace.
std::shared_ptr<const std::vector<TraceRequest>> load_request_trace(const LoadSpec& load);

}  // namespace gantry
