// The distributed sweeps' coordinator through its REST API, on a real server on loopback, with
// the typed client the CLI and the workers use: idempotent runs, conflicts, scoped tokens,
// long polls, cancellation, failures, bad sweeps, and a restart on the same database. The
// posted figures here are made up (the workers' own simulations are the end-to-end tests'
// business, tests/tools/sweep_worker_command_test.cpp): what matters is what the server keeps.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/store/database.hpp"
#include "tests/web/temp_dir.hpp"
#include "web/client/http_client.hpp"
#include "web/client/sweep_coordinator_client.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/http_server.hpp"

namespace gantry::web {
namespace sweep_coordinator_test {

std::string quickstart() {
  std::ifstream in(std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// 2 placements × 2 rack sizes = 4 points, 3 seeds: 12 runs, 2 metrics each.
SweepDocuments grid(const std::string& placements = "[binpack, spread]") {
  SweepDocuments d;
  d.root = "/home/me/what-if";
  d.sweep = "sweeps/grid.yaml";
  d.files["sweeps/grid.yaml"] = R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: grid}
spec:
  base: ../quickstart.yaml
  seeds: 3
  axes:
  - {name: placement, path: spec.policy.placement, values: )" +
                                placements + R"(}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 8]}
  metrics: [wait.p95, jobs.finished]
)";
  d.files["quickstart.yaml"] = quickstart();
  return d;
}

PostedRun run(size_t index, uint64_t fingerprint = 1000) {
  return {index, 42 + index % 3, fingerprint + index, {60.0 * static_cast<double>(index), 5}};
}

class SweepCoordinatorApi : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    start();
    admin_ = tokens_->create(TokenRole::kAdmin, "test");
  }
  void TearDown() override {
    stop();
    TempDirTest::TearDown();
  }
  void start() {
    const std::string db = (dir_ / "g.db").string();
    tokens_ = std::make_unique<TokenStore>(db);
    coordinator_ = std::make_unique<SweepCoordinator>(db, *tokens_, bus_);
    api_ = std::make_unique<ApiServer>(*tokens_, ApiOptions{.ui_root = dir_ / "ui"});
    add_distributed_sweep_routes(api_->router(), *coordinator_);
    server_ = std::make_unique<HttpServer>(HttpServerOptions{.listen = "127.0.0.1:0", .threads = 8},
                                           [this](HttpRequest& r) { return api_->dispatch(r); });
  }
  void stop() {
    if (coordinator_) coordinator_->close();
    server_.reset();
    api_.reset();
    coordinator_.reset();
    tokens_.reset();
  }
  SweepCoordinatorClient client(const std::string& token) {
    return SweepCoordinatorClient(server_->url(), token);
  }
  // The status of `f`'s SweepServerError (0: none thrown).
  template <typename F>
  long status_of(F&& f) {
    try {
      f();
    } catch (const SweepServerError& e) {
      message_ = e.what();
      return e.status;
    }
    return 0;
  }

  EventBus bus_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<SweepCoordinator> coordinator_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<HttpServer> server_;
  std::string admin_, message_;
};

TEST_F(SweepCoordinatorApi, SubmitSplitsTheRunsIntoShards) {
  const SweepSubmission s = client(admin_).submit(grid(), 5);
  EXPECT_EQ(s.runs, 12u);  // 4 points × 3 seeds
  EXPECT_EQ(s.shards, 5u);
  EXPECT_EQ(s.id.rfind("sw-1-", 0), 0u) << s.id;
  EXPECT_EQ(s.id.size(), 11u);  // "sw-1-" and 6 letters or digits: a DNS label
  // 12 runs in 5 shards: 3, 3, 2, 2, 2 (the first ones the larger).
  SweepCoordinatorClient worker = client(s.token);
  const SweepShard first = worker.shard(s.id, 0), third = worker.shard(s.id, 2),
                   last = worker.shard(s.id, 4);
  EXPECT_EQ(first.range.begin, 0u);
  EXPECT_EQ(first.range.end, 3u);
  EXPECT_EQ(third.range.begin, 6u);
  EXPECT_EQ(third.range.end, 8u);
  EXPECT_EQ(last.range.end, 12u);
  EXPECT_EQ(first.state, "running");
  EXPECT_EQ(first.documents.files, grid().files);
  EXPECT_EQ(first.documents.root, "/home/me/what-if");
  EXPECT_EQ(status_of([&] { worker.shard(s.id, 5); }), 404);
  EXPECT_NE(message_.find("shards 0 to 4"), std::string::npos) << message_;
}

TEST_F(SweepCoordinatorApi, ARunPostedTwiceIsCountedOnceAndADifferentFingerprintIsAConflict) {
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  SweepCoordinatorClient worker = client(s.token);
  PostedRunsAnswer a = worker.post_runs(s.id, 1, {run(3), run(4)});
  EXPECT_EQ(a.recorded, 2u);
  EXPECT_EQ(a.done, 2u);
  // A retried pod posts run 3 again, and then its next run.
  a = worker.post_runs(s.id, 1, {run(3), run(5)});
  EXPECT_EQ(a.recorded, 1u);
  EXPECT_EQ(a.duplicates, 1u);
  EXPECT_EQ(a.done, 3u);  // 3, 4, 5: once each
  // Another worker computed run 4 differently: refused, and nothing of its batch is kept.
  EXPECT_EQ(status_of([&] { worker.post_runs(s.id, 1, {run(4, 7)}); }), 409);
  EXPECT_NE(message_.find("disagree"), std::string::npos) << message_;
  EXPECT_EQ(worker.shard(s.id, 1).recorded, (std::set<size_t>{3, 4, 5}));
  // Outside its shard's range (shard 1 has runs 3 to 5), or the wrong number of metrics.
  EXPECT_EQ(status_of([&] { worker.post_runs(s.id, 1, {run(6)}); }), 400);
  EXPECT_NE(message_.find("not a run of shard 1 (runs 3 to 5)"), std::string::npos) << message_;
  PostedRun short_run = run(3);
  short_run.metrics.pop_back();
  EXPECT_EQ(status_of([&] { worker.post_runs(s.id, 1, {short_run}); }), 400);
  EXPECT_NE(message_.find("expected 2 values"), std::string::npos) << message_;
}

TEST_F(SweepCoordinatorApi, PostsOfTheSameRunsAtOnceRecordEachRunOnce) {
  // Four pods of the same shard (a retry racing the original) post its three runs at once:
  // the group commit must record each once, and answer every post only once it is stored.
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  constexpr int kPosters = 4;
  std::vector<size_t> recorded(kPosters), duplicates(kPosters);
  std::vector<std::thread> posters;
  for (int p = 0; p < kPosters; ++p)
    posters.emplace_back([&, p] {
      SweepCoordinatorClient worker(server_->url(), s.token);
      for (size_t r = 0; r < 3; ++r) {
        const PostedRunsAnswer a = worker.post_runs(s.id, 0, {run(r)});
        recorded[p] += a.recorded;
        duplicates[p] += a.duplicates;
        EXPECT_GE(a.done, r + 1);  // its own run is stored when it is answered
      }
    });
  for (std::thread& t : posters) t.join();
  size_t all_recorded = 0;
  for (int p = 0; p < kPosters; ++p) {
    EXPECT_EQ(recorded[p] + duplicates[p], 3u);  // each post is one or the other
    all_recorded += recorded[p];
  }
  EXPECT_EQ(all_recorded, 3u);  // runs 0, 1, 2: once each, 9 duplicates
  EXPECT_EQ(client(admin_).get(s.id)["runs"]["done"], 3);
}

TEST_F(SweepCoordinatorApi, AWorkerTokenReachesOnlyItsOwnSweepsShards) {
  const SweepSubmission a = client(admin_).submit(grid(), 2);
  const SweepSubmission b = client(admin_).submit(grid(), 2);
  SweepCoordinatorClient worker_a = client(a.token);
  EXPECT_EQ(status_of([&] { worker_a.shard(b.id, 0); }), 403);
  EXPECT_EQ(status_of([&] { worker_a.post_runs(b.id, 0, {run(0)}); }), 403);
  EXPECT_EQ(status_of([&] { worker_a.cancel(a.id); }), 403);  // cancelling is the user's
  EXPECT_EQ(status_of([&] { worker_a.submit(grid(), 1); }), 403);
  HttpClient raw(server_->url(), {.token = a.token});
  EXPECT_EQ(raw.get("/api/v1/distributed-sweeps").status, 403);
  const std::string unknown = "gty_" + std::string(64, 'a');
  EXPECT_EQ(status_of([&] { client(unknown).shard(a.id, 0); }), 401);
  // Its own: fine.
  EXPECT_EQ(worker_a.post_runs(a.id, 0, {run(0)}).recorded, 1u);
}

TEST_F(SweepCoordinatorApi, ARunningSweepGivesItsFiguresSoFar) {
  // What the web UI shows filling in: each point's mean over the seeds recorded so far.
  const SweepSubmission s = client(admin_).submit(grid(), 2);
  SweepCoordinatorClient worker = client(s.token);
  // Runs 0 to 3: point 0 (binpack, 6) has its 3 seeds, point 1 (binpack, 8) one, 2 and 3 none.
  worker.post_runs(s.id, 0, {run(0), run(1), run(2), run(3)});
  const nlohmann::json j = client(admin_).get(s.id);
  EXPECT_EQ(j["state"], "running");
  EXPECT_FALSE(j.contains("report"));  // the final report is the done sweep's
  EXPECT_FALSE(j.contains("charts"));
  ASSERT_TRUE(j.contains("partial")) << j.dump();
  const nlohmann::json& points = j["partial"]["result"]["points"];
  ASSERT_EQ(points.size(), 4u);
  // run(i) posts wait.p95 = 60 × i: point 0's mean (0 + 60 + 120) / 3 = 60.
  EXPECT_EQ(points[0]["values"]["placement"], "binpack");
  EXPECT_EQ(points[0]["values"]["nodes"], "6");
  EXPECT_DOUBLE_EQ(points[0]["metrics"]["wait.p95"]["mean"].get<double>(), 60.0);
  EXPECT_EQ(points[0]["metrics"]["wait.p95"]["n"], 3);
  EXPECT_TRUE(points[0]["metrics"]["wait.p95"]["ci95"].is_number());
  // Point 1: run 3 alone, 180, no interval from one value; point 2: nothing yet.
  EXPECT_DOUBLE_EQ(points[1]["metrics"]["wait.p95"]["mean"].get<double>(), 180.0);
  EXPECT_EQ(points[1]["metrics"]["wait.p95"]["n"], 1);
  EXPECT_TRUE(points[1]["metrics"]["wait.p95"]["ci95"].is_null());
  EXPECT_EQ(points[2]["metrics"]["wait.p95"]["n"], 0);
  EXPECT_TRUE(points[2]["metrics"]["wait.p95"]["mean"].is_null());
  const std::string report = j["partial"]["report"];
  EXPECT_NE(report.find("runs 4 of 12"), std::string::npos) << report;
  // The list and the events stay light: no figures.
  const ClientResponse list =
      HttpClient(server_->url(), {.token = admin_}).get("/api/v1/distributed-sweeps");
  EXPECT_EQ(list.body.find("partial"), std::string::npos);
  // Done: the result, no partial.
  std::vector<PostedRun> rest;
  for (size_t i = 4; i < 6; ++i) rest.push_back(run(i));
  worker.post_runs(s.id, 0, rest);
  rest.clear();
  for (size_t i = 6; i < 12; ++i) rest.push_back(run(i));
  worker.post_runs(s.id, 1, rest);
  const nlohmann::json done = client(admin_).get(s.id);
  EXPECT_EQ(done["state"], "done");
  EXPECT_FALSE(done.contains("partial"));
  EXPECT_TRUE(done.contains("report"));
}

TEST_F(SweepCoordinatorApi, TheLastRunEndsTheSweepRevokesTheTokenAndGivesTheResult) {
  const SweepSubmission s = client(admin_).submit(grid(), 2);
  SweepCoordinatorClient worker = client(s.token);
  std::vector<PostedRun> first, second;
  for (size_t i = 0; i < 6; ++i) first.push_back(run(i));
  for (size_t i = 6; i < 12; ++i) second.push_back(run(i));
  worker.post_runs(s.id, 0, first);
  EXPECT_EQ(worker.post_runs(s.id, 1, second).state, "done");
  EXPECT_EQ(status_of([&] { worker.shard(s.id, 0); }), 410);  // its token is ended
  EXPECT_NE(message_.find("sweep " + s.id + " has ended"), std::string::npos) << message_;
  const nlohmann::json j = client(admin_).get(s.id);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["result"]["runs"]["done"], 12);
  // The base as the user's own `gantry sweep` names it: the root and the document's key.
  EXPECT_EQ(j["result"]["base"], "/home/me/what-if/quickstart.yaml");
  // Point 0 (binpack, 6) has runs 0, 1, 2 with wait.p95 0, 60, 120 s: mean 60.
  EXPECT_EQ(j["result"]["points"][0]["metrics"]["wait.p95"]["mean"], 60.0);
  EXPECT_EQ(j["result"]["points"][0]["metrics"]["wait.p95"]["n"], 3);
  EXPECT_NE(j["report"].get<std::string>().find("runs 12 of 12"), std::string::npos) << j["report"];
  EXPECT_EQ(j["charts"].size(), 2u);  // one per metric
  EXPECT_EQ(status_of([&] { client(admin_).cancel(s.id); }), 409);
}

TEST_F(SweepCoordinatorApi, ALongPollReturnsWhenTheCountChangesOrTheSweepIsCancelled) {
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  SweepCoordinatorClient worker = client(s.token);
  worker.post_runs(s.id, 0, {run(0)});
  // The count differs from the caller's: at once.
  SweepProgress p = client(admin_).wait(s.id, 0, std::chrono::seconds(60));
  EXPECT_EQ(p.done, 1u);
  EXPECT_EQ(p.total, 12u);
  // A pod's watch for the end, on a thread; cancelling ends it, whichever comes first.
  SweepProgress watched;
  std::thread watch([&] { watched = client(s.token).wait(s.id, -1, std::chrono::seconds(60)); });
  // Cancelling revokes the pods' token: the watch must be waiting first (the server counts it).
  while (coordinator_->waiting() == 0) std::this_thread::yield();
  const nlohmann::json cancelled = client(admin_).cancel(s.id);
  watch.join();
  EXPECT_EQ(cancelled["state"], "cancelled");
  EXPECT_EQ(watched.state, "cancelled");
  EXPECT_EQ(client(admin_).cancel(s.id)["state"], "cancelled");  // again: the same
  // Its pods' token is ended; an admin's late post is refused.
  EXPECT_EQ(status_of([&] { worker.post_runs(s.id, 0, {run(1)}); }), 410);
  EXPECT_EQ(status_of([&] { client(admin_).post_runs(s.id, 0, {run(1)}); }), 409);
  EXPECT_NE(message_.find("cancelled"), std::string::npos) << message_;
}

TEST_F(SweepCoordinatorApi, LongPollsBeyondTheLimitAreToldToRetryInsteadOfWaiting) {
  stop();
  const std::string db = (dir_ / "g.db").string();
  tokens_ = std::make_unique<TokenStore>(db);
  coordinator_ = std::make_unique<SweepCoordinator>(db, *tokens_, bus_,
                                                    SweepCoordinator::Options{.max_waiters = 1});
  api_ = std::make_unique<ApiServer>(*tokens_, ApiOptions{.ui_root = dir_ / "ui"});
  add_distributed_sweep_routes(api_->router(), *coordinator_);
  server_ = std::make_unique<HttpServer>(HttpServerOptions{.listen = "127.0.0.1:0", .threads = 8},
                                         [this](HttpRequest& r) { return api_->dispatch(r); });
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  // The first waits on its thread until the cancel. Until it holds the one place, a poll of
  // ours may take it instead (and answer after its second): ask until one is refused, which
  // shows the first waiting.
  SweepProgress first;
  std::thread waiting([&] {
    do {
      first = client(admin_).wait(s.id, -1, std::chrono::seconds(60));
    } while (first.retry_after_ms > 0);  // ours held the place: ask again
  });
  SweepProgress second;
  do {
    second = client(admin_).wait(s.id, -1, std::chrono::seconds(1));
  } while (second.retry_after_ms == 0 && second.state == "running");
  EXPECT_GT(second.retry_after_ms, 0);
  EXPECT_EQ(second.state, "running");
  client(admin_).cancel(s.id);
  waiting.join();
  EXPECT_EQ(first.state, "cancelled");
}

TEST_F(SweepCoordinatorApi, AShardsFailureIsKeptAndShown) {
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  client(s.token).report_failure(s.id, 2, "shard 2 failed: out of memory");
  const nlohmann::json j = client(admin_).get(s.id);
  ASSERT_EQ(j["failures"].size(), 1u);
  EXPECT_EQ(j["failures"][0]["shard"], 2);
  EXPECT_EQ(j["failures"][0]["message"], "shard 2 failed: out of memory");
}

TEST_F(SweepCoordinatorApi, ABadSweepIsRefusedNamingTheLineInTheUsersFolder) {
  // 'binpak' is the first value of spec.axes[0].values, on line 8 of the sweep file.
  EXPECT_EQ(status_of([&] { client(admin_).submit(grid("[binpak, spread]"), 4); }), 400);
  EXPECT_NE(message_.find("/home/me/what-if/sweeps/grid.yaml:8:"), std::string::npos) << message_;
  EXPECT_NE(message_.find("spec.axes[0].values[0]"), std::string::npos) << message_;
  EXPECT_NE(message_.find("binpak"), std::string::npos) << message_;
  // Nothing was stored.
  EXPECT_TRUE(coordinator_->list().empty());
  // A document outside the sweep's folder, a base that names a file of the server's.
  SweepDocuments escape = grid();
  escape.files["../../etc/passwd"] = "x";
  EXPECT_EQ(status_of([&] { client(admin_).submit(escape, 4); }), 400);
  EXPECT_NE(message_.find("'..' is not allowed"), std::string::npos) << message_;
  SweepDocuments bad_trace = grid();
  std::string& base = bad_trace.files["quickstart.yaml"];
  const size_t cluster = base.find("cluster:");
  ASSERT_NE(cluster, std::string::npos);
  base.insert(base.find('\n', cluster) + 1,
              "    trace: {format: openb-nodes, file: /etc/passwd}\n");
  EXPECT_EQ(status_of([&] { client(admin_).submit(bad_trace, 4); }), 400);
  EXPECT_NE(message_.find("absolute path"), std::string::npos) << message_;
  EXPECT_EQ(message_.find("root:"), std::string::npos) << message_;  // nothing of the file
}

TEST_F(SweepCoordinatorApi, ASweepAndItsRunsSurviveARestart) {
  const SweepSubmission s = client(admin_).submit(grid(), 4);
  client(s.token).post_runs(s.id, 0, {run(0), run(1)});
  client(s.token).report_failure(s.id, 3, "shard 3 failed: evicted");
  stop();
  start();
  SweepCoordinatorClient worker = client(s.token);  // still its token
  const SweepShard shard = worker.shard(s.id, 0);
  EXPECT_EQ(shard.recorded, (std::set<size_t>{0, 1}));
  EXPECT_EQ(shard.state, "running");
  // Run 1 again (not counted), then the other ten.
  std::vector<PostedRun> rest;
  for (size_t i = 1; i < 3; ++i) rest.push_back(run(i));
  EXPECT_EQ(worker.post_runs(s.id, 0, rest).recorded, 1u);
  for (size_t k = 1; k < 4; ++k) {
    std::vector<PostedRun> runs;
    for (size_t i = 3 * k; i < 3 * k + 3; ++i) runs.push_back(run(i));
    worker.post_runs(s.id, k, runs);
  }
  const nlohmann::json j = client(admin_).get(s.id);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["runs"]["done"], 12);
  EXPECT_EQ(j["failures"][0]["message"], "shard 3 failed: evicted");
  // A second sweep after the restart gets the next number.
  EXPECT_EQ(client(admin_).submit(grid(), 1).id.rfind("sw-2-", 0), 0u);
}

TEST_F(SweepCoordinatorApi, TheServerUnreachableIsNamedWithItsUrl) {
  SweepCoordinatorClient nowhere("http://127.0.0.1:1", admin_);
  try {
    nowhere.shard("sw-1-abcdef", 0);
    FAIL() << "no error";
  } catch (const SweepServerUnreachable& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach gantry serve at http://127.0.0.1:1"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepWorkerTokens, ADatabaseFromBeforeScopedTokensGainsTheColumn) {
  std::string pattern = (std::filesystem::temp_directory_path() / "gantry-web-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const std::string db = pattern + "/old.db";
  {
    Database d = Database::open(db, {.wal = true});
    d.exec(
        "CREATE TABLE api_tokens(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, "
        "role TEXT NOT NULL, name TEXT NOT NULL, created_us INTEGER NOT NULL)");
  }
  {
    TokenStore tokens(db);
    const std::string t = tokens.create(TokenRole::kSweepWorker, "w", "sw-1-abcdef");
    const auto info = tokens.verify(t);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->role, TokenRole::kSweepWorker);
    EXPECT_EQ(info->scope, "sw-1-abcdef");
    EXPECT_EQ(tokens.revoke_scope("sw-1-abcdef"), 1);
    EXPECT_EQ(tokens.verify(t)->role, TokenRole::kSweepEnded);  // grants nothing (ApiServer: 410)
  }
  std::filesystem::remove_all(pattern);
}

}  // namespace sweep_coordinator_test
}  // namespace gantry::web
