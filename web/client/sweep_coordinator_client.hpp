#pragma once
// The typed client of gantry serve's distributed sweeps (web/API.md, "Distributed sweeps"), for
// `gantry sweep --on kubernetes` (submit, wait, result, cancel) and `gantry sweep-worker`
// (shard, post_runs, report_failure, wait for the end). One request at a time; not
// thread-safe (one client per thread), like the HttpClient under it.
//
// Errors, all GantryError (the CLI prints them and exits 1/2):
//  - the server cannot be reached: SweepServerUnreachable naming the URL and curl's reason;
//  - an HTTP error: SweepServerError with the status, the server's code and its message
//    ("gantry serve at URL: 409 conflict: run 3 is recorded with ..."); a 400 "invalid" lists
//    every error of the sweep as "file:line:col: field: message", one a line.

#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "sim/sweep/sweep_documents.hpp"
#include "sim/sweep/sweep_shards.hpp"
#include "sim/sweep/sweep_wire.hpp"
#include "web/client/http_client.hpp"

namespace gantry::web {

struct SweepServerUnreachable : GantryError {
  using GantryError::GantryError;
};

struct SweepServerError : GantryError {
  SweepServerError(long http_status, std::string error_code, const std::string& message)
      : GantryError(message), status(http_status), code(std::move(error_code)) {}
  long status;
  std::string code;  // the server's: not_found, conflict, invalid, forbidden, ...
};

struct SweepSubmission {
  std::string id;  // a DNS label (a Job's name may use it)
  size_t shards = 0, runs = 0;
  std::string token;  // the workers' token: into the pods' Secret, shown nowhere else
  std::string url;    // the sweep's path on the server (/api/v1/distributed-sweeps/ID)
};

struct SweepShard {
  SweepDocuments documents;
  std::string state;  // running, done, cancelled
  size_t shard = 0, shards = 0;
  ShardRange range;
  std::set<size_t> recorded;  // runs of the range the server holds already
};

struct SweepProgress {
  std::string state;  // running, done, cancelled
  size_t done = 0, total = 0, failures = 0;
  // > 0: the server had too many waiting and answered at once; wait this long before the next.
  long long retry_after_ms = 0;
};

struct PostedRunsAnswer {
  size_t recorded = 0, duplicates = 0, done = 0, total = 0;
  std::string state;
};

class SweepCoordinatorClient {
 public:
  // `server_url` like "http://127.0.0.1:8080"; `token` an admin's (CLI) or the sweep's workers'.
  // `abandon`: see ClientOptions (a worker's watch for cancellation, stopped when it is done).
  SweepCoordinatorClient(std::string server_url, std::string token, std::string ca_file = "",
                         const std::atomic<bool>* abandon = nullptr);

  SweepSubmission submit(const SweepDocuments& documents, size_t shards);
  SweepShard shard(const std::string& id, size_t shard);
  PostedRunsAnswer post_runs(const std::string& id, size_t shard,
                             const std::vector<PostedRun>& runs);
  void report_failure(const std::string& id, size_t shard, const std::string& message);

  // One long poll: returns once the sweep's runs done differ from `after` (after < 0: once it
  // ends), it ends, or `timeout` (at most 60 s) passes. Honour retry_after_ms before the next.
  SweepProgress wait(const std::string& id, long long after, std::chrono::seconds timeout);

  // The sweep's JSON: state, runs, failures [{"shard","at","message"}], and when done
  // "result" (what `gantry sweep --format json` prints, without its file paths), "report"
  // (the text it prints) and "charts" [{"name","svg"}].
  nlohmann::json get(const std::string& id);
  // Cancels it (idempotent); SweepServerError 409 when it is done already.
  nlohmann::json cancel(const std::string& id);

  const std::string& server_url() const { return url_; }

 private:
  nlohmann::json call(const std::string& method, const std::string& path,
                      const nlohmann::json& body = nullptr);
  std::string url_;
  std::unique_ptr<HttpClient> http_;
};

}  // namespace gantry::web
