#pragma once
// Reading runs for the REST API straight from the runs database, on HTTP threads: SQLite in
// WAL mode lets readers go on while the orchestrator writes, so listing runs never waits for
// (or slows) the event loop, and a page of 50 runs out of 100,000 is three indexed queries.
// What a reader sees is what has been committed: with one transaction per change (gantry
// serve), every change the scheduler has made.
//
// The JSON is exactly run_json() of workflow/runner/timeline.hpp (the timeline of `gantry
// pipeline run --format json`), built from the stored words; tests compare the two. One
// exception: an attempt's "reason" is not stored, so it is absent here.
//
// Paging (GET /pipelines/{name}/runs): newest logical time first; `after` is the cursor the
// previous page returned (the logical time in microseconds of its last run), so a page is
// stable while new runs are created. Filters: state (a run state word), from/to (logical
// time, inclusive).
//
// Thread-safe: a small pool of read-only connections, one per concurrent request.

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/time.hpp"
#include "engine/store/database.hpp"

namespace gantry::web {

struct RunPageQuery {
  std::string pipeline;
  std::optional<std::string> state{};
  std::optional<Time> from{}, to{};
  std::optional<int64_t> after{};  // cursor: logical_us of the last run of the previous page
  int limit = 50;
};

struct RunPage {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  std::optional<int64_t> next;  // cursor for the following page, when there is one
};

class RunQueries {
 public:
  // Opens connections lazily (read-only) to the database at `path`.
  explicit RunQueries(std::string path);
  ~RunQueries();

  RunPage page(const RunPageQuery& q);
  // One run, or null JSON when there is none.
  nlohmann::ordered_json run(const std::string& pipeline, Time logical_time);
  // The state of the latest run (by logical time) of each pipeline named, for the list.
  std::optional<std::pair<Time, std::string>> last_run(const std::string& pipeline);

 private:
  std::unique_ptr<Database> acquire();
  void release(std::unique_ptr<Database> db);
  // Runs `fn` on a pooled connection, once more on a fresh one after an I/O error.
  template <typename F>
  auto with_db(F&& fn) -> decltype(fn(std::declval<Database&>()));
  // Fills the tasks and attempts of runs by their row ids.
  void add_tasks(Database& db, const std::vector<int64_t>& ids,
                 std::vector<nlohmann::ordered_json*>& runs);

  std::string path_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Database>> idle_;
};

}  // namespace gantry::web
