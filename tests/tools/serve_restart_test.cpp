// Issue 22: a restart of `gantry serve` keeps everything the server stores. A real server, with
// every kind of document and state it keeps — pools and pipelines from its --pipelines folder
// and from the API (a pipeline naming a pool of another file or request: the case that was
// lost), a paused pipeline, a viewer token, runs in every state (queued, running, succeeded,
// failed, skipped, expired, killed) and attempts in every state the world produces (running,
// succeeded, failed, timeout, killed) — is stopped by SIGTERM or by kill -9 and started again on
// the same database and folder. Afterwards:
//  - the catalog is the same, row for row (not even re-applied: its update times did not move),
//    and the API lists the same pipelines, paused flags and pools; the tokens still work;
//  - every run is still there; a finished one is exactly as it was, with its attempts;
//  - a run in flight kept its attempts, and the ones that were open were settled by the restart
//    rules (RESTART in workflow/runner/run_scheduler.hpp: ended `lost`, no earlier than any
//    instant stored before the stop, and run again);
//  - time never went back: no attempt ends before it starts, every new attempt starts no earlier
//    than the latest instant stored before the stop, and attempt ids were never reused;
//  - the paused pipeline stayed paused (no run of it after the restart).
// What-if simulations live in the server's memory only (web/API.md): a restart forgets them.

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/time.hpp"
#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/tools/cli_harness.hpp"
#include "tests/tools/event_stream.hpp"
#include "tests/tools/serve_process.hpp"
#include "web/client/http_client.hpp"

namespace gantry::testing {
namespace serve_restart_test {

namespace fs = std::filesystem;

const std::string kSource = GANTRY_SOURCE_DIR;

// Every stored row of a run, its task instances and its attempts, as text.
struct StoredRun {
  std::string pipeline, trigger, state;
  int64_t logical = 0, start = -1, end = -1;
  std::vector<std::string> tasks;  // "name state"
  struct Attempt {
    std::string key;  // "task/idx"
    int64_t start = 0, end = -1, running = -1, id = 0;
    std::string state;
    std::string text() const {
      return key + " " + std::to_string(start) + " " + std::to_string(running) + " " +
             std::to_string(end) + " " + state + " " + std::to_string(id);
    }
  };
  std::vector<Attempt> attempts;  // by task, then index
  bool finished() const { return state != "queued" && state != "running"; }
};

struct Snapshot {
  std::map<std::pair<std::string, int64_t>, StoredRun> runs;  // by (pipeline, logical time)
  std::vector<std::string> documents;                         // every server_documents row
  std::vector<std::string> tokens;                            // every api_tokens row
  int64_t latest = 0;  // the latest instant stored: run, attempt or event
};

Snapshot read_database(const std::string& path) {
  Snapshot s;
  Database d = Database::open(path, {.create = false, .read_only = true});
  std::map<int64_t, std::pair<std::string, int64_t>> key_of;
  const auto or_null = [](Statement& st, int col) {
    return st.column_is_null(col) ? int64_t{-1} : st.column_int64(col);
  };
  Statement r =
      d.prepare("SELECT id, pipeline, logical_us, trigger, state, start_us, end_us FROM runs");
  while (r.step()) {
    StoredRun run;
    run.pipeline = r.column_text(1);
    run.logical = r.column_int64(2);
    run.trigger = r.column_text(3);
    run.state = r.column_text(4);
    run.start = or_null(r, 5);
    run.end = or_null(r, 6);
    key_of[r.column_int64(0)] = {run.pipeline, run.logical};
    s.runs[{run.pipeline, run.logical}] = run;
  }
  Statement t =
      d.prepare("SELECT run_id, name, state FROM task_instances ORDER BY run_id, position");
  while (t.step())
    s.runs[key_of.at(t.column_int64(0))].tasks.push_back(t.column_text(1) + " " + t.column_text(2));
  Statement a = d.prepare(
      "SELECT run_id, task, idx, start_us, end_us, running_us, state, attempt_id FROM attempts "
      "ORDER BY run_id, task, idx");
  while (a.step()) {
    StoredRun::Attempt at;
    at.key = a.column_text(1) + "/" + std::to_string(a.column_int64(2));
    at.start = a.column_int64(3);
    at.end = or_null(a, 4);
    at.running = or_null(a, 5);
    at.state = a.column_text(6);
    at.id = a.column_int64(7);
    s.runs[key_of.at(a.column_int64(0))].attempts.push_back(at);
  }
  Statement docs = d.prepare(
      "SELECT kind || '/' || name || ' paused=' || paused || ' updated=' || updated_us || '\n' || "
      "yaml FROM server_documents ORDER BY kind, name");
  while (docs.step()) s.documents.push_back(docs.column_text(0));
  Statement tokens = d.prepare(
      "SELECT id || ' ' || hash || ' ' || role || ' ' || name || ' ' || created_us FROM api_tokens "
      "ORDER BY id");
  while (tokens.step()) s.tokens.push_back(tokens.column_text(0));
  Statement latest = d.prepare(
      "SELECT max(v) FROM (SELECT max(logical_us) AS v FROM runs UNION ALL SELECT max(start_us) "
      "FROM runs UNION ALL SELECT max(end_us) FROM runs UNION ALL SELECT max(start_us) FROM "
      "attempts UNION ALL SELECT max(running_us) FROM attempts UNION ALL SELECT max(end_us) FROM "
      "attempts UNION ALL SELECT max(at_us) FROM events)");
  if (latest.step()) s.latest = latest.column_int64(0);
  return s;
}

std::string minute_floor() {
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  return format_rfc3339(Time::from_micros(us / 60'000'000 * 60'000'000));
}

// A pipeline document: `name`, a schedule with `cron` starting at `start` (none when empty),
// the `spec` lines after it (indented by 2) and its tasks.
std::string pipeline(const std::string& name, const std::string& cron, const std::string& start,
                     const std::string& spec, const std::string& tasks) {
  std::string doc =
      "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: " + name + "}\nspec:\n";
  if (!cron.empty()) doc += "  schedule: {cron: \"" + cron + "\", start: " + start + "}\n";
  return doc + spec + "  tasks:\n" + tasks;
}

// A task line of `name` whose simulate block is {`simulate`}, with `extra` fields.
std::string task(const std::string& name, const std::string& simulate,
                 const std::string& extra = "") {
  return "  - {name: " + name + ", image: x, resources: {cpu: \"1\", memory: 1Gi}, simulate: {" +
         simulate + "}" + (extra.empty() ? "" : ", " + extra) + "}\n";
}

class ServeRestart : public CliTest {
 protected:
  std::string db() const { return (dir_ / "g.db").string(); }
  std::vector<std::string> args() const {
    return {"--db",        db(),
            "--listen",    "127.0.0.1:0",
            "--cluster",   kSource + "/scenarios/quickstart.yaml",
            "--scenarios", kSource + "/scenarios",
            "--ui",        (dir_ / "no-ui").string(),
            "--speed",     "6000",
            "--pipelines", (dir_ / "pipelines").string()};
  }
  std::unique_ptr<ServeProcess> serve(const std::string& tag) {
    auto p = std::make_unique<ServeProcess>(kGantry, args(), (dir_ / (tag + ".stderr")).string());
    EXPECT_FALSE(p->url().empty()) << slurp(dir_ / (tag + ".stderr"));
    return p;
  }
  std::string token() const { return read_token(db() + ".token"); }
  // Reads the event stream from the start (the bus keeps its history) until `done` says so.
  void watch(const std::string& url, const EventPredicate& done) {
    watch_events(url, token(), std::chrono::minutes(2), done);
  }
  static std::vector<std::string> listed(web::HttpClient& client) {
    std::vector<std::string> out;
    const auto list = nlohmann::json::parse(client.get("/api/v1/pipelines").body)["pipelines"];
    for (const auto& p : list)
      out.push_back(p["name"].get<std::string>() +
                    " paused=" + (p["paused"].get<bool>() ? "true" : "false"));
    return out;
  }
  static std::vector<std::string> pools(web::HttpClient& client) {
    std::vector<std::string> out;
    const auto list = nlohmann::json::parse(client.get("/api/v1/pools").body)["pools"];
    for (const auto& p : list)
      out.push_back(p["name"].get<std::string>() + " " + std::to_string(p["slots"].get<int>()));
    return out;
  }

  // The whole test; the server is stopped by `stop_signal`.
  void stop_and_start_again(int stop_signal);
};

void ServeRestart::stop_and_start_again(int stop_signal) {
  const std::string start = minute_floor();
  fs::create_directories(dir_ / "pipelines");
  // The folder: the pool `warehouse` beside a Forbid pipeline that uses it (skipped runs), a
  // pipeline of another file that names it and runs one at a time (a queue: queued runs), and
  // one whose runs fail (an attempt timeout, retried, and a failed task).
  std::ofstream(dir_ / "pipelines" / "warehouse.yaml")
      << "apiVersion: gantry.dev/v1\nkind: Pool\nmetadata: {name: warehouse}\n"
         "spec: {slots: 2}\n---\n"
      << pipeline("forbid", "*/10 * * * *", start, "  concurrency: {policy: Forbid}\n",
                  task("load", "duration: 25m", "pool: warehouse"));
  std::ofstream(dir_ / "pipelines" / "backlog.yaml")
      << pipeline("backlog", "*/10 * * * *", start, "  concurrency: {maxActiveRuns: 1}\n",
                  task("crunch", "duration: 30m", "pool: warehouse"));
  std::ofstream(dir_ / "pipelines" / "failing.yaml")
      << pipeline("failing", "*/15 * * * *", start, "",
                  task("slow", "duration: 10m", "timeout: 5m, retry: {limit: 1, delay: 1m}") +
                      task("flaky", "duration: 2m, outcomes: [failed]"));

  auto first = serve("first");
  ASSERT_FALSE(first->url().empty());
  web::HttpClient admin(first->url(), {.token = token()});
  // Through the API: a pool and, in another request, a Replace pipeline using it (killed
  // runs); keepLatest (expired runs); a pipeline to pause; a manual one.
  const auto post = [&](const std::string& yaml) {
    const web::ClientResponse r =
        admin.post("/api/v1/pipelines?paused=false", yaml, "application/yaml");
    EXPECT_EQ(r.status, 201) << r.body;
  };
  post("apiVersion: gantry.dev/v1\nkind: Pool\nmetadata: {name: shared}\nspec: {slots: 1}\n");
  post(pipeline("replace", "*/10 * * * *", start, "  concurrency: {policy: Replace}\n",
                task("train", "duration: 25m", "pool: shared")));
  post(pipeline("expire", "*/5 * * * *", start,
                "  concurrency: {maxActiveRuns: 1, keepLatest: 2}\n",
                task("score", "duration: 12m")));
  post(pipeline("to-pause", "*/10 * * * *", start, "", task("tidy", "duration: 5m")));
  post(pipeline("manual", "", "", "", task("once", "duration: 1m")));
  ASSERT_EQ(admin.post("/api/v1/pipelines/manual/trigger", "").status, 201);
  const Outcome viewer = run("token create --read-only --db " + db());
  ASSERT_EQ(viewer.exit_code(), 0) << viewer.err;
  const std::string viewer_token = viewer.out.substr(0, viewer.out.find('\n'));
  const web::ClientResponse sim =
      admin.post("/api/v1/simulations", nlohmann::json({{"scenarioName", "quickstart"}}).dump());
  ASSERT_EQ(sim.status, 202) << sim.body;

  // Until every state has been seen; `to-pause` is paused once a run of it succeeded.
  std::set<std::string> seen;
  bool paused = false;
  watch(first->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type == "run" || type == "attempt") seen.insert(type + " " + d["state"].get<std::string>());
    if (!paused && type == "run" && d["pipeline"] == "to-pause" && d["state"] == "succeeded") {
      EXPECT_EQ(admin.post("/api/v1/pipelines/to-pause/pause", "").status, 200);
      paused = true;
    }
    for (const char* s :
         {"run succeeded", "run failed", "run skipped", "run expired", "run killed",
          "attempt succeeded", "attempt failed", "attempt timeout", "attempt killed"})
      if (seen.count(s) == 0) return false;
    return paused;
  });
  const std::vector<std::string> listed_before = listed(admin);
  const std::vector<std::string> pools_before = pools(admin);
  first->signal(stop_signal);
  const int status = first->wait();
  if (stop_signal == SIGKILL) {
    ASSERT_TRUE(WIFSIGNALED(status));
  } else {
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }

  const Snapshot before = read_database(db());
  // Preconditions: the states this test is about are in the database at the stop.
  std::set<std::string> run_states, attempt_states;
  int64_t open_attempts = 0, max_id_before = 0;
  for (const auto& [key, run] : before.runs) {
    run_states.insert(run.state);
    for (const auto& a : run.attempts) {
      attempt_states.insert(a.state);
      open_attempts += a.end < 0;
      max_id_before = std::max(max_id_before, a.id);
    }
  }
  for (const char* s : {"queued", "running", "succeeded", "failed", "skipped", "expired", "killed"})
    EXPECT_EQ(run_states.count(s), 1u) << "no run " << s << " at the stop";
  for (const char* s : {"running", "succeeded", "failed", "timeout", "killed"})
    EXPECT_EQ(attempt_states.count(s), 1u) << "no attempt " << s << " at the stop";
  ASSERT_GT(open_attempts, 0);
  ASSERT_EQ(before.documents.size(), 9u) << "2 pools and 7 pipelines";
  ASSERT_EQ(before.tokens.size(), 2u) << "admin and viewer";

  auto second = serve("second");
  ASSERT_FALSE(second->url().empty());
  {
    web::HttpClient again(second->url(), {.token = token()});
    EXPECT_EQ(again.get("/readyz").status, 200) << again.get("/readyz").body;
    EXPECT_EQ(listed(again), listed_before);
    EXPECT_EQ(pools(again), pools_before);
    web::HttpClient reader(second->url(), {.token = viewer_token});
    EXPECT_EQ(nlohmann::json::parse(reader.get("/api/v1/whoami").body)["role"], "viewer");
    EXPECT_EQ(nlohmann::json::parse(again.get("/api/v1/simulations").body)["simulations"].size(),
              0u)
        << "simulations are kept in memory only";
  }
  second->signal(SIGTERM);
  ASSERT_EQ(WEXITSTATUS(second->wait()), 0);
  EXPECT_EQ(slurp(dir_ / "second.stderr"), "") << "nothing went wrong, nothing to say";

  const Snapshot after = read_database(db());
  EXPECT_EQ(after.documents, before.documents) << "the catalog, row for row";
  EXPECT_EQ(after.tokens, before.tokens);
  for (const auto& [key, run] : before.runs) {
    const auto found = after.runs.find(key);
    ASSERT_NE(found, after.runs.end()) << key.first << " " << key.second << " lost";
    const StoredRun& now = found->second;
    EXPECT_EQ(now.trigger, run.trigger);
    EXPECT_EQ(now.start, run.start >= 0 ? run.start : now.start);
    if (run.finished()) {
      EXPECT_EQ(now.state, run.state) << key.first;
      EXPECT_EQ(now.end, run.end) << key.first;
      EXPECT_EQ(now.tasks, run.tasks) << key.first;
      ASSERT_EQ(now.attempts.size(), run.attempts.size()) << key.first;
      for (size_t i = 0; i < run.attempts.size(); ++i)
        EXPECT_EQ(now.attempts[i].text(), run.attempts[i].text()) << key.first;
      continue;
    }
    for (const auto& a : run.attempts) {
      const auto same = std::find_if(now.attempts.begin(), now.attempts.end(),
                                     [&](const auto& x) { return x.key == a.key; });
      ASSERT_NE(same, now.attempts.end()) << a.key << " of " << key.first;
      if (a.end >= 0) {
        EXPECT_EQ(same->text(), a.text()) << "a closed attempt is kept as it was";
      } else {
        EXPECT_EQ(same->state, "lost") << same->text();
        EXPECT_GE(same->end, before.latest) << "time went back: " << same->text();
        EXPECT_EQ(same->start, a.start);
      }
    }
  }
  std::set<int64_t> ids;
  for (const auto& [key, run] : after.runs) {
    if (key.first == "to-pause") {
      EXPECT_EQ(before.runs.count(key), 1u) << "a paused pipeline makes no run";
    }
    for (const auto& a : run.attempts) {
      EXPECT_TRUE(ids.insert(a.id).second) << "attempt id " << a.id << " reused";
      if (a.end >= 0) {
        EXPECT_GE(a.end, a.start) << key.first << " " << a.text();
      }
      if (a.id > max_id_before) {
        EXPECT_GE(a.start, before.latest) << "a new attempt before the stop: " << a.text();
      }
    }
  }
}

// A graceful stop leaves the attempts running in the database as a crash does (the simulated
// world does not outlive its process): the restart settles them alike.
TEST_F(ServeRestart, AfterSigtermKeepsTheCatalogRunsAndAttempts) { stop_and_start_again(SIGTERM); }

TEST_F(ServeRestart, AfterKillNineKeepsTheCatalogRunsAndAttempts) { stop_and_start_again(SIGKILL); }

// A stored document the server cannot load (edited in the database to name a task that does
// not exist) does not go unnoticed: standard error and /readyz (503) name it, file:line:col.
TEST_F(ServeRestart, AStoredDocumentItCannotLoadIsNamedOnStderrAndInReadyz) {
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "other.yaml")
      << pipeline("other", "", "", "", task("only", "duration: 1m"));
  {
    auto first = serve("first");
    ASSERT_FALSE(first->url().empty());
    web::HttpClient admin(first->url(), {.token = token()});
    ASSERT_EQ(
        admin
            .post("/api/v1/pipelines", pipeline("plain", "", "", "", task("only", "duration: 1m")),
                  "application/yaml")
            .status,
        201);
    first->signal(SIGTERM);
    ASSERT_EQ(WEXITSTATUS(first->wait()), 0);
  }
  {
    Database d = Database::open(db(), {.create = false});
    d.exec(
        "UPDATE server_documents SET yaml = replace(yaml, 'simulate:', 'dependsOn: [nope], "
        "simulate:') WHERE name = 'plain'");
  }
  auto second = serve("second");
  ASSERT_FALSE(second->url().empty());
  const std::string line = "error: Pipeline/plain could not be loaded: catalog Pipeline/plain:6:";
  EXPECT_EQ(slurp(dir_ / "second.stderr").rfind(line, 0), 0u) << slurp(dir_ / "second.stderr");
  const web::ClientResponse ready = web::HttpClient(second->url()).get("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body.rfind("not ready:\nPipeline/plain could not be loaded: catalog "
                             "Pipeline/plain:6:",
                             0),
            0u)
      << ready.body;
  EXPECT_NE(ready.body.find("nope"), std::string::npos) << ready.body;
  // The same, as JSON for the web app's banner, and on `gantry pipeline list`'s stderr.
  const web::ClientResponse problems =
      web::HttpClient(second->url(), {.token = token()}).get("/api/v1/problems");
  ASSERT_EQ(problems.status, 200);
  const auto j = nlohmann::json::parse(problems.body);
  EXPECT_EQ(j["ready"], true);
  ASSERT_EQ(j["problems"].size(), 1u) << problems.body;
  EXPECT_EQ("not ready:\n" + j["problems"][0].get<std::string>() + "\n", ready.body);
  const Outcome listed = run("pipeline list --server " + second->url() + " --token " + token());
  EXPECT_EQ(listed.exit_code(), 0) << listed.err;
  EXPECT_NE(listed.out.find("other"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.err.rfind("warning: the server reports 1 problem:\n  Pipeline/plain could "
                             "not be loaded: catalog Pipeline/plain:6:",
                             0),
            0u)
      << listed.err;
}

// Issue 22 §2: a pipeline whose catch-up creates 999,001 runs (a minutely cron that started
// 999,000 minutes ago, within the bound of 1,000,000) no longer holds the loop: the POST is
// answered (201, not 503 after 30 s), a route that needs the loop answers while the catch-up
// goes on, and SIGTERM stops the server gracefully (exit 0) long before the catch-up is done
// (fewer runs than 999,001 exist: it took about a minute in one event of the loop). Started
// again, the catch-up goes on after the last run created, none twice.
TEST_F(ServeRestart, ALongCatchUpLeavesTheLoopFreeAndStopsOnSigterm) {
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "other.yaml")
      << pipeline("other", "", "", "", task("only", "duration: 1m"));
  const int64_t minute = 60'000'000;
  const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string start = format_rfc3339(Time::from_micros((now / minute - 999'000) * minute));
  auto first = serve("first");
  ASSERT_FALSE(first->url().empty());
  web::HttpClient admin(first->url(), {.token = token()});
  const web::ClientResponse applied = admin.post(
      "/api/v1/pipelines?paused=false",
      pipeline("minutely", "* * * * *", start, "", task("t", "duration: 1s")), "application/yaml");
  ASSERT_EQ(applied.status, 201) << applied.body;
  EXPECT_EQ(admin.get("/api/v1/pipelines/minutely").status, 200);
  EXPECT_EQ(admin.get("/metrics").status, 200);
  first->signal(SIGTERM);
  const int status = first->wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(first->line(), "gantry serve: stopped");
  const auto runs = [&] {
    Database d = Database::open(db(), {.create = false, .read_only = true});
    Statement q = d.prepare(
        "SELECT count(*), count(DISTINCT logical_us), max(logical_us) FROM runs WHERE pipeline = "
        "'minutely'");
    q.step();
    return std::array<int64_t, 3>{q.column_int64(0), q.column_int64(1), q.column_int64(2)};
  };
  const std::array<int64_t, 3> before = runs();
  EXPECT_GT(before[0], 0);
  EXPECT_LT(before[0], 999'001) << "the stop waited for the whole catch-up";

  auto second = serve("second");
  ASSERT_FALSE(second->url().empty());
  second->signal(SIGTERM);
  ASSERT_EQ(WEXITSTATUS(second->wait()), 0);
  const std::array<int64_t, 3> after = runs();
  EXPECT_GT(after[0], before[0]) << "the catch-up went on";
  EXPECT_EQ(after[0], after[1]) << "one run per tick";
  EXPECT_EQ(after[2], before[2] + (after[0] - before[0]) * minute)
      << "after the last one, in order";
}

// SIGTERM is honoured whatever runs (issue 22: a server whose loop was busy ignored it). The
// test program stalls the loop for good inside the third commit (the trigger's: the start made
// the first, the apply the second; each is one transaction), with a request waiting on it; SIGTERM
// then ends the process within the stop's grace (10 s): exit code 1 and a message saying why,
// instead of hanging.
TEST_F(ServeRestart, SigtermEndsTheProcessEvenWhenTheLoopIsStuck) {
  std::vector<std::string> flags = args();
  flags.resize(flags.size() - 2);  // no --pipelines
  ServeProcess server(kGantryFaulty, flags, (dir_ / "serve.stderr").string(), "serve",
                      {"GANTRY_STALL_AFTER_COMMITS=3"});
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  web::HttpClient admin(server.url(), {.token = token()});
  ASSERT_EQ(admin
                .post("/api/v1/pipelines",
                      pipeline("manual", "", "", "", task("t", "duration: 1m")), "application/yaml")
                .status,
            201);
  web::HttpClient impatient(server.url(), {.token = token(), .timeout = std::chrono::seconds(1)});
  EXPECT_THROW(impatient.post("/api/v1/pipelines/manual/trigger", ""), std::runtime_error);
  ASSERT_EQ(server.line(), "gantry-faulty: stalled after commit 3");
  server.signal(SIGTERM);
  const int status = server.wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(slurp(dir_ / "serve.stderr").find("the graceful stop did not finish within 10 s"),
            std::string::npos)
      << slurp(dir_ / "serve.stderr");
}

// Issue 22 §2, a full disk, on the real program: a minutely pipeline runs at --speed 6000 when
// the disk fills (gantry-faulty: every SQLite write fails while the flag file exists). The
// process does not abort (it did: `terminate called without an active exception`); a trigger
// is answered 507 naming the disk, not 500, and creates no run; /readyz says why. The space
// comes back: the orchestrator goes on by itself (a new scheduled run appears on the event
// stream), a trigger is 201. Killed with kill -9 and started again, the database loads, and
// it holds the one manual run that was answered 201.
TEST_F(ServeRestart, AFullDiskIsAnsweredAndOutlived) {
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "load.yaml")
      << pipeline("minutely", "* * * * *", minute_floor(), "  concurrency: {maxActiveRuns: 4}\n",
                  task("t", "duration: 3m")) +
             "---\n" + pipeline("manual", "", "", "", task("once", "duration: 1m"));
  const std::string flag = (dir_ / "disk-full").string();
  auto first = std::make_unique<ServeProcess>(
      kGantryFaulty, args(), (dir_ / "first.stderr").string(), "serve",
      std::vector<std::string>{"GANTRY_FULL_DISK_FLAG=" + flag});
  ASSERT_FALSE(first->url().empty()) << slurp(dir_ / "first.stderr");
  web::HttpClient admin(first->url(), {.token = token()});
  std::ofstream(flag) << "full\n";
  const web::ClientResponse refused = admin.post("/api/v1/pipelines/manual/trigger", "");
  EXPECT_EQ(refused.status, 507) << refused.body;
  EXPECT_NE(refused.body.find("the disk of the runs database is full"), std::string::npos)
      << refused.body;
  const web::ClientResponse ready = admin.get("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("database: the disk of the runs database is full"), std::string::npos)
      << ready.body;
  fs::remove(flag);
  // Recovered when a run is created again after the problem was published.
  bool failed = false, recovered = false;
  watch(first->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type == "error" && d["document"] == "database") failed = true;
    if (failed && type == "run" && d.contains("trigger")) recovered = true;
    return recovered;
  });
  ASSERT_TRUE(recovered);
  EXPECT_EQ(admin.get("/readyz").status, 200);
  const web::ClientResponse accepted = admin.post("/api/v1/pipelines/manual/trigger", "");
  EXPECT_EQ(accepted.status, 201) << accepted.body;
  first->signal(SIGKILL);
  const int status = first->wait();
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "it had aborted: " << status;

  auto second = serve("second");
  ASSERT_FALSE(second->url().empty()) << slurp(dir_ / "second.stderr");
  EXPECT_EQ(web::HttpClient(second->url()).get("/readyz").status, 200);
  second->signal(SIGTERM);
  ASSERT_EQ(WEXITSTATUS(second->wait()), 0);
  Database d = Database::open(db(), {.create = false, .read_only = true});
  Statement manual = d.prepare("SELECT count(*) FROM runs WHERE pipeline = 'manual'");
  ASSERT_TRUE(manual.step());
  EXPECT_EQ(manual.column_int64(0), 1) << "the 507 made none";
  Statement check = d.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}

}  // namespace serve_restart_test
}  // namespace gantry::testing
