#pragma once
// The requests of one service in arrival order, generated lazily so memory does not grow with
// their number: Poisson at a fixed rate, a diurnal curve (a non-homogeneous Poisson process), or
// a replayed request trace (Azure LLM inference 2023), looped and sped up as the spec says.
//
// Diurnal rate, with peak P, trough T, period D and the peak at offset k:
//   λ(t) = T + (P − T) · (1 + cos(2π (t − k) / D)) / 2
// drawn by thinning (Lewis & Shedler 1979): candidates at rate P, each kept with λ(t) / P.

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "engine/core/random.hpp"

namespace gantry {

struct ServingRequest {
  int64_t arrival_us = 0;  // absolute
  int32_t prefill_tokens = 0;
  int32_t decode_tokens = 0;
};

// One row of a request trace: arrival offset from the trace's start and token counts.
struct TraceRequest {
  int64_t offset_us = 0;
  int32_t prefill_tokens = 0;
  int32_t decode_tokens = 0;
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request, or false when the source is exhausted (a trace without loop).
  virtual bool next(ServingRequest& out) = 0;
};

// `start_us`: absolute time of the service's start; the load's offsets count from it.
// `trace`: the rows of the load's trace file (LoadKind::kTrace only; shared, not copied).
std::unique_ptr<RequestSource> make_request_source(
    const LoadSpec& load, int64_t start_us, RandomStream random,
    std::shared_ptr<const std::vector<TraceRequest>> trace = nullptr);

// λ(t) of a diurnal curve at `offset` from its start, requests per second.
double diurnal_rate(const LoadSpec& load, Duration offset);

// One pass of a replayed trace, before speedup: its last arrival plus the mean gap between
// arrivals (last / (rows − 1); 1 µs for one row), at least 1 µs. A looped trace starts again
// after it, so the replay keeps the trace's mean rate.
int64_t trace_pass_us(const std::vector<TraceRequest>& rows);

// The mean rate at which a trace is replayed: rows per pass × speedup, requests per second
// (0 for no rows). Rows all at one instant make a pass of 1 µs: a million requests per second
// per row, which the trace loader refuses past kMaxServiceQps.
double trace_rate_qps(const std::vector<TraceRequest>& rows, double speedup);

}  // namespace gantry
