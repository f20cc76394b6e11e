#pragma once
// The coordinator of distributed sweeps (issue 25): `gantry sweep --on kubernetes` submits a
// sweep's documents here, a Kubernetes Indexed Job's pods (`gantry sweep-worker`) each fetch a
// shard and post its runs back, and the merged result is what a local `gantry sweep` prints,
// figure for figure (the same functions: summarize_sweep, sweep_json, sweep_text_report,
// sweep_charts, over the runs in the same order).
//
// Submitting checks everything before accepting: the documents' paths, the sweep, its base and
// every point's scenario, loaded from a private folder (SweepFolder) exactly as `gantry sweep`
// loads them, with every data file confined to that folder. A bad sweep is an InputError
// naming file:line:col as the user's own folder would (root/key). It then stores the sweep,
// splits its runs into shards (split_runs: contiguous ranges, run = point × seeds + seed) and
// makes a worker token bound to it (TokenRole::kSweepWorker), ended when the sweep ends.
//
// Runs are idempotent: posting a run already recorded with the same fingerprint is accepted
// and not counted again (a retried shard); a different fingerprint is a Conflict (a worker that
// disagrees with an earlier one is a bug to show). A run is acknowledged only once committed.
// Posts that arrive together are committed together (a group commit: one transaction for the
// runs of every post waiting), without the mutex held.
// When the last run is in, the sweep is done; cancel() ends it as cancelled. Both end the
// workers' token and wake every waiter.
//
// Waiting: wait() blocks its caller (an HTTP thread) until the count of runs differs from the
// caller's, or the sweep ends, or the timeout. At most `max_waiters` callers wait at once;
// more are answered at once with a retry hint, so long polls never take the HTTP threads
// other requests need (HttpServer gives each request a thread: threads must exceed the waiters
// the sweeps' pods need, see web/server/README.md). close() wakes them all (the server stops).
//
// Events on the bus: "distributed-sweep", the sweep's JSON without its result, at each change.
//
// Restart: the constructor reloads every sweep, its runs and failures from the database.
// Thread-safe: every public call takes the coordinator's mutex, released while waiting.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_shards.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "sim/sweep/sweep_wire.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/sweep_coordinator_store.hpp"
#include "web/server/token_store.hpp"

namespace gantry::web {

// The answer a handler turns into an HTTP status (api_distributed_sweeps.cpp).
struct CoordinatorError : std::runtime_error {
  enum Kind { kNotFound, kBadRequest, kConflict };
  CoordinatorError(Kind k, const std::string& message) : std::runtime_error(message), kind(k) {}
  Kind kind;
};

struct SubmittedSweep {
  std::string id;  // a DNS label: "sw-<n>-<6 random letters and digits>"
  size_t shards = 0, runs = 0;
  std::string token;  // the workers' token; the only copy
};

struct ShardWork {
  nlohmann::json documents;  // documents_json()
  std::string state;
  size_t shard = 0, shards = 0;
  ShardRange range;
  std::vector<size_t> recorded;  // runs of the range already recorded, ascending
};

struct PostOutcome {
  size_t recorded = 0;    // new runs
  size_t duplicates = 0;  // already recorded, same fingerprint
  size_t done = 0, total = 0;
  std::string state;
};

class SweepCoordinator {
 public:
  struct Options {
    size_t max_waiters = 128;
    size_t max_shards = 100000;
  };
  SweepCoordinator(const std::string& db_path, TokenStore& tokens, EventBus& bus, Options options);
  SweepCoordinator(const std::string& db_path, TokenStore& tokens, EventBus& bus)
      : SweepCoordinator(db_path, tokens, bus, Options{}) {}
  ~SweepCoordinator();  // wakes the waiters (close())
  SweepCoordinator(const SweepCoordinator&) = delete;
  SweepCoordinator& operator=(const SweepCoordinator&) = delete;

  // Checks, stores and splits a sweep. Throws InputError/InputErrors (a bad sweep or document
  // path, naming where), FileError (a base that cannot be read), CoordinatorError kBadRequest
  // (shards out of 1..max_shards).
  SubmittedSweep submit(const SweepDocuments& documents, size_t shards);

  // Shard `shard`'s work. Throws kNotFound (no such sweep or shard).
  ShardWork shard(const std::string& id, size_t shard);

  // Records runs of `shard` (all or none). Throws kNotFound, kBadRequest (a run outside the
  // shard's range, a wrong number of metrics, the same run twice in the batch), kConflict (a
  // run recorded with another fingerprint or seed; a cancelled sweep).
  PostOutcome post_runs(const std::string& id, size_t shard, const std::vector<PostedRun>& runs);

  // Stores a worker's report that `shard` failed (shown with the sweep). Throws kNotFound.
  void report_failure(const std::string& id, size_t shard, const std::string& message);

  // Ends a running sweep as cancelled (a cancelled one stays so). Throws kNotFound, kConflict
  // (the sweep is done). Returns the sweep's JSON.
  nlohmann::json cancel(const std::string& id);

  // The sweep's progress ({"id","state","runs":{"done","total"},"failures":n,
  // "retry_after_ms"}), once its runs done differ from `after` (a negative `after`: once it
  // ends), it ends, `timeout` passes or close() is called. Throws kNotFound.
  nlohmann::json wait(const std::string& id, long long after, std::chrono::milliseconds timeout);

  // The sweep's JSON (web/API.md, DistributedSweep); with `with_result`, a done sweep's result,
  // report and charts, and a running one's "partial" {"result","report"} over the runs recorded
  // so far. nullopt for an unknown id.
  std::optional<nlohmann::json> describe(const std::string& id, bool with_result);
  nlohmann::json list();  // newest first, without results

  // Wakes every waiter; later waits answer at once.
  void close();
  // Callers in wait() now (for the benchmark's and tests' own synchronisation).
  size_t waiting();

 private:
  struct Sweep;
  Sweep& find(const std::string& id);  // with mu_ held; throws kNotFound
  const ShardRange& range_of(Sweep& s, size_t shard);
  nlohmann::json progress_json(const Sweep& s) const;
  nlohmann::json to_json(Sweep& s, bool with_result);
  void end(Sweep& s, const std::string& state);  // with mu_ held
  void publish(Sweep& s);                        // with mu_ held
  struct PendingRun {
    std::string sweep;
    PostedRun run;
  };
  // Commits pending_ as one batch: called with `lock` (on mu_) held, releases it while writing.
  void commit_pending(std::unique_lock<std::mutex>& lock);
  const SweepSpec& spec_of(Sweep& s);  // loads it once
  // The runs recorded, in run order, as summarize_sweep takes them. With mu_ held.
  std::vector<SweepRunResult> run_results(Sweep& s);

  std::mutex store_mu_;  // store_'s connection: after mu_ when both are taken
  SweepCoordinatorStore store_;
  TokenStore& tokens_;
  EventBus& bus_;
  Options options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Sweep>> sweeps_;
  int64_t next_number_ = 1;
  size_t waiters_ = 0;
  bool closed_ = false;
  // Group commit of posted runs (post_runs): runs waiting for the next batch, its number, the
  // last batch committed, whether a poster is committing one now, and batches that failed.
  std::vector<PendingRun> pending_;
  uint64_t next_batch_ = 1, committed_batch_ = 0;
  bool committing_ = false;
  std::condition_variable committed_cv_;
  std::map<uint64_t, std::string> failed_batches_;
};

}  // namespace gantry::web
