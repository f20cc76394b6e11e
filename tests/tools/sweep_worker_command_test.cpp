// Distributed sweeps end to end, with the real programs: `gantry serve` as the coordinator and
// `gantry sweep-worker` processes as the pods of an Indexed Job would run them (what Kubernetes
// adds, the pods and their JOB_COMPLETION_INDEX, is the kube tests' business). The merged result
// is the local `gantry sweep`'s, figure for figure; a worker killed half-way loses nothing and
// repeats nothing; a cancel stops a worker; a restarted server keeps the sweep and its runs.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "sim/sweep/sweep_documents.hpp"
#include "tests/tools/grid_sweep.hpp"
#include "tests/tools/serve_test.hpp"
#include "web/client/sweep_coordinator_client.hpp"

namespace gantry {
namespace sweep_worker_command_test {

using testing::kGantry;
using testing::kGantryFaulty;
using testing::Outcome;
using web::SweepCoordinatorClient;

class SweepWorker : public testing::ServeTest {
 protected:
  void SetUp() override {
    ServeTest::SetUp();
    sweep_ = testing::write_grid_sweep(dir_);  // 12 runs, 4 shards of 3
  }
  // What `gantry sweep --format json` prints, without the paths of its own files.
  nlohmann::json local_json() {
    const Outcome o =
        run("sweep " + sweep_ + " --format json --no-progress --out " + (dir_ / "local").string());
    EXPECT_EQ(o.exit_code(), 0) << o.err;
    nlohmann::json j = nlohmann::json::parse(o.out);
    j.erase("results");
    j.erase("charts");
    return j;
  }
  // Its text report, up to the lines that name its files.
  std::string local_text() {
    const Outcome o =
        run("sweep " + sweep_ + " --no-progress --out " + (dir_ / "local-text").string());
    EXPECT_EQ(o.exit_code(), 0) << o.err;
    return o.out.substr(0, o.out.find("  results "));
  }
  web::SweepSubmission submit(const std::string& url, size_t shards) {
    return SweepCoordinatorClient(url, token()).submit(collect_sweep_documents(sweep_), shards);
  }
  std::string worker_args(const std::string& url, const std::string& id, size_t shard) {
    return "sweep-worker --sweep " + id + " --server " + url + " --shard " + std::to_string(shard);
  }
  // Runs shard `shard` to its end in a worker process.
  Outcome work(const std::string& url, const web::SweepSubmission& s, size_t shard) {
    return run(worker_args(url, s.id, shard), "GANTRY_TOKEN=" + s.token);
  }
  std::string sweep_;
};

TEST_F(SweepWorker, FourWorkersGiveTheLocalSweepsResultFigureForFigure) {
  auto server = serve();
  const web::SweepSubmission s = submit(server->url(), 4);
  ASSERT_EQ(s.shards, 4u);
  ASSERT_EQ(s.runs, 12u);
  // The four pods at once, as a Job with parallelism 4 runs them.
  std::vector<pid_t> pids;
  for (size_t k = 0; k < 4; ++k)
    pids.push_back(start(worker_args(server->url(), s.id, k), "GANTRY_TOKEN=" + s.token,
                         "worker" + std::to_string(k)));
  for (size_t k = 0; k < 4; ++k) {
    int status = 0;
    ::waitpid(pids[k], &status, 0);
    const Outcome o = outcome_of(status, "worker" + std::to_string(k));
    EXPECT_EQ(o.exit_code(), 0) << o.err;
    EXPECT_NE(o.out.find("done, 3 runs posted"), std::string::npos) << o.out;
  }
  const nlohmann::json j = SweepCoordinatorClient(server->url(), token()).get(s.id);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["result"], local_json());
  EXPECT_EQ(j["report"].get<std::string>() + "\n", local_text());
  // A pod the Job starts again after the end (a retry of an index) exits cleanly.
  const Outcome late = work(server->url(), s, 2);
  EXPECT_EQ(late.exit_code(), 0) << late.err;
  EXPECT_NE(late.out.find("sweep " + s.id + " has ended"), std::string::npos) << late.out;
}

TEST_F(SweepWorker, AWorkerKilledHalfWayKeepsItsFinishedRunsAndTheRetryRepeatsNone) {
  auto server = serve();
  const web::SweepSubmission s = submit(server->url(), 4);
  // Shard 1 (runs 3, 4, 5) dies right after the server acknowledged its first run.
  const Outcome killed =
      run(worker_args(server->url(), s.id, 1),
          "GANTRY_TOKEN=" + s.token + " GANTRY_CRASH_AFTER_POSTS=1", kGantryFaulty);
  ASSERT_TRUE(WIFSIGNALED(killed.status)) << killed.out << killed.err;
  EXPECT_EQ(WTERMSIG(killed.status), SIGKILL);
  SweepCoordinatorClient admin(server->url(), token());
  EXPECT_EQ(admin.shard(s.id, 1).recorded, (std::set<size_t>{3}));
  // The Job retries the index: the new pod runs the other two only.
  const Outcome retried = work(server->url(), s, 1);
  EXPECT_EQ(retried.exit_code(), 0) << retried.err;
  EXPECT_NE(retried.out.find("runs 3 to 5, 1 recorded already, 2 to run"), std::string::npos)
      << retried.out;
  EXPECT_NE(retried.out.find("done, 2 runs posted"), std::string::npos) << retried.out;
  for (size_t k : {0, 2, 3}) EXPECT_EQ(work(server->url(), s, k).exit_code(), 0);
  const nlohmann::json j = admin.get(s.id);
  EXPECT_EQ(j["runs"]["done"], 12);  // 3 × 4, none twice
  EXPECT_EQ(j["result"], local_json());
}

TEST_F(SweepWorker, CancellingEndsTheLongPollAndStopsTheWorker) {
  auto server = serve();
  const web::SweepSubmission s = submit(server->url(), 2);
  // A worker stopped (SIGSTOP) right after its first run was recorded: mid-shard.
  const pid_t pid =
      start(worker_args(server->url(), s.id, 0),
            "GANTRY_TOKEN=" + s.token + " GANTRY_STOP_AFTER_POSTS=1", "worker", kGantryFaulty);
  int status = 0;
  ::waitpid(pid, &status, WUNTRACED);
  ASSERT_TRUE(WIFSTOPPED(status));
  // The CLI's wait for the end, on a thread; the cancel ends it.
  web::SweepProgress seen;
  std::thread waiting([&] {
    seen = SweepCoordinatorClient(server->url(), token()).wait(s.id, -1, std::chrono::seconds(60));
  });
  EXPECT_EQ(SweepCoordinatorClient(server->url(), token()).cancel(s.id)["state"], "cancelled");
  waiting.join();
  EXPECT_EQ(seen.state, "cancelled");
  EXPECT_EQ(seen.done, 1u);
  ::kill(pid, SIGCONT);
  ::waitpid(pid, &status, 0);
  const Outcome o = outcome_of(status, "worker");
  EXPECT_EQ(o.exit_code(), 0) << o.out << o.err;
  EXPECT_NE((o.out + o.err).find("cancelled"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(SweepCoordinatorClient(server->url(), token()).get(s.id)["runs"]["done"], 1);
}

TEST_F(SweepWorker, ARestartedServerKeepsTheSweepAndItsRuns) {
  auto server = serve();
  const web::SweepSubmission s = submit(server->url(), 4);
  for (size_t k : {0, 1}) EXPECT_EQ(work(server->url(), s, k).exit_code(), 0);
  server->signal(SIGTERM);
  server->wait();
  server = serve({}, "serve2");
  SweepCoordinatorClient admin(server->url(), token());
  nlohmann::json j = admin.get(s.id);
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["runs"]["done"], 6);  // shards 0 and 1: 3 runs each
  for (size_t k : {2, 3}) EXPECT_EQ(work(server->url(), s, k).exit_code(), 0);
  j = admin.get(s.id);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["result"], local_json());
}

TEST_F(SweepWorker, AWorkerSaysWhatIsMissingOrWrong) {
  Outcome o = run("sweep-worker --sweep sw-1-abcdef --server http://127.0.0.1:1", "GANTRY_TOKEN=x");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("--shard"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("JOB_COMPLETION_INDEX"), std::string::npos) << o.err;
  o = run("sweep-worker --sweep sw-1-abcdef --server http://127.0.0.1:1",
          "GANTRY_TOKEN=x JOB_COMPLETION_INDEX=two");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("JOB_COMPLETION_INDEX: expected a whole number from 0, got 'two'"),
            std::string::npos)
      << o.err;
  o = run("sweep-worker --sweep sw-1-abcdef --server http://127.0.0.1:1 --shard 0");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("GANTRY_TOKEN is not set"), std::string::npos) << o.err;
  o = run("sweep-worker --sweep sw-1-abcdef --server http://127.0.0.1:1",
          "GANTRY_TOKEN=x JOB_COMPLETION_INDEX=0");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("cannot reach gantry serve at http://127.0.0.1:1"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("reach gantry serve"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("pods"), std::string::npos) << o.err;
}

}  // namespace sweep_worker_command_test
}  // namespace gantry
