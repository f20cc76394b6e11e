#include "sim/results_stream.hpp"

#include <fmt/format.h>

#include <utility>

#include "engine/cluster/resources.hpp"

namespace gantry {

EventRecord event_record(const SimEvent& e) {
  return {e.time, to_string(e.kind), e.job,
          e.kind == EventKind::kStageRunning ? fmt::format("stage {}", e.detail)
          : e.kind == EventKind::kBind       ? fmt::format("{} pods", e.detail)
                                             : std::string()};
}

SeriesRecord series_record(const SeriesPoint& p, const std::vector<std::string>& gpu_types) {
  return {p.time, gpu_types.at(static_cast<size_t>(p.type)),
          static_cast<double>(p.allocated_milli) / kMilliPerGpu,
          static_cast<double>(p.busy_milli) / kMilliPerGpu};
}

ResultsStream::ResultsStream(const std::string& path, std::vector<std::string> gpu_types)
    : writer_(path), gpu_types_(std::move(gpu_types)) {
  batch_.reserve(kBatchRows);
  thread_ = std::thread([this] { write_loop(); });
}

ResultsStream::~ResultsStream() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  thread_.join();
}

void ResultsStream::limit_pages_for_test(int64_t pages) {
  std::lock_guard lock(mu_);  // the writer touches the database only with rows, none yet
  writer_.limit_pages_for_test(pages);
}

void ResultsStream::event(const SimEvent& e) {
  batch_.push_back(Row{true, e, {}});
  if (batch_.size() == kBatchRows) hand_over();
}

void ResultsStream::series(const SeriesPoint& p) {
  batch_.push_back(Row{false, {}, p});
  if (batch_.size() == kBatchRows) hand_over();
}

void ResultsStream::hand_over() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return error_ || queue_.size() < kBatchesInFlight; });
  if (error_) std::rethrow_exception(error_);
  queue_.push_back(std::move(batch_));
  batch_ = {};
  batch_.reserve(kBatchRows);
  changed_.notify_all();
}

void ResultsStream::write_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, and everything written
    std::vector<Row> rows = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();  // room for the next batch
    std::exception_ptr failed;
    try {
      for (const Row& r : rows) {
        if (r.is_event) {
          writer_.add_event(event_record(r.event));
        } else {
          writer_.add_series(series_record(r.point, gpu_types_));
        }
      }
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    if (failed) {
      error_ = failed;
      queue_.clear();
      changed_.notify_all();
      return;
    }
  }
}

ResultsWriter& ResultsStream::finish() {
  if (!finished_) {
    finished_ = true;
    std::exception_ptr failed;
    try {
      if (!batch_.empty()) hand_over();
    } catch (...) {
      failed = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
    if (failed) std::rethrow_exception(failed);
  }
  if (error_) std::rethrow_exception(error_);
  return writer_;
}

}  // namespace gantry
