#include "sim/serving/request_source.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <utility>

namespace gantry {

namespace {

int32_t clamp_tokens(int64_t n) { return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)); }

class PoissonSource final : public RequestSource {
 public:
  PoissonSource(const LoadSpec& load, int64_t start_us, RandomStream random)
      : mean_gap_us_(1e6 / load.qps),
        at_us_(static_cast<double>(start_us)),
        prefill_(clamp_tokens(load.prefill_tokens)),
        decode_(clamp_tokens(load.decode_tokens)),
        random_(std::move(random)) {}

  bool next(ServingRequest& out) override {
    at_us_ += random_.exponential(mean_gap_us_);
    out = {static_cast<int64_t>(at_us_), prefill_, decode_};
    return true;
  }

 private:
  double mean_gap_us_;
  double at_us_;
  int32_t prefill_;
  int32_t decode_;
  RandomStream random_;
};

class DiurnalSource final : public RequestSource {
 public:
  DiurnalSource(const LoadSpec& load, int64_t start_us, RandomStream random)
      : load_(load),
        start_us_(start_us),
        mean_gap_us_(1e6 / load.peak_qps),
        at_us_(static_cast<double>(start_us)),
        random_(std::move(random)) {}

  bool next(ServingRequest& out) override {
    for (;;) {
      at_us_ += random_.exponential(mean_gap_us_);
      const auto offset = Duration(static_cast<int64_t>(at_us_) - start_us_);
      if (random_.uniform() * load_.peak_qps < diurnal_rate(load_, offset)) break;
    }
    out = {static_cast<int64_t>(at_us_), clamp_tokens(load_.prefill_tokens),
           clamp_tokens(load_.decode_tokens)};
    return true;
  }

 private:
  LoadSpec load_;
  int64_t start_us_;
  double mean_gap_us_;
  double at_us_;
  RandomStream random_;
};

class TraceSource final : public RequestSource {
 public:
  TraceSource(const LoadSpec& load, int64_t start_us,
              std::shared_ptr<const std::vector<TraceRequest>> rows)
      : rows_(std::move(rows)), start_us_(start_us), speedup_(load.speedup), loop_(load.loop) {
    assert(rows_ && speedup_ > 0);
    pass_us_ = trace_pass_us(*rows_);
  }

  bool next(ServingRequest& out) override {
    if (rows_->empty()) return false;
    if (index_ == rows_->size()) {
      if (!loop_) return false;
      index_ = 0;
      ++pass_;
    }
    const TraceRequest& r = (*rows_)[index_++];
    const double offset = static_cast<double>(pass_ * pass_us_ + r.offset_us) / speedup_;
    out = {start_us_ + static_cast<int64_t>(offset), r.prefill_tokens, r.decode_tokens};
    return true;
  }

 private:
  std::shared_ptr<const std::vector<TraceRequest>> rows_;
  int64_t start_us_;
  double speedup_;
  bool loop_;
  int64_t pass_us_ = 1;
  int64_t pass_ = 0;
  size_t index_ = 0;
};

}  // namespace

double diurnal_rate(const LoadSpec& load, Duration offset) {
  const double phase = 2.0 * std::numbers::pi *
                       static_cast<double>((offset - load.peak_at).micros()) /
                       static_cast<double>(load.period.micros());
  return load.trough_qps + (load.peak_qps - load.trough_qps) * (1.0 + std::cos(phase)) / 2.0;
}

int64_t trace_pass_us(const std::vector<TraceRequest>& rows) {
  if (rows.empty()) return 1;
  const int64_t last = rows.back().offset_us;
  const int64_t pass = last + (rows.size() > 1 ? last / static_cast<int64_t>(rows.size() - 1) : 1);
  return std::max<int64_t>(pass, 1);
}

double trace_rate_qps(const std::vector<TraceRequest>& rows, double speedup) {
  return static_cast<double>(rows.size()) * 1e6 * speedup /
         static_cast<double>(trace_pass_us(rows));
}

std::unique_ptr<RequestSource> make_request_source(
    const LoadSpec& load, int64_t start_us, RandomStream random,
    std::shared_ptr<const std::vector<TraceRequest>> trace) {
  switch (load.kind) {
    case LoadKind::kPoisson:
      return std::make_unique<PoissonSource>(load, start_us, std::move(random));
    case LoadKind::kCurve:
      return std::make_unique<DiurnalSource>(load, start_us, std::move(random));
    case LoadKind::kTrace:
      return std::make_unique<TraceSource>(load, start_us, std::move(trace));
  }
  return nullptr;
}

}  // namespace gantry
