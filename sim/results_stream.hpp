#pragma once
// ResultsStream: the event and series rows of a running simulation, written into its results
// database on a thread of their own while the simulation goes on (a LogSink).
//
// Why: a million-job run records about 5 million events and 3 million series points. Kept in
// memory until the end they cost a quarter of a gigabyte and a dozen seconds of SQLite work
// after the run, on one core; streamed, the memory is a few batches and the writing overlaps
// the simulation on a second core.
//
// The simulation thread fills a batch (kBatchRows rows) and hands it over; at most
// kBatchesInFlight batches wait, so a slow disk slows the simulation rather than growing
// memory. The rows reach the database in the order they were recorded, so identical runs
// still give identical files. finish() waits for the writer and hands back the database for
// the rest of the rows (jobs, summary: write_results_database()).
//
// Errors: when the writer fails (a full disk: StoreError naming the file), the next row
// handed over throws that error on the simulation thread, which ends the run; finish()
// throws it too. Nothing is left at the target path (ResultsWriter writes a temporary).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim/results_writer.hpp"
#include "sim/simulation_log.hpp"

namespace gantry {

class ResultsStream final : public LogSink {
 public:
  static constexpr size_t kBatchRows = 8192;
  static constexpr size_t kBatchesInFlight = 8;

  // Opens the results database for `path` (ResultsWriter's checks and errors) and starts the
  // writer. `gpu_types`: the names of the cluster's GPU types, by GpuTypeId.
  ResultsStream(const std::string& path, std::vector<std::string> gpu_types);
  // Stops the writer if finish() was not called (the rows are dropped with the temporary).
  ~ResultsStream() override;
  ResultsStream(const ResultsStream&) = delete;
  ResultsStream& operator=(const ResultsStream&) = delete;

  void event(const SimEvent& e) override;
  void series(const SeriesPoint& p) override;

  // Writes what is left, stops the writer and returns the database, on the caller's thread
  // from now on. Throws the writer's error if it had one.
  ResultsWriter& finish();

  // For tests: SQLite's PRAGMA max_page_count on the database, so that a small limit stands
  // in for a full disk. Call before the first row.
  void limit_pages_for_test(int64_t pages);

 private:
  struct Row {
    bool is_event = true;
    SimEvent event;
    SeriesPoint point;
  };
  void hand_over();  // the current batch to the writer; throws the writer's error
  void write_loop();

  ResultsWriter writer_;
  std::vector<std::string> gpu_types_;
  std::vector<Row> batch_;  // being filled by the simulation thread

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::vector<Row>> queue_;  // handed over, oldest first
  bool closing_ = false;
  std::exception_ptr error_;
  std::thread thread_;
  bool finished_ = false;
};

// The results-database rows of an event and of a series point (write_results_database()
// and ResultsStream write the same).
EventRecord event_record(const SimEvent& e);
SeriesRecord series_record(const SeriesPoint& p, const std::vector<std::string>& gpu_types);

}  // namespace gantry
