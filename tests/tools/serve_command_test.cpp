// `gantry serve` end to end: the real program as a child process on loopback, driven by the
// real thin clients (`gantry pipeline apply|trigger`) and libcurl, watched through its event
// stream. Nothing waits by sleeping: the tests block on the server's output, on the event
// stream, or on the process's end.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "adapters/kube/kube_client.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/time.hpp"
#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/tools/cli_harness.hpp"
#include "tests/tools/kube_cluster.hpp"
#include "tests/tools/serve_test.hpp"
#include "web/client/http_client.hpp"

namespace gantry::testing {
namespace serve_command_test {

namespace fs = std::filesystem;

const std::string kSource = GANTRY_SOURCE_DIR;

class ServeCommand : public ServeTest {};

const char* kTwoTasks = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: nightly}
spec:
  tasks:
  - name: prepare
    image: registry.local/prepare:1
    resources: {cpu: "2", memory: 4Gi}
    simulate: {duration: 10m}
  - name: train
    image: registry.local/train:1
    resources: {cpu: "4", memory: 16Gi}
    dependsOn: [prepare]
    simulate: {duration: 10m}
)";

// Apply with the CLI, trigger with the CLI, watch the run succeed on the event stream, then
// read it back from the API: two tasks, one attempt each, the second after the first.
TEST_F(ServeCommand, ApplyTriggerAndWatchTheRunSucceed) {
  auto server = serve({"--speed", "36000"});
  ASSERT_FALSE(server->url().empty());
  EXPECT_NE(server->token_line().find(db() + ".token"), std::string::npos) << server->token_line();
  const std::string flags = " --server " + server->url() + " --token-file " + db() + ".token";
  const Outcome applied = run("pipeline apply " + write("nightly.yaml", kTwoTasks) + flags);
  ASSERT_EQ(applied.exit_code(), 0) << applied.err;
  EXPECT_EQ(applied.out, "pipeline/nightly applied\n");
  const Outcome again = run("pipeline apply " + (dir_ / "nightly.yaml").string() + flags);
  EXPECT_EQ(again.out, "pipeline/nightly configured\n") << "the same name again replaces it";
  const Outcome triggered = run("pipeline trigger nightly" + flags);
  ASSERT_EQ(triggered.exit_code(), 0) << triggered.err;
  std::string logical;
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || d["pipeline"] != "nightly") return false;
    logical = d["logicalTime"];
    return d["state"] == "succeeded";
  });
  web::HttpClient client(server->url(), {.token = token()});
  const web::ClientResponse r = client.get("/api/v1/pipelines/nightly/runs");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto runs = nlohmann::json::parse(r.body)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["logicalTime"], logical);
  EXPECT_EQ(runs[0]["trigger"], "manual");
  ASSERT_EQ(runs[0]["tasks"].size(), 2u);
  const auto& prepare = runs[0]["tasks"][0]["attempts"][0];
  const auto& train = runs[0]["tasks"][1]["attempts"][0];
  EXPECT_EQ(prepare["state"], "succeeded");
  EXPECT_EQ(train["state"], "succeeded");
  Time prepare_end, train_start, train_end;
  ASSERT_TRUE(parse_rfc3339(prepare["end"], prepare_end));
  ASSERT_TRUE(parse_rfc3339(train["start"], train_start));
  ASSERT_TRUE(parse_rfc3339(train["end"], train_end));
  EXPECT_GE(train_start, prepare_end) << "train depends on prepare";
  EXPECT_GE(train_end - train_start, minutes(10)) << "simulate.duration of simulated time";
  const Outcome listed = run("pipeline list" + flags);
  EXPECT_NE(listed.out.find("nightly"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("succeeded"), std::string::npos) << listed.out;
}

const char* kSlow = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: slow}
spec:
  tasks:
  - {name: a, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
  - {name: b, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
  - {name: c, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 1m},
     dependsOn: [a]}
)";

// Kill one task with the CLI, then the whole run with the API, on a server at real speed (the
// 10-hour tasks are running throughout): task a ends killed with the reason naming the admin
// token, c (after a) upstream_failed while b runs on; then the run is killed, b with it. What
// cannot be killed is refused: an ended task and an ended run (409), an unknown task (404).
TEST_F(ServeCommand, KillATaskThenTheRunAndSayByWhom) {
  auto server = serve({"--speed", "1"});
  const std::string flags = " --server " + server->url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("slow.yaml", kSlow) + flags).exit_code(), 0);
  ASSERT_EQ(run("pipeline trigger slow" + flags).exit_code(), 0);
  std::string logical;
  std::set<std::string> running;
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "task" || d["pipeline"] != "slow" || d["state"] != "running") return false;
    logical = d["logicalTime"];
    running.insert(d["task"].get<std::string>());
    return running.size() == 2;  // a and b
  });
  const Outcome killed = run("pipeline kill slow " + logical + " --task a" + flags);
  ASSERT_EQ(killed.exit_code(), 0) << killed.err;
  EXPECT_EQ(killed.out, "task a of run slow " + logical + " killed\n");
  web::HttpClient client(server->url(), {.token = token()});
  const std::string run_path = "/api/v1/pipelines/slow/runs/" + logical;
  auto j = nlohmann::json::parse(client.get(run_path).body);
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["tasks"][0]["attempts"][0]["state"], "killed");
  EXPECT_EQ(j["tasks"][0]["attempts"][0]["reason"], "killed by admin (first start)");
  EXPECT_EQ(j["tasks"][1]["state"], "running");
  EXPECT_EQ(j["tasks"][2]["state"], "upstream_failed");

  const web::ClientResponse again = client.post(run_path + "/tasks/a/kill", "", "application/json");
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_NE(again.body.find("task a has ended: it is killed"), std::string::npos) << again.body;
  EXPECT_EQ(client.post(run_path + "/tasks/zz/kill", "", "application/json").status, 404);

  const web::ClientResponse whole = client.post(run_path + "/kill", "", "application/json");
  ASSERT_EQ(whole.status, 200) << whole.body;
  j = nlohmann::json::parse(whole.body);
  EXPECT_EQ(j["state"], "killed");
  EXPECT_EQ(j["tasks"][1]["attempts"][0]["reason"], "killed by admin (first start)");
  const web::ClientResponse ended = client.post(run_path + "/kill", "", "application/json");
  EXPECT_EQ(ended.status, 409);
  EXPECT_NE(ended.body.find("the run has ended: it is killed"), std::string::npos) << ended.body;
}

// `gantry pipeline trigger --param NAME=VALUE`: each value typed by the pipeline's
// spec.params (read from the server), the rest their defaults; the run shows them. A value of
// the wrong type is refused by the CLI before it asks, a name the pipeline lacks by the server,
// each naming the param (exit 2), and nothing is triggered.
TEST_F(ServeCommand, TriggerWithParams) {
  auto server = serve({"--speed", "1"});
  const std::string flags = " --server " + server->url() + " --token-file " + db() + ".token";
  const std::string file = write("train.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: train}
spec:
  params:
    epochs: {type: int, default: 3}
    lr: {type: float, default: 0.5}
    dataset: {type: string}
    fast: {type: bool, default: false}
  tasks:
  - {name: fit, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
)");
  ASSERT_EQ(run("pipeline apply " + file + flags).exit_code(), 0);
  const Outcome wrong = run("pipeline trigger train --param epochs=ten --param dataset=d" + flags);
  EXPECT_EQ(wrong.exit_code(), 2);
  EXPECT_NE(wrong.err.find("--param epochs=ten: epochs is an int"), std::string::npos) << wrong.err;
  const Outcome unknown = run("pipeline trigger train --param seed=1 --param dataset=d" + flags);
  EXPECT_EQ(unknown.exit_code(), 2);
  EXPECT_NE(unknown.err.find("params.seed: not a param of pipeline train"), std::string::npos)
      << unknown.err;
  const Outcome ok = run(
      "pipeline trigger train --param epochs=10 --param dataset=s3://x --param fast=true" + flags);
  ASSERT_EQ(ok.exit_code(), 0) << ok.err;
  web::HttpClient client(server->url(), {.token = token()});
  const auto runs = nlohmann::json::parse(client.get("/api/v1/pipelines/train/runs").body)["runs"];
  ASSERT_EQ(runs.size(), 1u) << "the refused triggers made no run";
  EXPECT_EQ(runs[0]["params"],
            nlohmann::json({{"dataset", "s3://x"}, {"epochs", 10}, {"fast", true}, {"lr", 0.5}}));
}

// The task actions, the attempt log and delete from the CLI, on the 10-hour tasks of `slow`
// (a -> c; b alone) at real speed: mark-failed a (dry run first) stops its attempt and c goes
// upstream_failed; mark-success b ends the run failed; clear a with its downstream runs the
// run again; log shows the story of a's first attempt; delete --purge needs the run ended
// (killed here) and says how many runs it purged.
TEST_F(ServeCommand, TaskActionsLogAndDeleteFromTheCli) {
  auto server = serve({"--speed", "1"});
  const std::string flags = " --server " + server->url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("slow.yaml", kSlow) + flags).exit_code(), 0);
  const Outcome triggered = run("pipeline trigger slow" + flags);
  ASSERT_EQ(triggered.exit_code(), 0) << triggered.err;
  // "run slow <logical> (running)"
  const std::string logical = triggered.out.substr(9, triggered.out.find(' ', 9) - 9);
  const std::string run_of = " slow " + logical + " ";
  const Outcome dry = run("pipeline mark-failed" + run_of + "--task a --dry-run" + flags);
  ASSERT_EQ(dry.exit_code(), 0) << dry.err;
  EXPECT_EQ(dry.out, "task a: running -> failed (stops attempt 1)\nrun slow " + logical +
                         " would change: running -> running\n");
  const Outcome failed = run("pipeline mark-failed" + run_of + "--task a" + flags);
  EXPECT_EQ(failed.out,
            "task a: running -> failed (stops attempt 1)\ntask c: pending -> "
            "upstream_failed\nrun slow " +
                logical + " changed: running -> running\n");
  const Outcome succeeded = run("pipeline mark-success" + run_of + "--task b" + flags);
  EXPECT_EQ(succeeded.out, "task b: running -> succeeded (stops attempt 1)\nrun slow " + logical +
                               " changed: running -> failed\n");
  const Outcome cleared = run("pipeline clear" + run_of + "--task a --downstream" + flags);
  EXPECT_EQ(cleared.out,
            "task a: failed -> running\ntask c: upstream_failed -> pending\nrun slow " + logical +
                " changed: failed -> running\n");
  const Outcome log = run("pipeline log" + run_of + "--task a --attempt 1" + flags);
  ASSERT_EQ(log.exit_code(), 0) << log.err;
  EXPECT_NE(log.out.find(" ended killed: marked failed by admin"), std::string::npos) << log.out;
  const Outcome none = run("pipeline log" + run_of + "--task a --attempt 3" + flags);
  EXPECT_EQ(none.exit_code(), 2);
  EXPECT_NE(none.err.find("has 2 attempts; there is no attempt 3"), std::string::npos) << none.err;
  const Outcome busy = run("pipeline delete slow --purge" + flags);
  EXPECT_EQ(busy.exit_code(), 2) << "a run in flight";
  ASSERT_EQ(run("pipeline kill" + run_of + flags).exit_code(), 0);
  const Outcome deleted = run("pipeline delete slow --purge" + flags);
  EXPECT_EQ(deleted.out, "pipeline/slow deleted; 1 runs purged\n") << deleted.err;
}

// The server refuses a bad file with the errors `gantry pipeline validate` prints for it, and
// the CLI shows them the same way (file:line:col: path: message), exit 2.
TEST_F(ServeCommand, ValidationErrorsAreThoseOfPipelineValidate) {
  auto server = serve();
  std::string bad = kTwoTasks;
  bad.replace(bad.find("dependsOn: [prepare]"), 20, "dependsOn: [prepar]");
  bad.replace(bad.find("cpu: \"2\""), 8, "cpu: lots");
  const std::string file = write("bad.yaml", bad);
  const Outcome validate = run("pipeline validate " + file);
  const Outcome apply =
      run("pipeline apply " + file + " --server " + server->url() + " --token " + token());
  EXPECT_EQ(validate.exit_code(), 2);
  EXPECT_EQ(apply.exit_code(), 2);
  EXPECT_EQ(apply.err, validate.err);
  EXPECT_NE(apply.err.find(file + ":8:"), std::string::npos) << apply.err;
}

// A task the server's cluster can never hold (quickstart's nodes are A100-80G; the task asks
// for A100, as an import from another cluster would) is applied with a warning at its line,
// on a dry run too, rather than passing as valid and failing at its first run.
TEST_F(ServeCommand, ApplyWarnsOfATaskTheClusterCannotHold) {
  auto server = serve();
  const std::string file = write("train.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: train}
spec:
  tasks:
  - name: fit
    template: pytorchjob
    image: registry.local/bert:1
    replicas: {master: 1, worker: 1}
    resources: {cpu: "8", memory: 64Gi, gpu: "8", gpuType: A100}
    simulate: {duration: 1h}
)");
  const std::string flags = " --server " + server->url() + " --token " + token();
  const std::string warning =
      file +
      ":6:5: warning: spec.tasks[0]: task fit of pipeline train can never be placed on "
      "the server's cluster: it asks for GPU type A100, which no node of the cluster has\n";
  const Outcome dry = run("pipeline apply --dry-run " + file + flags);
  EXPECT_EQ(dry.exit_code(), 0) << dry.err;
  EXPECT_EQ(dry.err, warning);
  EXPECT_EQ(dry.out, "pipeline/train valid\n");
  const Outcome applied = run("pipeline apply " + file + flags);
  EXPECT_EQ(applied.exit_code(), 0) << applied.err;
  EXPECT_EQ(applied.err, warning);
  EXPECT_EQ(applied.out, "pipeline/train applied\n");
}

// A scheduled pipeline saved through the API starts paused and says what starting it would
// do; resume starts exactly that. Hourly from S (5 to 6 hours ago, on the hour) to S + 3 h,
// catchup true: ticks S, S+1h, S+2h, S+3h have all passed, so 4 runs would start at once.
TEST_F(ServeCommand, ANewPipelineStartsPausedAndSaysWhatResumeWouldStart) {
  auto server = serve({"--speed", "36000"});
  const std::string flags = " --server " + server->url() + " --token " + token();
  const int64_t hour = hours(1).micros();
  const Time start = Time::from_micros((system_now().micros() / hour - 5) * hour);
  const std::string s = format_rfc3339(start), e = format_rfc3339(start + hours(3));
  const auto hourly = [&](const std::string& name) {
    return write(name + ".yaml",
                 "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: " + name +
                     "}\nspec:\n  schedule: {cron: \"0 * * * *\", start: " + s + ", end: " + e +
                     ", catchup: true}\n  tasks:\n  - {name: t, image: x, "
                     "resources: {cpu: \"1\", memory: 1Gi}, simulate: "
                     "{duration: 1m}}\n");
  };
  const std::string file = hourly("hourly");
  const Outcome applied = run("pipeline apply " + file + flags);
  ASSERT_EQ(applied.exit_code(), 0) << applied.err;
  EXPECT_EQ(applied.out,
            "pipeline/hourly applied (paused: gantry pipeline resume hourly starts "
            "its schedule; 4 runs would start at once (" +
                s + " .. " + e + "))\n");
  web::HttpClient client(server->url(), {.token = token()});
  const auto detail = nlohmann::json::parse(client.get("/api/v1/pipelines/hourly").body);
  EXPECT_EQ(detail["paused"], true);
  EXPECT_EQ(nlohmann::json::parse(client.get("/api/v1/pipelines/hourly/runs").body)["runs"].size(),
            0u);

  const Outcome resumed = run("pipeline resume hourly" + flags);
  ASSERT_EQ(resumed.exit_code(), 0) << resumed.err;
  EXPECT_EQ(resumed.out, "pipeline/hourly resumed\n");
  std::set<std::string> succeeded;
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type == "run" && d["pipeline"] == "hourly" && d["state"] == "succeeded")
      succeeded.insert(d["logicalTime"].get<std::string>());
    return succeeded.size() == 4;
  });
  EXPECT_EQ(*succeeded.begin(), s);
  EXPECT_EQ(*succeeded.rbegin(), e);
  // --start switches a new pipeline on at once; applying it again keeps it as it is.
  const Outcome started = run("pipeline apply --start " + hourly("other") + flags);
  EXPECT_EQ(started.out,
            "pipeline/other applied (4 runs would start at once (" + s + " .. " + e + "))\n");
  EXPECT_EQ(nlohmann::json::parse(client.get("/api/v1/pipelines/other").body)["paused"], false);
}

TEST_F(ServeCommand, TokensAreRequiredAndViewersOnlyRead) {
  auto server = serve();
  web::HttpClient anonymous(server->url());
  EXPECT_EQ(anonymous.get("/api/v1/pipelines").status, 401);
  EXPECT_EQ(anonymous.get("/healthz").status, 200);
  EXPECT_EQ(anonymous.get("/readyz").status, 200) << "started before it printed its URL";
  const Outcome viewer = run("token create --read-only --db " + db());
  ASSERT_EQ(viewer.exit_code(), 0) << viewer.err;
  web::HttpClient reader(server->url(), {.token = viewer.out.substr(0, viewer.out.find('\n'))});
  EXPECT_EQ(reader.get("/api/v1/pipelines").status, 200);
  EXPECT_EQ(reader.post("/api/v1/pipelines", kTwoTasks, "application/yaml").status, 403);
  EXPECT_EQ(nlohmann::json::parse(reader.get("/api/v1/whoami").body)["role"], "viewer");
}

// A --pipelines folder whose file declares a Pool beside its pipeline: the server starts (an
// applied pool is answered as {"name","slots","inUse","waiting","maxWait"}), GET /pools lists
// it, and on the wall clock the ticks of a running schedule are "schedule" runs, not
// "catchup" (the timer fires a little after the tick; at --speed 60 a millisecond late is 60 ms
// of simulated time). The first run may be a catch-up: the schedule starts at the minute
// before the server. GET /clock tells the speed and a now no earlier than those runs.
TEST_F(ServeCommand, APoolInThePipelinesFolderAndScheduledRunsOnTheWallClock) {
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "pooled.yaml")
      << "apiVersion: gantry.dev/v1\nkind: Pool\nmetadata: {name: warehouse}\n"
         "spec: {slots: 3, maxWait: 10m}\n---\n"
         "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: minutely}\nspec:\n"
         "  schedule: {cron: \"* * * * *\", catchup: false, start: " +
             format_rfc3339(Time::from_micros(us / 60'000'000 * 60'000'000)) +
             "}\n  tasks:\n"
             "  - {name: load, image: x, resources: {cpu: \"1\", memory: 1Gi}, pool: warehouse, "
             "simulate: {duration: 10s}}\n";
  auto server = serve({"--speed", "60", "--pipelines", (dir_ / "pipelines").string()});
  ASSERT_FALSE(server->url().empty()) << slurp(dir_ / "serve.stderr");
  web::HttpClient client(server->url(), {.token = token()});
  const auto pools = nlohmann::json::parse(client.get("/api/v1/pools").body);
  ASSERT_EQ(pools["pools"].size(), 1u) << pools;
  EXPECT_EQ(pools["pools"][0]["name"], "warehouse");
  EXPECT_EQ(pools["pools"][0]["slots"], 3);
  std::vector<std::string> triggers;
  std::string last_logical;
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || !d.contains("trigger")) return false;
    triggers.push_back(d["trigger"]);
    last_logical = d["logicalTime"];
    return triggers.size() == 4;
  });
  ASSERT_EQ(triggers.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(triggers.begin() + 1, triggers.end()),
            (std::vector<std::string>{"schedule", "schedule", "schedule"}));
  const auto clock = nlohmann::json::parse(client.get("/api/v1/clock").body);
  EXPECT_EQ(clock["speed"], 60.0);
  Time now, logical;
  ASSERT_TRUE(parse_rfc3339(clock["now"], now)) << clock;
  ASSERT_TRUE(parse_rfc3339(last_logical, logical));
  EXPECT_GE(now, logical);
}

// GET /cluster/queue names the pipeline of a pipeline task's pending gang. The quickstart
// cluster has 32 nodes of 8 GPUs: a PyTorchJob of 1 master + 31 workers with 8 GPUs each takes
// all 256 GPUs, so of two such runs (maxActiveRuns 2, an hour of simulated work each at
// --speed 1) the second's gang waits in the queue while the first runs.
TEST_F(ServeCommand, TheQueueNamesThePipelineOfAPendingGang) {
  auto server = serve();
  const std::string flags = " --server " + server->url() + " --token-file " + db() + ".token";
  const std::string file = write("whole.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: whole-cluster}
spec:
  concurrency: {maxActiveRuns: 2}
  tasks:
  - name: train
    template: pytorchjob
    image: registry.local/train:1
    replicas: {master: 1, worker: 31}
    resources: {cpu: "8", memory: 64Gi, gpu: "8"}
    simulate: {duration: 1h}
)");
  ASSERT_EQ(run("pipeline apply " + file + flags).exit_code(), 0);
  web::HttpClient client(server->url(), {.token = token()});
  ASSERT_EQ(client.post("/api/v1/pipelines/whole-cluster/trigger", "", "application/json").status,
            201);
  // The second trigger comes at a later instant of the wall clock (a run per instant).
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    return type == "attempt" && d["task"] == "train";
  });
  const web::ClientResponse second =
      client.post("/api/v1/pipelines/whole-cluster/trigger", "", "application/json");
  ASSERT_EQ(second.status, 201) << second.body;
  const std::string logical = nlohmann::json::parse(second.body)["logicalTime"];
  // Its attempt is asked for: the gang is submitted in the same turn of the loop.
  watch(server->url(), [&](const std::string& type, const nlohmann::json& d) {
    return type == "attempt" && d["logicalTime"] == logical;
  });
  const auto queue = nlohmann::json::parse(client.get("/api/v1/cluster/queue").body);
  // The second run's gang: the first one's may be pending too when the scenario's own jobs
  // (arriving from the server's start) hold GPUs, so it is picked by its logical time.
  std::vector<nlohmann::json> ours;
  for (const auto& g : queue["pending"])
    if (g["name"].get<std::string>().rfind("whole-cluster/train@" + logical + "#", 0) == 0)
      ours.push_back(g);
  ASSERT_EQ(ours.size(), 1u) << queue;
  EXPECT_EQ(ours[0]["pipeline"], "whole-cluster");
  EXPECT_EQ(ours[0]["task"], "train");
  EXPECT_EQ(ours[0]["logicalTime"], logical);
  EXPECT_EQ(ours[0]["attempt"], 1) << "the first attempt, counted from 1";
  EXPECT_EQ(ours[0]["gpus"], 256);
  EXPECT_EQ(ours[0]["pods"], 32);
  // Why it waits (issue #26 §5): 32 pods of 8 GPUs, and the first run's gang holds every GPU.
  EXPECT_EQ(
      ours[0]["reason"].get<std::string>().rfind("needs 32 pods of 8 GPUs: room for 0; 0 GPUs "
                                                 "free on 32 eligible nodes",
                                                 0),
      0u)
      << ours[0];
  // Who holds a GPU: the first run's gang, by pipeline, task and logical time.
  const auto cluster = nlohmann::json::parse(client.get("/api/v1/cluster").body);
  const auto& gpu0 = cluster["racks"][0]["nodes"][0]["gpus"][0];
  ASSERT_EQ(gpu0["holders"].size(), 1u) << gpu0;
  EXPECT_EQ(gpu0["holders"][0]["pipeline"], "whole-cluster");
  EXPECT_EQ(gpu0["holders"][0]["task"], "train");
  EXPECT_NE(gpu0["holders"][0]["logicalTime"], logical) << "the first run's gang, not the second's";
  for (const auto& g : queue["pending"]) {
    if (g["name"].get<std::string>().find('/') == std::string::npos) {
      EXPECT_TRUE(g["pipeline"].is_null()) << "the scenario's own jobs: " << g;
    }
  }
}

// --world kube: a pipeline's task runs as a pod of a live cluster. The cluster is the tests'
// fake API server with `gantry kubelet-sim` playing two nodes; the server's executor creates
// the pod, its live scheduler binds it (GPU annotated), kubelet-sim runs it for the task's
// simulated duration, and the run succeeds. Nothing waits by sleeping: the test blocks on the
// programs' first lines and on the server's event stream.
TEST_F(ServeCommand, WorldKubeRunsATaskAsAPodOfTheCluster) {
  auto cluster = kube_cluster(dir_);
  kube::testing::FakeApiServer& fake = cluster->fake;
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << cluster->kubelet->first_line() << slurp(dir_ / "kubelet.stderr");
  auto served = serve_kube(*cluster, db(), dir_, "serve");
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  EXPECT_NE(server.first_line().find("world kube: " + fake.url()), std::string::npos)
      << server.first_line();
  const std::string flags = " --server " + server.url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: infer}
spec:
  tasks:
  - name: score
    image: registry.local/score:1
    resources: {cpu: "2", memory: 4Gi, gpu: "1"}
    simulate: {duration: 300ms}
)") + flags)
                .exit_code(),
            0);
  ASSERT_EQ(run("pipeline trigger infer" + flags).exit_code(), 0);
  std::string state;
  watch(server.url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || d["pipeline"] != "infer") return false;
    state = d["state"];
    return state == "succeeded" || state == "failed";
  });
  EXPECT_EQ(state, "succeeded") << slurp(dir_ / "serve.stderr");
  // The pod, as the cluster holds it: placed by Gantry, on a node with its GPU annotated,
  // played to the end.
  int pods = 0;
  kube::KubeClient client(kube::testing::config_for(fake.url()));
  const nlohmann::json all = client.get("/api/v1/pods");
  for (const auto& p : all["items"]) {
    ++pods;
    EXPECT_EQ(p["metadata"]["namespace"], "ml") << "the context's namespace";
    EXPECT_EQ(p["spec"]["schedulerName"], "gantry");
    EXPECT_EQ(p["spec"]["nodeName"].get<std::string>().rfind("r1-n00", 0), 0u) << p.dump();
    EXPECT_EQ(p["metadata"]["annotations"]["gantry.dev/gpu-index"], "0");
    EXPECT_EQ(p["status"]["phase"], "Succeeded");
  }
  EXPECT_EQ(pods, 1) << all.dump().substr(0, 2000);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// --world kube: GET /cluster/queue says why a pending gang is not placed as the live scheduler
// says it (which nodes were excluded and why, then what is free on the rest), not the empty
// reason of a workload never placed. A task of 8 GPUs on kTwoNodes (4 GPUs a node): 8 GPUs are
// free on the 2 nodes, at most 4 on one. The test holds the FailedScheduling Event's POST on
// the fake server: once it arrives, the cycle that could not place the gang has run.
TEST_F(ServeCommand, WorldKubeQueueSaysWhyAGangIsNotPlaced) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  cluster->fake.inject({.method = "POST",
                        .path_prefix = "/apis/events.k8s.io/v1/namespaces/ml/events",
                        .hold = true});
  auto served = serve_kube(*cluster, db(), dir_, "serve");
  ASSERT_FALSE(served->url().empty()) << slurp(dir_ / "serve.stderr");
  const std::string flags = " --server " + served->url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: too-big}
spec:
  tasks:
  - name: train
    image: registry.local/train:1
    resources: {cpu: "2", memory: 4Gi, gpu: "8"}
    simulate: {duration: 1m}
)") + flags)
                .exit_code(),
            0);
  ASSERT_EQ(run("pipeline trigger too-big" + flags).exit_code(), 0);
  ASSERT_TRUE(cluster->fake.wait_for_held(1)) << slurp(dir_ / "serve.stderr");
  const auto queue = nlohmann::json::parse(
      web::HttpClient(served->url(), {.token = token()}).get("/api/v1/cluster/queue").body);
  cluster->fake.release_held();
  ASSERT_EQ(queue["pending"].size(), 1u) << queue;
  const std::string reason = queue["pending"][0]["reason"];
  EXPECT_EQ(reason.rfind("needs 1 pod of 8 GPUs: room for 0; 8 GPUs free on 2 eligible nodes, at "
                         "most 4 on one node",
                         0),
            0u)
      << reason;
  served->signal(SIGTERM);
  EXPECT_EQ(served->wait(), 0);
}

// --world kube with a scenario that has an inference service: the server makes its Deployment
// and Service, kubelet-sim (--serving-load) makes the pods and serves their simulated load on
// its metrics endpoint, and the server's KPA, reading that endpoint (--serving-metrics), scales
// the Deployment up: 20 requests a second of 0.5 s each keep 10 in flight, at a target
// concurrency of 2 a desire of 5, clamped to maxReplicas 3. The test blocks on a watch of the
// Deployment until kubelet-sim reports 3 replicas ready.
const char* kTwoNodesAndAService = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: two-nodes-chat}
spec:
  start: 2026-01-01T00:00:00Z
  horizon: 1h
  cluster:
    fabric: {kind: InfiniBand, latency: 5us}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: box, cpu: "32", memory: 256Gi, gpu: {type: A100-80G, count: 4}, nic: 200Gbps}
    racks:
    - {name: r1, class: box, nodes: 2}
  workload:
    services:
    - name: chat
      predictors: [{name: v1, model: llama-7b, resources: {gpu: 1, gpuType: A100-80G}}]
      capacity: {A100-80G: {tokensPerSecond: 4000, maxBatch: 16}}
      coldStart: {imagePull: 300ms, load: 200ms}
      autoscaler: {kind: KPA, minReplicas: 1, maxReplicas: 3, target: {concurrency: 2}}
      load: {poisson: {qps: 20}}
  sim: {podStartup: 200ms}
)";

TEST_F(ServeCommand, WorldKubeScalesAServiceOnKubeletSimsLoad) {
  auto cluster =
      kube_cluster(dir_, kTwoNodesAndAService,
                   {"--serving-load", "chat=20:500ms", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  const std::string metrics_line = cluster->kubelet->line();
  const std::string prefix = "gantry kubelet-sim: serving metrics at ";
  ASSERT_EQ(metrics_line.rfind(prefix, 0), 0u) << metrics_line;
  const std::string metrics_url = metrics_line.substr(prefix.size());
  auto served = serve_kube(*cluster, db(), dir_, "serve", {"--serving-metrics", metrics_url});
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  EXPECT_NE(server.first_line().find(", 1 service"), std::string::npos) << server.first_line();

  kube::KubeClient client(kube::testing::config_for(cluster->fake.url()));
  nlohmann::json deployment;
  client.watch("/apis/apps/v1/namespaces/ml/deployments?watch=true&resourceVersion=0",
               [&](kube::WatchEvent& e) {
                 if (e.object["metadata"]["name"] != "chat-v1") return true;
                 deployment = e.object;
                 const nlohmann::json status = e.object.value("status", nlohmann::json::object());
                 return !(e.object["spec"].value("replicas", 0) == 3 &&
                          status.value("readyReplicas", 0) == 3);
               });
  EXPECT_EQ(deployment["spec"]["replicas"], 3);
  EXPECT_EQ(deployment["spec"]["template"]["spec"]["schedulerName"], "gantry");
  // Each replica placed by the server's scheduler on a GPU of its own.
  int placed = 0;
  const nlohmann::json pods = client.get("/api/v1/namespaces/ml/pods");
  for (const auto& p : pods["items"]) {
    if (p["metadata"]["labels"].value("gantry.dev/service", "") != "chat") continue;
    ++placed;
    EXPECT_FALSE(p["spec"].value("nodeName", "").empty()) << p.dump();
    EXPECT_TRUE(p["metadata"]["annotations"].contains("gantry.dev/gpu-index")) << p.dump();
  }
  EXPECT_EQ(placed, 3) << pods.dump().substr(0, 3000);
  EXPECT_TRUE(client.get("/api/v1/namespaces/ml/services/chat-v1").contains("spec"));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// `gantry kube drain` against a running `gantry serve --world kube`: the server (the leader: no
// election) takes the request, cordons the node and marks the request "draining". The test
// blocks on a watch of the node until it shows both.
TEST_F(ServeCommand, WorldKubeCarriesOutADrainRequest) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  auto served = serve_kube(*cluster, db(), dir_, "serve");
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  const Outcome o = run("kube drain r1-n001 --for 1h --kubeconfig " + cluster->kubeconfig);
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  kube::KubeClient client(kube::testing::config_for(cluster->fake.url()));
  nlohmann::json state = nlohmann::json::object();
  bool cordoned = false;
  client.watch("/api/v1/nodes?watch=true&resourceVersion=0", [&](kube::WatchEvent& e) {
    if (e.object["metadata"]["name"] != "r1-n001") return true;
    // A node never cordoned has no spec.unschedulable (kubelet-sim writes an empty spec).
    cordoned = e.object.value("spec", nlohmann::json::object()).value("unschedulable", false);
    const auto& a = e.object["metadata"].value("annotations", nlohmann::json::object());
    if (a.contains("gantry.dev/drain-state"))
      state = nlohmann::json::parse(a["gantry.dev/drain-state"].get<std::string>());
    return !(cordoned && state.value("state", "") == "draining");
  });
  EXPECT_TRUE(cordoned);
  EXPECT_EQ(state["state"], "draining") << state.dump();
  const nlohmann::json node = client.get("/api/v1/nodes/r1-n001");
  EXPECT_EQ(state["requested"],
            nlohmann::json::parse(node["metadata"]["annotations"]["gantry.dev/drain-request"]
                                      .get<std::string>())["requested"]);
  EXPECT_FALSE(client.get("/api/v1/nodes/r1-n000")
                   .value("spec", nlohmann::json::object())
                   .value("unschedulable", false));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// --world kube --admission FILE --queue team-a: the pipeline's pod carries its queue's label,
// waits in that queue (a quota of 4 GPUs, the cluster's 8 in the cohort) and runs; the
// scheduler refuses nothing.
TEST_F(ServeCommand, WorldKubeWithAdmissionRunsATaskInItsQueue) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  const std::string admission =
      write("admission.yaml",
            "apiVersion: gantry.dev/v1\nkind: Admission\nmetadata: {name: lab}\nspec:\n"
            "  queues:\n  - {name: team-a, cohort: lab, quota: {gpu: 4}}\n"
            "  - {name: team-b, cohort: lab, quota: {gpu: 4}}\n");
  auto served =
      serve_kube(*cluster, db(), dir_, "serve", {"--admission", admission, "--queue", "team-a"});
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  const std::string flags = " --server " + server.url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: infer}
spec:
  tasks:
  - name: score
    image: registry.local/score:1
    resources: {cpu: "2", memory: 4Gi, gpu: "2"}
    simulate: {duration: 300ms}
)") + flags)
                .exit_code(),
            0);
  ASSERT_EQ(run("pipeline trigger infer" + flags).exit_code(), 0);
  std::string state;
  watch(server.url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || d["pipeline"] != "infer") return false;
    state = d["state"];
    return state == "succeeded" || state == "failed";
  });
  EXPECT_EQ(state, "succeeded") << slurp(dir_ / "serve.stderr");
  kube::KubeClient client(kube::testing::config_for(cluster->fake.url()));
  const nlohmann::json all = client.get("/api/v1/pods");
  ASSERT_EQ(all["items"].size(), 1u);
  EXPECT_EQ(all["items"][0]["metadata"]["labels"]["gantry.dev/queue"], "team-a");
  EXPECT_EQ(all["items"][0]["status"]["phase"], "Succeeded");
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// --world kube against an API server that is not there: a clear error naming it, exit 1 or
// 2, not a server waiting forever.
TEST_F(ServeCommand, WorldKubeNamesAnUnreachableApiServer) {
  const std::string kubeconfig =
      write("kubeconfig",
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n"
            "  cluster: {server: 'http://127.0.0.1:1'}\ncontexts:\n- name: x\n"
            "  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n");
  const Outcome o = run("serve --db " + db() + " --listen 127.0.0.1:0 --world kube --kubeconfig " +
                        kubeconfig + " --ui " + (dir_ / "no-ui").string());
  EXPECT_NE(o.exit_code(), 0);
  EXPECT_NE(o.err.find("--world kube: kube: http://127.0.0.1:1"), std::string::npos) << o.err;
}

// --admission is for a live cluster; the simulated world's queues are its scenario's.
TEST_F(ServeCommand, AdmissionIsRefusedForTheSimulatedWorld) {
  const Outcome o = run("serve --db " + db() + " --listen 127.0.0.1:0 --admission " +
                        std::string(GANTRY_SOURCE_DIR) + "/scenarios/live/admission.yaml");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err,
            "error: --admission: the simulated world takes its admission queues from the scenario "
            "(spec.policy.admission of --cluster, each job's queue); --admission and --queue are "
            "for --world kube\n");
}

// --serving-metrics is for a live cluster, and is a URL.
TEST_F(ServeCommand, ServingMetricsIsAUrlForTheLiveWorld) {
  Outcome o = run("serve --db " + db() + " --listen 127.0.0.1:0 --serving-metrics " +
                  "http://127.0.0.1:9400/metrics");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err,
            "error: --serving-metrics: the simulated world computes its services' metrics; the "
            "option is for --world kube\n");
  o = run("serve --db " + db() + " --listen 127.0.0.1:0 --world kube --serving-metrics " +
          "127.0.0.1:9400");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(
      o.err,
      "error: --serving-metrics: expected an http:// or https:// URL, got '127.0.0.1:9400'\n");
}

// --world kube --admission: the file is read first, its every error listed (exit 2) before any
// API server is contacted (this one is not there); a --queue it does not declare is refused.
TEST_F(ServeCommand, WorldKubeReadsTheAdmissionFileFirst) {
  const std::string kubeconfig =
      write("kubeconfig",
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n"
            "  cluster: {server: 'http://127.0.0.1:1'}\ncontexts:\n- name: x\n"
            "  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n");
  const std::string bad = write("bad.yaml",
                                "apiVersion: gantry.dev/v1\nkind: Admission\nmetadata: {name: q}\n"
                                "spec:\n  queues:\n  - {name: a, quota: {gpu: {B300: 8}}}\n"
                                "  waitForPodsReady: {timeout: soon}\n");
  const std::string base = "serve --db " + db() + " --listen 127.0.0.1:0 --world kube --ui " +
                           (dir_ / "no-ui").string() + " --kubeconfig " + kubeconfig;
  const Outcome o = run(base + " --admission " + bad);
  EXPECT_EQ(o.exit_code(), 2);
  // "  - {name: a, quota: {gpu: {" is 28 characters; "  waitForPodsReady: {timeout: " 30.
  EXPECT_EQ(
      o.err.rfind("error: " + bad + ":6:29: spec.queues[0].quota.gpu.B300: unknown GPU type", 0),
      0u)
      << o.err;
  EXPECT_NE(o.err.find("\nerror: " + bad + ":7:31: spec.waitForPodsReady.timeout: "),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("127.0.0.1:1"), std::string::npos) << "not contacted";

  const Outcome q = run(base + " --admission " + std::string(GANTRY_SOURCE_DIR) +
                        "/scenarios/live/admission.yaml --queue team-c");
  EXPECT_EQ(q.exit_code(), 2);
  EXPECT_EQ(q.err, "error: --queue: 'team-c' is not a queue of " + std::string(GANTRY_SOURCE_DIR) +
                       "/scenarios/live/admission.yaml (queues: team-a, team-b)\n");
}

// kill -9 while a task's pod runs, then start again on the same database: the attempt is
// adopted from the cluster (its pod, found by its labels), not created a second time, and the
// run succeeds when the pod ends.
TEST_F(ServeCommand, WorldKubeAdoptsThePodsOfAKilledServer) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  auto first = serve_kube(*cluster, db(), dir_, "first");
  ASSERT_FALSE(first->url().empty()) << slurp(dir_ / "first.stderr");
  std::string flags = " --server " + first->url() + " --token-file " + db() + ".token";
  ASSERT_EQ(run("pipeline apply " + write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: long}
spec:
  tasks:
  - name: soak
    image: registry.local/soak:1
    resources: {cpu: "2", memory: 4Gi, gpu: "2"}
    simulate: {duration: 3s}
)") + flags)
                .exit_code(),
            0);
  ASSERT_EQ(run("pipeline trigger long" + flags).exit_code(), 0);
  watch(first->url(), [&](const std::string& type, const nlohmann::json& d) {
    return type == "attempt" && d["task"] == "soak" && d.contains("running");
  });
  first->signal(SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(first->wait()));

  auto second = serve_kube(*cluster, db(), dir_, "second");
  ASSERT_FALSE(second->url().empty()) << slurp(dir_ / "second.stderr");
  std::string state;
  watch(second->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || d["pipeline"] != "long") return false;
    state = d["state"];
    return state == "succeeded" || state == "failed";
  });
  EXPECT_EQ(state, "succeeded") << slurp(dir_ / "second.stderr");
  kube::KubeClient client(kube::testing::config_for(cluster->fake.url()));
  const nlohmann::json pods = client.get("/api/v1/namespaces/ml/pods");
  EXPECT_EQ(pods["items"].size(), 1u) << "one pod: adopted, not created again";
  web::HttpClient api(second->url(), {.token = token()});
  const auto runs = nlohmann::json::parse(api.get("/api/v1/pipelines/long/runs").body)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["tasks"][0]["attempts"].size(), 1u) << "one attempt, adopted";
  second->signal(SIGTERM);
  second->wait();
}

// SIGTERM: the server answers, closes and exits 0; the database is free for the next one.
TEST_F(ServeCommand, SigtermStopsGracefully) {
  auto server = serve();
  server->signal(SIGTERM);
  const int status = server->wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(server->line(), "gantry serve: stopped");
  auto second = serve({}, "second");
  EXPECT_FALSE(second->url().empty()) << "the lock was released";
}

TEST_F(ServeCommand, ASecondServerOnTheSameDatabaseIsRefused) {
  auto first = serve();
  const Outcome second = run("serve --db " + db() + " --listen 127.0.0.1:0 --cluster " + kSource +
                             "/scenarios/quickstart.yaml");
  EXPECT_EQ(second.exit_code(), 2);
  EXPECT_NE(second.err.find("in use"), std::string::npos) << second.err;
}

// --pipelines DIR is applied at start and again on SIGHUP: a file added to the folder appears
// (its "pipeline" event is the signal that it was applied), the one already there is unchanged.
TEST_F(ServeCommand, SighupReloadsThePipelinesFolder) {
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "nightly.yaml") << kTwoTasks;
  auto server = serve({"--pipelines", (dir_ / "pipelines").string()});
  ASSERT_FALSE(server->url().empty());
  std::string second = kTwoTasks;
  second.replace(second.find("name: nightly"), 13, "name: weekly");
  std::ofstream(dir_ / "pipelines" / "weekly.yaml") << second;
  server->signal(SIGHUP);
  watch(server->url(), [](const std::string& type, const nlohmann::json& d) {
    return type == "pipeline" && d["name"] == "weekly";
  });
  web::HttpClient client(server->url(), {.token = token()});
  const auto list = nlohmann::json::parse(client.get("/api/v1/pipelines").body)["pipelines"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["name"], "nightly");
  EXPECT_EQ(list[1]["name"], "weekly");
}

// Crash safety (issue 10): a minutely pipeline at --speed 6000 (100 simulated minutes a wall
// second, up to 8 runs in flight, 90-second tasks) is killed with SIGKILL while runs and attempts
// are in flight, then started again on the same database and folder. Afterwards:
//  - every tick from the first to the last has exactly one run (created once; catch-up true
//    fills the ticks that fell due while it was down);
//  - every run that had finished before the kill is exactly as it was (not redone);
//  - every attempt that was running at the kill was settled by recover(): ended lost, and its
//    task got a new attempt (LostAttempts::kRerun);
//  - the schedule went on past the kill, and attempt ids were never reused.
TEST_F(ServeCommand, KillNineUnderLoadLosesNothing) {
  const auto minute_floor = [] {
    const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    return format_rfc3339(Time::from_micros(us / 60'000'000 * 60'000'000));
  };
  fs::create_directories(dir_ / "pipelines");
  std::ofstream(dir_ / "pipelines" / "minutely.yaml")
      << "apiVersion: gantry.dev/v1\nkind: Pipeline\n"
         "metadata: {name: minutely}\nspec:\n  schedule: {cron: \"* * * * *\", start: " +
             minute_floor() +
             "}\n"
             "  concurrency: {maxActiveRuns: 8}\n  tasks:\n"
             "  - {name: extract, image: x, resources: {cpu: \"1\", memory: 1Gi}, simulate: "
             "{duration: 90s}}\n"
             "  - {name: load, image: x, resources: {cpu: \"1\", memory: 1Gi}, dependsOn: "
             "[extract], simulate: {duration: 90s}}\n";
  const std::vector<std::string> args = {"--speed", "6000", "--pipelines",
                                         (dir_ / "pipelines").string()};

  auto first = serve(args, "first");
  ASSERT_FALSE(first->url().empty());
  int created = 0;
  watch(first->url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type == "run" && d.contains("trigger")) ++created;
    if (created < 150) return false;
    first->signal(SIGKILL);  // mid-stream: runs and attempts are in flight
    return true;
  });
  ASSERT_TRUE(WIFSIGNALED(first->wait()));

  struct Row {
    std::string state;
    std::vector<std::string> attempts;  // "task/idx start end state id"
  };
  const auto read_runs = [&] {
    std::map<int64_t, Row> runs;
    Database d = Database::open(db(), {.create = false, .read_only = true});
    Statement r = d.prepare("SELECT id, logical_us, state FROM runs WHERE pipeline = 'minutely'");
    std::map<int64_t, int64_t> logical_of;
    while (r.step()) {
      logical_of[r.column_int64(0)] = r.column_int64(1);
      runs[r.column_int64(1)].state = r.column_text(2);
    }
    Statement a = d.prepare(
        "SELECT run_id, task, idx, start_us, coalesce(end_us, -1), state, attempt_id FROM attempts "
        "ORDER BY run_id, task, idx");
    while (a.step())
      runs[logical_of[a.column_int64(0)]].attempts.push_back(
          a.column_text(1) + "/" + std::to_string(a.column_int64(2)) + " " +
          std::to_string(a.column_int64(3)) + " " + std::to_string(a.column_int64(4)) + " " +
          a.column_text(5) + " " + std::to_string(a.column_int64(6)));
    return runs;
  };
  const std::map<int64_t, Row> before = read_runs();
  ASSERT_GE(before.size(), 150u);
  int64_t max_id_before = 0, in_flight = 0;
  for (const auto& [lt, row] : before)
    for (const std::string& a : row.attempts) {
      max_id_before = std::max<int64_t>(max_id_before, std::stoll(a.substr(a.rfind(' ') + 1)));
      in_flight += a.find(" -1 ") != std::string::npos;
    }
  ASSERT_GT(in_flight, 0) << "the kill should catch attempts running";

  auto second = serve(args, "second");
  ASSERT_FALSE(second->url().empty()) << slurp(dir_ / "second.stderr");
  const int64_t last_before = before.rbegin()->first;
  watch(second->url(), [&](const std::string& type, const nlohmann::json& d) {
    Time t;
    return type == "run" && d.contains("trigger") && parse_rfc3339(d["logicalTime"], t) &&
           t.micros() > last_before + 100 * 60'000'000LL;
  });
  second->signal(SIGTERM);
  ASSERT_EQ(WEXITSTATUS(second->wait()), 0);

  const std::map<int64_t, Row> after = read_runs();
  int64_t expected = after.begin()->first;
  for (const auto& [lt, row] : after) {
    ASSERT_EQ(lt, expected) << "one run per minute, none missing";
    expected += 60'000'000;
  }
  for (const auto& [lt, row] : before) {
    const Row& now = after.at(lt);
    const bool finished = row.state == "succeeded" || row.state == "failed";
    if (finished) {
      EXPECT_EQ(now.state, row.state) << lt;
      EXPECT_EQ(now.attempts, row.attempts) << "a finished run is not redone: " << lt;
      continue;
    }
    for (size_t i = 0; i < row.attempts.size(); ++i) {
      const std::string& a = row.attempts[i];
      if (a.find(" -1 ") == std::string::npos) continue;
      const std::string key = a.substr(0, a.find(' '));
      const auto settled =
          std::find_if(now.attempts.begin(), now.attempts.end(),
                       [&](const std::string& x) { return x.rfind(key + " ", 0) == 0; });
      ASSERT_NE(settled, now.attempts.end());
      EXPECT_NE(settled->find(" lost "), std::string::npos) << "settled by recover(): " << *settled;
      const std::string task = key.substr(0, key.find('/'));
      const int idx = std::stoi(key.substr(key.find('/') + 1));
      const std::string next = task + "/" + std::to_string(idx + 1) + " ";
      EXPECT_TRUE(std::any_of(now.attempts.begin(), now.attempts.end(),
                              [&](const std::string& x) { return x.rfind(next, 0) == 0; }))
          << "the lost attempt's task ran again: " << key << " of " << lt;
    }
  }
  EXPECT_GT(after.rbegin()->first, last_before) << "the schedule went on";
  std::set<int64_t> ids;
  for (const auto& [lt, row] : after)
    for (const std::string& a : row.attempts) {
      const int64_t id = std::stoll(a.substr(a.rfind(' ') + 1));
      EXPECT_TRUE(ids.insert(id).second) << "attempt id " << id << " reused";
    }
  EXPECT_GT(*ids.rbegin(), max_id_before);
}

}  // namespace serve_command_test
}  // namespace gantry::testing
