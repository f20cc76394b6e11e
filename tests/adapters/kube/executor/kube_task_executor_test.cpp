// KubeTaskExecutor against the fake API server: attempts become objects, pod status becomes
// attempt_running / attempt_finished on a virtual-time loop, kill deletes, a new executor
// adopts what an earlier one started, and API faults (409, 429) are handled.
//
// Synchronisation: the executor posts everything it learns to the loop through a hook that
// counts posts; run_until() runs the loop and waits for the next post (never a sleep). The
// fake server's pod status is written by the test, as a kubelet would.

#include "adapters/kube/executor/kube_task_executor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "tests/adapters/kube/captured_log.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::kube {
namespace kube_task_executor_test {

using nlohmann::json;
using testing::CapturedLog;
using testing::FakeApiServer;
using testing::Fault;
using testing::RecordingSleeper;

const Time kLogical = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
const Time kNow = Time::from_micros(1'767'226'200'000'000);      // 2026-01-01T00:10:00Z
const std::string kPods = "/api/v1/namespaces/ml/pods";
const std::string kServices = "/api/v1/namespaces/ml/services";
const std::string kConfigMaps = "/api/v1/namespaces/ml/configmaps";
const std::string kBase = "train-pt-20260101000000-a7";  // attempt 7 (attempt_plan_test)

// A virtual-time loop whose posts are counted, so the test can wait for the next one.
class TestLoop {
 public:
  EventLoop& loop() { return *loop_; }

  void post(std::function<void()> fn) {
    loop_->post(std::move(fn));
    {
      std::lock_guard lock(mutex_);
      ++posted_;
    }
    cv_.notify_all();
  }

  // Runs the loop until `done()` holds; false if no post comes for 30 s (a failure, never a
  // synchronisation: the executor posts what the test waits for).
  template <typename Done>
  bool run_until(Done done) {
    while (true) {
      uint64_t seen;
      {
        std::lock_guard lock(mutex_);
        seen = posted_;
      }
      loop_->run_until(loop_->now());
      if (done()) return true;
      std::unique_lock lock(mutex_);
      if (!cv_.wait_for(lock, std::chrono::seconds(30), [&] { return posted_ != seen; }))
        return false;
    }
  }

 private:
  std::unique_ptr<EventLoop> loop_ = EventLoop::virtual_time(kNow);
  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t posted_ = 0;
};

struct Recorder final : AttemptListener {
  std::vector<std::string> events;  // "running 7 2026-01-01T00:04:00Z", "finished 7 failed ..."
  void attempt_running(AttemptId id, Time at) override {
    events.push_back("running " + std::to_string(id) + " " + format_rfc3339(at));
  }
  void attempt_finished(AttemptId id, const AttemptResult& r) override {
    const char* outcome = r.outcome == AttemptOutcome::kSucceeded ? "succeeded"
                          : r.outcome == AttemptOutcome::kFailed  ? "failed"
                                                                  : "error";
    events.push_back("finished " + std::to_string(id) + " " + outcome +
                     (r.reason.empty() ? "" : " " + r.reason));
  }
};

// "2026-01-01T00:0M:00Z"
std::string fmt_min(int m) { return "2026-01-01T00:0" + std::to_string(m) + ":00Z"; }

// A Status as kube-apiserver answers a refused call.
std::string status_body(int code, const std::string& reason, const std::string& message) {
  return json{{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
              {"status", "Failure"}, {"message", message}, {"reason", reason},
              {"code", code}}
      .dump();
}

json running(const std::string& started_at) {
  return {{"phase", "Running"},
          {"startTime", "2026-01-01T00:00:30Z"},
          {"containerStatuses",
           json::array({{{"name", "c"}, {"state", {{"running", {{"startedAt", started_at}}}}}}})}};
}

json terminated(const std::string& phase, int exit_code, const std::string& reason) {
  return {{"phase", phase},
          {"containerStatuses", json::array({{{"name", "c"},
                                              {"state",
                                               {{"terminated",
                                                 {{"exitCode", exit_code},
                                                  {"reason", reason},
                                                  {"startedAt", "2026-01-01T00:01:00Z"}}}}}}})}};
}

struct ExecutorFixture : ::testing::Test {
  FakeApiServer server;
  VirtualClock client_clock{kNow};
  RecordingSleeper sleeper{&client_clock};
  KubeClient client{testing::config_for(server.url()), [this] {
                      KubeClientOptions o;
                      o.qps = 0;
                      o.clock = &client_clock;
                      o.sleeper = &sleeper;
                      return o;
                    }()};
  TestLoop loop;
  Recorder recorder;
  PipelineSpec pipeline;
  TaskSpec task;

  ExecutorFixture() {
    server.create_namespace("ml");
    pipeline.name = "train";
    pipeline.namespace_name = "ml";
    task.name = "pt";
    task.image = "ghcr.io/acme/train:1";
  }

  std::unique_ptr<KubeTaskExecutor> make() {
    KubeExecutorOptions o;
    o.post = [this](std::function<void()> fn) { loop.post(std::move(fn)); };
    auto e = std::make_unique<KubeTaskExecutor>(loop.loop(), client, o);
    EXPECT_TRUE(e->wait_for_sync());
    return e;
  }

  AttemptRequest request(AttemptId id) {
    AttemptRequest r;
    r.id = id;
    r.pipeline = &pipeline;
    r.task = &task;
    r.logical_time = kLogical;
    r.requests = Resources{2000, int64_t{8} << 30, 1, 0};
    return r;
  }

  void pytorch(int workers) {
    task.template_kind = TaskTemplate::kPyTorchJob;
    task.replicas = {{"master", 1}, {"worker", workers}};
  }

  std::vector<std::string> pod_names(int workers) const {
    std::vector<std::string> out = {kBase + "-master-0"};
    for (int i = 0; i < workers; ++i) out.push_back(kBase + "-worker-" + std::to_string(i));
    return out;
  }

  // The status a kubelet would write.
  void set_status(const std::string& pod, const json& status) {
    std::optional<json> p = server.get(kPods, pod);
    ASSERT_TRUE(p) << pod;
    (*p)["status"] = status;
    server.apply(kPods, *p);
  }

  bool exists(const std::string& collection, const std::string& name) const {
    return server.get(collection, name).has_value();
  }

  // Runs the loop until the executor has seen `pod` of `id` in `phase`.
  bool seen(const KubeTaskExecutor& e, AttemptId id, const std::string& pod, PodPhase phase) {
    return loop.run_until([&] { return e.pod_phase(id, pod) == phase; });
  }

  size_t count(const std::string& method, const std::string& path) const {
    size_t n = 0;
    for (const auto& r : server.requests()) n += r.method == method && r.path == path;
    return n;
  }
};

TEST_F(ExecutorFixture, PyTorchJobRunsAndSucceeds) {
  pytorch(3);
  auto e = make();
  e->start(request(7), recorder);
  EXPECT_TRUE(recorder.events.empty());  // never from start()
  EXPECT_EQ(e->base_name(7), kBase);
  const std::vector<std::string> pods = pod_names(3);
  ASSERT_TRUE(seen(*e, 7, pods[3], PodPhase::kPending));

  // The owner ConfigMap, the headless Service and four pods, owned by the ConfigMap.
  const auto owner = server.get(kConfigMaps, kBase);
  ASSERT_TRUE(owner);
  const std::string owner_uid = (*owner)["metadata"]["uid"];
  const auto service = server.get(kServices, kBase);
  ASSERT_TRUE(service);
  EXPECT_EQ((*service)["spec"]["clusterIP"], "None");
  EXPECT_EQ((*service)["metadata"]["ownerReferences"][0]["uid"], owner_uid);
  const std::string master = kBase + "-master-0." + kBase + ".ml.svc";
  for (int i = 0; i < 4; ++i) {
    const auto pod = server.get(kPods, pods[i]);
    ASSERT_TRUE(pod) << pods[i];
    EXPECT_EQ((*pod)["metadata"]["ownerReferences"][0]["uid"], owner_uid);
    EXPECT_EQ((*pod)["spec"]["schedulerName"], "gantry");
    std::map<std::string, std::string> env;
    for (const json& v : (*pod)["spec"]["containers"][0]["env"]) env[v["name"]] = v["value"];
    // WORLD_SIZE = 1 master + 3 workers; RANK = gang index.
    EXPECT_EQ(env["WORLD_SIZE"], "4");
    EXPECT_EQ(env["RANK"], std::to_string(i));
    EXPECT_EQ(env["MASTER_ADDR"], master);
    EXPECT_EQ(env["MASTER_PORT"], "23456");
  }
  EXPECT_EQ(count("POST", kPods), 4u);

  // Running once all four run, since the last start (00:04:00), which is before now (00:10).
  for (int i = 0; i < 3; ++i) set_status(pods[i], running(fmt_min(i + 1)));
  ASSERT_TRUE(seen(*e, 7, pods[2], PodPhase::kRunning));
  EXPECT_TRUE(recorder.events.empty());
  set_status(pods[3], running(fmt_min(4)));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  EXPECT_EQ(recorder.events[0], "running 7 2026-01-01T00:04:00Z");

  for (int i = 0; i < 3; ++i) set_status(pods[i], terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(seen(*e, 7, pods[2], PodPhase::kSucceeded));
  EXPECT_EQ(recorder.events.size(), 1u);
  set_status(pods[3], terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 2; }));
  EXPECT_EQ(recorder.events[1], "finished 7 succeeded");
  EXPECT_EQ(e->held(), 0u);
  EXPECT_EQ(e->kill(7), KillAck::kUnknown);  // already reported finished
  // A succeeded attempt's objects stay (for its logs).
  EXPECT_TRUE(exists(kPods, pods[0]));
  e->wait_for_api_calls();
  EXPECT_EQ(e->stats().created, 6);  // ConfigMap + Service + 4 pods
}

TEST_F(ExecutorFixture, FailedPodEndsTheAttemptWithItsExitCodeAndStopsTheGang) {
  pytorch(2);
  auto e = make();
  e->start(request(7), recorder);
  const std::vector<std::string> pods = pod_names(2);
  ASSERT_TRUE(seen(*e, 7, pods[2], PodPhase::kPending));
  for (const std::string& p : pods) set_status(p, running("2026-01-01T00:02:00Z"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  set_status(pods[1], terminated("Failed", 137, "OOMKilled"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 2; }));
  EXPECT_EQ(recorder.events[1],
            "finished 7 failed pod " + pods[1] + " failed: exit code 137 (OOMKilled)");
  // The master and the other worker still ran: deleted; the failed pod stays for its log.
  e->wait_for_api_calls();  // the deletion end() queued
  EXPECT_FALSE(exists(kPods, pods[0]));
  EXPECT_FALSE(exists(kPods, pods[2]));
  EXPECT_TRUE(exists(kPods, pods[1]));
  EXPECT_EQ(recorder.events.size(), 2u);
}

// An attempt that ended keeps its objects for keep_finished (24 h by default), then they are
// deleted: the owner ConfigMap and the pod (the run history is Gantry's, not the cluster's).
TEST_F(ExecutorFixture, TheObjectsOfAnEndedAttemptGoAfterKeepFinished) {
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  set_status(kBase, terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 2; }));
  EXPECT_TRUE(exists(kPods, kBase)) << "kept for its logs";
  loop.loop().run_until(loop.loop().now() + hours(24) - seconds(1));
  e->wait_for_api_calls();
  EXPECT_TRUE(exists(kPods, kBase)) << "a second before keep_finished";
  loop.loop().run_until(loop.loop().now() + seconds(1));
  e->wait_for_api_calls();
  EXPECT_FALSE(exists(kPods, kBase));
  EXPECT_FALSE(exists(kConfigMaps, kBase));
}

TEST_F(ExecutorFixture, ContainerFailsWithExitCode) {
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  EXPECT_FALSE(exists(kServices, kBase));  // no Service for a single pod
  set_status(kBase, terminated("Failed", 3, "Error"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 2; }));
  // It ran (its container started at 00:01:00) before it failed.
  EXPECT_EQ(recorder.events, (std::vector<std::string>{"running 7 2026-01-01T00:01:00Z",
                                                       "finished 7 failed pod " + kBase +
                                                           " failed: exit code 3 (Error)"}));
}

TEST_F(ExecutorFixture, EvictedOrDeletedPodIsAnError) {
  auto e = make();
  e->start(request(7), recorder);
  e->start(request(8), recorder);
  const std::string pod8 = "train-pt-20260101000000-a8";
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  ASSERT_TRUE(seen(*e, 8, pod8, PodPhase::kPending));
  set_status(kBase, {{"phase", "Failed"},
                     {"reason", "Evicted"},
                     {"message", "The node was low on resource: memory."}});
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  EXPECT_EQ(recorder.events[0],
            "finished 7 error pod " + kBase + ": Evicted: The node was low on resource: memory.");
  // Attempt 8's pod is deleted by someone else while it waits.
  ASSERT_TRUE(server.remove(kPods, pod8));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 2; }));
  EXPECT_EQ(recorder.events[1], "finished 8 error pod " + pod8 + " was deleted before it finished");
}

TEST_F(ExecutorFixture, KillDeletesEverythingWithPreconditionsAndReportsNothing) {
  pytorch(1);
  auto e = make();
  e->start(request(7), recorder);
  const std::vector<std::string> pods = pod_names(1);
  ASSERT_TRUE(seen(*e, 7, pods[1], PodPhase::kPending));
  std::map<std::string, std::string> uids;  // path → uid
  uids[kConfigMaps + "/" + kBase] = (*server.get(kConfigMaps, kBase))["metadata"]["uid"];
  uids[kServices + "/" + kBase] = (*server.get(kServices, kBase))["metadata"]["uid"];
  for (const std::string& p : pods)
    uids[kPods + "/" + p] = (*server.get(kPods, p))["metadata"]["uid"];
  set_status(pods[0], running("2026-01-01T00:02:00Z"));
  ASSERT_TRUE(seen(*e, 7, pods[0], PodPhase::kRunning));

  EXPECT_EQ(e->kill(7), KillAck::kKilled);
  EXPECT_EQ(e->kill(7), KillAck::kUnknown);
  EXPECT_EQ(e->held(), 0u);
  e->wait_for_api_calls();
  EXPECT_FALSE(exists(kPods, pods[0]));
  EXPECT_FALSE(exists(kPods, pods[1]));
  EXPECT_FALSE(exists(kServices, kBase));
  EXPECT_FALSE(exists(kConfigMaps, kBase));
  // Every DELETE named the uid it meant.
  size_t deletes = 0;
  for (const auto& r : server.requests()) {
    if (r.method != "DELETE") continue;
    ++deletes;
    const json body = json::parse(r.body);
    EXPECT_EQ(body["preconditions"]["uid"], uids.at(r.path)) << r.path;
  }
  EXPECT_EQ(deletes, 4u);
  // The deletions' events reach the loop before those of a later attempt's pod: once the
  // executor has seen attempt 8's pod, it has seen them too — and reported nothing.
  e->start(request(8), recorder);
  ASSERT_TRUE(seen(*e, 8, "train-pt-20260101000000-a8-master-0", PodPhase::kPending));
  EXPECT_TRUE(recorder.events.empty());
}

TEST_F(ExecutorFixture, KillDuringCreationStopsItAndDeletesWhatWasMade) {
  pytorch(1);
  Fault hold;
  hold.method = "POST";
  hold.path_prefix = kPods;
  hold.hold = true;  // the master's create waits in the server
  server.inject(hold);
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(server.wait_for_held(1));
  EXPECT_EQ(e->kill(7), KillAck::kKilled);
  server.release_held();  // the master is created after the kill...
  e->wait_for_api_calls();
  // ... and deleted with the rest; the worker was never created.
  EXPECT_EQ(count("POST", kPods), 1u);
  EXPECT_FALSE(exists(kPods, kBase + "-master-0"));
  EXPECT_FALSE(exists(kServices, kBase));
  EXPECT_FALSE(exists(kConfigMaps, kBase));
  EXPECT_TRUE(recorder.events.empty());
}

TEST_F(ExecutorFixture, AdoptingAnAttemptStillHeldReportsItToTheNewListener) {
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  set_status(kBase, running("2026-01-01T00:06:00Z"));
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  Recorder second;
  ASSERT_TRUE(e->adopt(7, second));  // the scheduler restarted in this process
  ASSERT_TRUE(loop.run_until([&] { return second.events.size() == 1; }));
  EXPECT_EQ(second.events[0], "running 7 2026-01-01T00:06:00Z");
  set_status(kBase, terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(loop.run_until([&] { return second.events.size() == 2; }));
  EXPECT_EQ(second.events[1], "finished 7 succeeded");
  EXPECT_EQ(recorder.events.size(), 1u);
}

TEST_F(ExecutorFixture, ANewExecutorAdoptsRunningPodsWithoutCreatingThemAgain) {
  pytorch(1);
  const std::vector<std::string> pods = pod_names(1);
  {
    auto first = make();
    first->start(request(7), recorder);
    ASSERT_TRUE(seen(*first, 7, pods[1], PodPhase::kPending));
    set_status(pods[0], running("2026-01-01T00:03:00Z"));
    set_status(pods[1], running("2026-01-01T00:05:00Z"));
    ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  }  // the process stops
  server.clear_requests();
  Recorder second_listener;
  auto second = make();
  EXPECT_FALSE(second->adopt(99, second_listener));  // never started
  ASSERT_TRUE(second->adopt(7, second_listener));
  EXPECT_TRUE(second_listener.events.empty());  // never synchronously
  // Reported again with its real start (before now), then its end.
  ASSERT_TRUE(loop.run_until([&] { return second_listener.events.size() == 1; }));
  EXPECT_EQ(second_listener.events[0], "running 7 2026-01-01T00:05:00Z");
  for (const std::string& p : pods) set_status(p, terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(loop.run_until([&] { return second_listener.events.size() == 2; }));
  EXPECT_EQ(second_listener.events[1], "finished 7 succeeded");
  EXPECT_EQ(recorder.events.size(), 1u);  // the old listener heard nothing more
  for (const auto& r : server.requests()) EXPECT_NE(r.method, "POST") << r.path;
}

TEST_F(ExecutorFixture, AnAttemptThatEndedWhileNoOneWatchedIsAdoptedAndReported) {
  {
    auto first = make();
    first->start(request(7), recorder);
    ASSERT_TRUE(seen(*first, 7, kBase, PodPhase::kPending));
  }
  set_status(kBase, terminated("Failed", 2, "Error"));  // while the orchestrator was down
  auto second = make();
  Recorder later;
  ASSERT_TRUE(second->adopt(7, later));
  ASSERT_TRUE(loop.run_until([&] { return later.events.size() == 2; }));
  // Its container started at 00:01:00 (terminated.startedAt), then it failed.
  EXPECT_EQ(later.events, (std::vector<std::string>{
                              "running 7 2026-01-01T00:01:00Z",
                              "finished 7 failed pod " + kBase + " failed: exit code 2 (Error)"}));
  EXPECT_TRUE(recorder.events.empty());
}

TEST_F(ExecutorFixture, StartingAgainAfterARestartFindsTheObjectsThere) {
  pytorch(1);
  const std::vector<std::string> pods = pod_names(1);
  {
    auto first = make();
    first->start(request(7), recorder);
    ASSERT_TRUE(seen(*first, 7, pods[1], PodPhase::kPending));
  }
  auto second = make();
  Recorder again;
  second->start(request(7), again);  // 409 AlreadyExists for all four objects
  ASSERT_TRUE(seen(*second, 7, pods[1], PodPhase::kPending));
  second->wait_for_api_calls();
  EXPECT_EQ(second->stats().already_existed, 4);  // ConfigMap, Service, 2 pods
  EXPECT_EQ(second->stats().created, 0);
  EXPECT_EQ(count("POST", kPods), 4u);  // 2 + 2 refused
  for (const std::string& p : pods) set_status(p, terminated("Succeeded", 0, "Completed"));
  ASSERT_TRUE(loop.run_until([&] { return again.events.size() == 2; }));
  EXPECT_EQ(again.events[1], "finished 7 succeeded");
}

TEST_F(ExecutorFixture, AHalfCreatedAttemptIsNotAdopted) {
  pytorch(3);
  // A process stopped after two of four pods: put them there as it would have.
  AttemptRequest r = request(7);
  const AttemptPlan plan = plan_attempt(r, {});
  server.apply(kConfigMaps, plan.owner);
  server.apply(kServices, plan.service);
  server.apply(kPods, plan.pods[0].body);
  server.apply(kPods, plan.pods[1].body);
  auto e = make();
  EXPECT_FALSE(e->adopt(7, recorder));
  e->wait_for_api_calls();  // the leftovers' deletion
  EXPECT_FALSE(exists(kPods, plan.pods[0].name));
  EXPECT_FALSE(exists(kPods, plan.pods[1].name));
  EXPECT_FALSE(exists(kConfigMaps, kBase));
  EXPECT_FALSE(exists(kServices, kBase));
  EXPECT_TRUE(recorder.events.empty());
}

TEST_F(ExecutorFixture, TooManyRequestsOnCreateIsRetriedAfterRetryAfter) {
  Fault f;
  f.method = "POST";
  f.path_prefix = kPods;
  f.status = 429;
  f.retry_after_seconds = 2;
  server.inject(f);
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  EXPECT_EQ(count("POST", kPods), 2u);  // 429, then 201
  EXPECT_EQ(sleeper.waits(), (std::vector<Duration>{seconds(2)}));
  e->wait_for_api_calls();
  EXPECT_EQ(e->stats().created, 2);  // ConfigMap + pod
  EXPECT_TRUE(recorder.events.empty());
}

TEST_F(ExecutorFixture, RefusedCreateEndsAsErrorAndCleansUp) {
  Fault f;
  f.method = "POST";
  f.path_prefix = kPods;
  f.status = 403;
  // As a plain API server answers without the ServiceAccount controller
  // (tests/data/k8s-captures/responses/pod-create-403-no-serviceaccount.json).
  const std::string message = "pods \"" + kBase +
                              "\" is forbidden: error looking up service account ml/default: "
                              "serviceaccount \"default\" not found";
  f.body = status_body(403, "Forbidden", message);
  server.inject(f);
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  EXPECT_EQ(recorder.events[0],
            "finished 7 error creating pod ml/" + kBase + ": 403 Forbidden: " + message);
  e->wait_for_api_calls();  // the deletion end() queued
  EXPECT_FALSE(exists(kConfigMaps, kBase));
  EXPECT_EQ(e->stats().api_failures, 1);
}

// A refused create is the attempt's reason, worded for the user (issue 23): the object (kind
// as kubectl names it, namespace/name), then what the API server said — its code, the Status's
// reason and message, as a real kube-apiserver words them — or, without an answer, the
// request and the transport's error. Each attempt (ids 7..12) of a PyTorchJob of a master and
// a worker is refused at another of its objects (ConfigMap, Service, pods); each refusal is
// also logged (kube_log: serve's standard error).
TEST_F(ExecutorFixture, EveryRefusedCreateNamesItsObjectAndTheServersWords) {
  pytorch(1);
  CapturedLog log;
  auto e = make();
  const auto base = [](AttemptId id) { return "train-pt-20260101000000-a" + std::to_string(id); };
  const auto refuse = [&](const std::string& collection, int code, const std::string& reason,
                          const std::string& message) {
    Fault f;
    f.method = "POST";
    f.path_prefix = collection;
    f.status = code;
    f.body = status_body(code, reason, message);
    server.inject(f);
  };
  // Runs attempt `id` to its end; its reason.
  const auto attempt = [&](AttemptId id) {
    const size_t before = recorder.events.size();
    e->start(request(id), recorder);
    EXPECT_TRUE(loop.run_until([&] { return recorder.events.size() == before + 1; }));
    const std::string prefix = "finished " + std::to_string(id) + " error ";
    const std::string& event = recorder.events.back();
    EXPECT_EQ(event.rfind(prefix, 0), 0u) << event;
    return event.substr(prefix.size());
  };

  // The namespace does not exist: the first object, the owner ConfigMap, is refused.
  refuse(kConfigMaps, 404, "NotFound", R"(namespaces "ml" not found)");
  EXPECT_EQ(attempt(7),
            "creating configmap ml/" + base(7) + R"(: 404 NotFound: namespaces "ml" not found)");
  // An invalid Service (422).
  const std::string invalid = "Service \"" + base(8) +
                              "\" is invalid: spec.ports[0].port: Invalid value: 0: must be "
                              "between 1 and 65535, inclusive";
  refuse(kServices, 422, "Invalid", invalid);
  EXPECT_EQ(attempt(8), "creating service ml/" + base(8) + ": 422 Invalid: " + invalid);
  // A pod refused by an admission plugin (403), as the Priority plugin words it.
  const std::string priority = "pods \"" + base(9) +
                               "-master-0\" is forbidden: the integer value of priority (100) "
                               "must not be provided in pod spec; priority admission controller "
                               "computed 0 from the given PriorityClass name";
  refuse(kPods, 403, "Forbidden", priority);
  EXPECT_EQ(attempt(9), "creating pod ml/" + base(9) + "-master-0: 403 Forbidden: " + priority);
  // 409 other than AlreadyExists.
  const std::string conflict = "Operation cannot be fulfilled on configmaps \"" + base(10) +
                               "\": the object has been modified";
  refuse(kConfigMaps, 409, "Conflict", conflict);
  EXPECT_EQ(attempt(10), "creating configmap ml/" + base(10) + ": 409 Conflict: " + conflict);
  // 409 AlreadyExists for a pod of another attempt (ids are never reused: someone else's).
  json stranger = plan_attempt(request(11), {}).pods[0].body;
  stranger["metadata"]["labels"]["gantry.dev/attempt-id"] = "99";
  server.apply(kPods, stranger);
  EXPECT_EQ(attempt(11), "creating pod ml/" + base(11) +
                             "-master-0: 409 AlreadyExists: it is attempt 99's, not attempt 11's");
  // No answer at all: the connection is closed.
  Fault drop;
  drop.method = "POST";
  drop.path_prefix = kConfigMaps;
  drop.drop = true;
  server.inject(drop);
  const std::string dropped = attempt(12);
  const std::string request_words =
      "creating configmap ml/" + base(12) + ": POST " + server.url() + kConfigMaps + ": ";
  EXPECT_EQ(dropped.rfind(request_words, 0), 0u) << dropped;
  EXPECT_GT(dropped.size(), request_words.size()) << "the transport's error follows";

  e->wait_for_api_calls();
  EXPECT_EQ(e->stats().api_failures, 6);
  std::vector<std::string> warnings;
  for (const std::string& line : log.lines())
    if (line.rfind("warning attempt ", 0) == 0) warnings.push_back(line);
  ASSERT_EQ(warnings.size(), 6u) << ::testing::PrintToString(log.lines());
  EXPECT_EQ(warnings[0], "warning attempt 7: creating configmap ml/" + base(7) +
                             R"(: 404 NotFound: namespaces "ml" not found)");
}

// Deletions happen after the attempt was reported (its end, a kill): a refused one cannot be
// the attempt's reason, so it is logged (serve's standard error) and kept in last_error(),
// naming the object and the server's words.
TEST_F(ExecutorFixture, ARefusedDeleteIsLoggedWithTheServersWords) {
  CapturedLog log;
  auto e = make();
  e->start(request(7), recorder);
  ASSERT_TRUE(seen(*e, 7, kBase, PodPhase::kPending));
  const std::string forbidden = "pods \"" + kBase +
                                "\" is forbidden: User \"gantry\" cannot delete resource "
                                "\"pods\" in API group \"\" in the namespace \"ml\"";
  Fault f;
  f.method = "DELETE";
  f.path_prefix = kPods + "/" + kBase;
  f.status = 403;
  f.body = status_body(403, "Forbidden", forbidden);
  server.inject(f);
  EXPECT_EQ(e->kill(7), KillAck::kKilled);
  e->wait_for_api_calls();
  const std::string words = "deleting pod ml/" + kBase + ": 403 Forbidden: " + forbidden;
  EXPECT_EQ(e->last_error(), words);
  EXPECT_EQ(e->stats().api_failures, 1);
  EXPECT_TRUE(exists(kPods, kBase));
  EXPECT_FALSE(exists(kConfigMaps, kBase)) << "the other deletions went on";
  const std::vector<std::string> lines = log.lines();
  EXPECT_NE(std::find(lines.begin(), lines.end(), "warning " + words), lines.end())
      << ::testing::PrintToString(lines);
}

TEST_F(ExecutorFixture, UnsupportedTemplateEndsAsErrorOnALaterTurnUnlessKilled) {
  task.template_kind = TaskTemplate::kSparkJob;
  task.replicas = {{"driver", 1}};
  auto e = make();
  e->start(request(7), recorder);
  e->start(request(8), recorder);
  EXPECT_TRUE(recorder.events.empty());
  EXPECT_EQ(e->kill(8), KillAck::kKilled);
  ASSERT_TRUE(loop.run_until([&] { return recorder.events.size() == 1; }));
  EXPECT_EQ(recorder.events[0],
            "finished 7 error template sparkjob is not supported by the Kubernetes executor");
  loop.loop().run_until(loop.loop().now());
  EXPECT_EQ(recorder.events.size(), 1u);  // 8's error was posted with 7's, and dropped
  EXPECT_EQ(count("POST", kConfigMaps), 0u);
}

TEST_F(ExecutorFixture, LogsOfEachPodThroughTheApiServer) {
  pytorch(1);
  auto e = make();
  e->start(request(7), recorder);
  const std::vector<std::string> pods = pod_names(1);
  ASSERT_TRUE(seen(*e, 7, pods[1], PodPhase::kPending));
  Fault log;
  log.method = "GET";
  log.path_prefix = kPods + "/" + pods[0] + "/log";
  log.status = 200;
  log.content_type = "text/plain";
  log.body = "epoch 1 loss 0.5\n";
  server.inject(log);
  std::optional<std::vector<PodLog>> logs;
  e->fetch_logs(7, LogOptions{100, std::nullopt}, [&](std::vector<PodLog> l) { logs = l; });
  ASSERT_TRUE(loop.run_until([&] { return logs.has_value(); }));
  ASSERT_EQ(logs->size(), 2u);
  EXPECT_EQ((*logs)[0].pod, pods[0]);
  EXPECT_EQ((*logs)[0].role, "master");
  EXPECT_EQ((*logs)[0].text, "epoch 1 loss 0.5\n");
  EXPECT_EQ((*logs)[0].error, "");
  EXPECT_EQ((*logs)[1].pod, pods[1]);
  EXPECT_EQ((*logs)[1].gang_index, 1);
  EXPECT_EQ((*logs)[1].error.rfind("404 NotFound", 0), 0u) << (*logs)[1].error;
  bool asked = false;
  for (const auto& r : server.requests())
    asked |= r.path == kPods + "/" + pods[0] + "/log" && r.query == "tailLines=100";
  EXPECT_TRUE(asked);
  EXPECT_TRUE(e->read_logs(99).empty());
}

}  // namespace kube_task_executor_test
}  // namespace gantry::kube
