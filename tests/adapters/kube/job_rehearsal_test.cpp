// The rehearsal cluster of issue #25: the fake API server, kubelet-sim --exec running pods'
// commands as local processes, and kubelet-sim's stand-ins for the Job controller and
// kube-scheduler (job_controller_sim.hpp, default_scheduler_sim.hpp). An Indexed Job is created
// as `gantry sweep --on kubernetes` creates one, and runs to its end with real processes.
//
// The event loop runs on a wall clock (speed 100: a grace period of 30 s is 0.3 s of wall time)
// on a thread of its own; the test waits on the API server's state (FakeApiServer::wait_until:
// woken by each write), never on a clock.

#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "adapters/kube/kubelet_sim/container_env.hpp"
#include "adapters/kube/kubelet_sim/default_scheduler_sim.hpp"
#include "adapters/kube/kubelet_sim/indexed_job.hpp"
#include "adapters/kube/kubelet_sim/job_controller_sim.hpp"
#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"
#include "adapters/kube/kubelet_sim/pod_process.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace job_rehearsal_test {

using nlohmann::json;
using testing::FakeApiServer;

constexpr const char* kJobs = "/apis/batch/v1/namespaces/ml/jobs";
constexpr const char* kPods = "/api/v1/namespaces/ml/pods";
constexpr const char* kSecrets = "/api/v1/namespaces/ml/secrets";
constexpr int64_t kGi = int64_t{1} << 30;

Topology topology() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(
      NodeClass{"cpu", Resources{16'000, 64 * kGi, 0, 0}, t.gpus.find("A100-80G"), 0});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

// The fake API server with the namespace "ml", kubelet-sim (--exec) for topology()'s nodes, the
// Job controller and scheduler stand-ins, and the event loop running on its own thread.
struct Rehearsal {
  explicit Rehearsal(KubeletSimOptions extra = {}) {
    fake.create_namespace("ml");
    extra.exec = true;
    extra.pod_startup = Duration(0);
    extra.renew_leases = false;
    kubelet = std::make_unique<KubeletSim>(client, workers, *loop, topology(), extra);
    kubelet->start();
    jobs = std::make_unique<JobControllerSim>(client, workers, *loop);
    jobs->start();
    scheduler = std::make_unique<DefaultSchedulerSim>(
        client, workers, *loop, std::vector<std::string>{"r1-n000", "r1-n001"});
    scheduler->start();
    // Pod logs through the API server, as it proxies them from the pod's kubelet.
    fake.serve_pod_logs([this](const std::string& ns, const std::string& pod) {
      return kubelet->container_log(ns, pod);
    });
    runner = std::thread([this] { loop->run(); });
  }
  ~Rehearsal() {
    loop->stop();
    runner.join();
    scheduler->stop();
    jobs->stop();
    kubelet->stop();  // kills what still runs
    workers.wait_idle();
  }
  Rehearsal(const Rehearsal&) = delete;
  Rehearsal& operator=(const Rehearsal&) = delete;

  std::optional<json> job(const std::string& name) const { return fake.get(kJobs, name); }
  // The Job's pods, in name order.
  std::vector<json> pods_of(const std::string& job) {
    const json list =
        client.get(std::string(kPods) + "?labelSelector=batch.kubernetes.io%2Fjob-name%3D" + job);
    return list["items"].get<std::vector<json>>();
  }
  // Waits for the Job's condition `type` (True).
  bool wait_for_condition(const std::string& name, const std::string& type) const {
    return fake.wait_until([&] {
      const std::optional<json> j = job(name);
      if (!j) return false;
      for (const json& c : j->value("status", json::object()).value("conditions", json::array()))
        if (c.value("type", "") == type && c.value("status", "") == "True") return true;
      return false;
    });
  }

  FakeApiServer fake{{.garbage_collector = true}};  // as kube-controller-manager's
  std::unique_ptr<EventLoop> loop =
      std::make_unique<EventLoop>(std::make_unique<WallClock>(WallClock().now(), 100));
  KubeClient client{testing::config_for(fake.url())};
  ApiWorkers workers{4};
  std::unique_ptr<KubeletSim> kubelet;
  std::unique_ptr<JobControllerSim> jobs;
  std::unique_ptr<DefaultSchedulerSim> scheduler;
  std::thread runner;
};

// An Indexed Job as sweep_job.hpp shapes one: `script` run by sh, the token from a Secret.
json indexed_job(const std::string& name, int completions, int parallelism,
                 const std::string& script,
                 std::optional<int> backoff_limit_per_index = std::nullopt) {
  json job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", name}, {"labels", {{"gantry.dev/sweep", name}}}}},
      {"spec",
       {{"completionMode", "Indexed"},
        {"completions", completions},
        {"parallelism", parallelism},
        {"template",
         {{"metadata", {{"labels", {{"gantry.dev/sweep", name}}}}},
          {"spec",
           {{"restartPolicy", "Never"},
            {"containers",
             {{{"name", "sweep-worker"},
               {"image", "registry.example/gantry:1.0"},
               {"command", {"sh", "-c", script}},
               {"terminationMessagePolicy", "FallbackToLogsOnError"},
               {"env",
                {{{"name", "TOKEN"},
                  {"valueFrom",
                   {{"secretKeyRef", {{"name", name + "-token"}, {"key", "token"}}}}}}}}}}}}}}}}}};
  if (backoff_limit_per_index) job["spec"]["backoffLimitPerIndex"] = *backoff_limit_per_index;
  return job;
}

json secret(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name + "-token"}}},
          {"stringData", {{"token", "s3cret"}}}};
}

// The pods of `pods` whose completion index is `ix`.
std::vector<json> of_index(const std::vector<json>& pods, int64_t ix) {
  std::vector<json> out;
  for (const json& p : pods)
    if (completion_index(p) == ix) out.push_back(p);
  return out;
}

TEST(IndexedJob, IndexIntervalsAreWrittenAsTheJobControllerWritesThem) {
  EXPECT_EQ(index_intervals({}), "");
  EXPECT_EQ(index_intervals({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(index_intervals({0, 1, 2, 4}), "0-2,4");
  EXPECT_EQ(index_intervals({1, 2}), "1,2");               // a run of two is not compressed
  EXPECT_EQ(index_intervals({1, 3, 4, 5, 7}), "1,3-5,7");  // the API reference's example
}

TEST(IndexedJob, FallbackToLogsOnErrorKeepsTheLastEightyLinesAtMost2048Bytes) {
  std::string log;
  for (int i = 0; i < 100; ++i) log += std::to_string(i) + "\n";
  // 100 lines of 2 or 3 bytes (290 bytes): the last 80 are lines 20..99.
  EXPECT_EQ(log_tail_message(log).substr(0, 3), "20\n");
  const std::string big(3000, 'x');
  EXPECT_EQ(log_tail_message(big).size(), 2048u);
}

// The environment the kubelet would give a container: values, Secret (base64) and ConfigMap
// keys, optional references that are missing left out, fieldRefs, HOSTNAME.
TEST(ContainerEnv, ValuesReferencesAndFieldsAsTheKubeletResolvesThem) {
  const json pod = {{"metadata",
                     {{"name", "p-0-abcde"},
                      {"namespace", "ml"},
                      {"uid", "u1"},
                      {"labels", {{"app", "sweep"}}},
                      {"annotations", {{kJobCompletionIndex, "3"}}}}},
                    {"spec", {{"nodeName", "n1"}, {"hostname", "p-0"}}}};
  const json container = {
      {"env",
       {{{"name", "A"}, {"value", "1"}},
        {{"name", "TOKEN"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "token"}}}}}},
        {{"name", "MODE"}, {"valueFrom", {{"configMapKeyRef", {{"name", "c"}, {"key", "mode"}}}}}},
        {{"name", "GONE"},
         {"valueFrom", {{"secretKeyRef", {{"name", "nope"}, {"key", "k"}, {"optional", true}}}}}},
        {{"name", "IX"},
         {"valueFrom",
          {{"fieldRef",
            {{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}}},
        {{"name", "APP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.labels['app']"}}}}}},
        {{"name", "NODE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}}}};
  std::vector<std::string> fetched;
  const ObjectFetch fetch = [&](const std::string& path) -> std::optional<json> {
    fetched.push_back(path);
    if (path == "/api/v1/namespaces/ml/secrets/s") return json{{"data", {{"token", "czNjcmV0"}}}};
    if (path == "/api/v1/namespaces/ml/configmaps/c") return json{{"data", {{"mode", "fast"}}}};
    return std::nullopt;
  };
  const auto env = resolve_container_env(pod, container, fetch);
  ASSERT_EQ(env.index(), 0u) << std::get<1>(env);
  EXPECT_EQ(std::get<0>(env), (std::map<std::string, std::string>{{"A", "1"},
                                                                  {"APP", "sweep"},
                                                                  {"HOSTNAME", "p-0"},
                                                                  {"IX", "3"},
                                                                  {"MODE", "fast"},
                                                                  {"NODE", "n1"},
                                                                  {"TOKEN", "s3cret"}}));
  EXPECT_EQ(fetched.size(), 3u);
  // Not optional: the kubelet's CreateContainerConfigError messages.
  const json missing_key = {
      {"env", {{{"name", "T"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "x"}}}}}}}}};
  EXPECT_EQ(std::get<1>(resolve_container_env(pod, missing_key, fetch)),
            "couldn't find key x in Secret ml/s");
  const json missing_secret = {
      {"env", {{{"name", "T"}, {"valueFrom", {{"secretKeyRef", {{"name", "t"}, {"key", "x"}}}}}}}}};
  EXPECT_EQ(std::get<1>(resolve_container_env(pod, missing_secret, fetch)),
            "secret \"t\" not found");
}

// 4 indexes, 2 at a time: each pod runs `sh` with its index and the Secret's token; the Job
// completes with completedIndexes "0-3".
TEST(JobRehearsal, AnIndexedJobRunsEachIndexOnceAndCompletes) {
  Rehearsal r;
  ASSERT_EQ(r.client.create(kSecrets, secret("sweep-a")).outcome, WriteOutcome::kOk);
  ASSERT_EQ(r.client
                .create(kJobs, indexed_job("sweep-a", 4, 2,
                                           "echo \"index $JOB_COMPLETION_INDEX token $TOKEN host "
                                           "$HOSTNAME\""))
                .outcome,
            WriteOutcome::kOk);
  ASSERT_TRUE(r.wait_for_condition("sweep-a", "Complete"));

  const json status = (*r.job("sweep-a"))["status"];
  EXPECT_EQ(status["completedIndexes"], "0-3");
  EXPECT_EQ(status["succeeded"], 4);
  EXPECT_FALSE(status.contains("failed")) << "omitted at 0, as the Go struct omits it";
  EXPECT_FALSE(status.contains("active"));
  EXPECT_EQ(status["ready"], 0);
  EXPECT_EQ(status["terminating"], 0);
  EXPECT_TRUE(status.contains("completionTime"));
  ASSERT_EQ(status["conditions"].size(), 2u);
  EXPECT_EQ(status["conditions"][0]["type"], "SuccessCriteriaMet");
  EXPECT_EQ(status["conditions"][1]["type"], "Complete");
  EXPECT_EQ(status["conditions"][1]["reason"], "CompletionsReached");

  const std::vector<json> pods = r.pods_of("sweep-a");
  ASSERT_EQ(pods.size(), 4u) << "one pod per index, none retried";
  const std::string job_uid = (*r.job("sweep-a"))["metadata"]["uid"];
  for (int64_t ix = 0; ix < 4; ++ix) {
    const std::vector<json> mine = of_index(pods, ix);
    ASSERT_EQ(mine.size(), 1u) << "index " << ix;
    const json& p = mine[0];
    const std::string name = p["metadata"]["name"];
    const std::string prefix = "sweep-a-" + std::to_string(ix) + "-";
    EXPECT_EQ(name.substr(0, prefix.size()), prefix);
    EXPECT_EQ(name.size(), prefix.size() + 5) << "5 generated characters";
    EXPECT_EQ(p["metadata"]["labels"][kJobCompletionIndex], std::to_string(ix));
    EXPECT_EQ(p["metadata"]["labels"]["batch.kubernetes.io/controller-uid"], job_uid);
    EXPECT_EQ(p["metadata"]["labels"]["gantry.dev/sweep"], "sweep-a");
    EXPECT_EQ(p["spec"]["hostname"], "sweep-a-" + std::to_string(ix));
    const json owner = p["metadata"]["ownerReferences"][0];
    EXPECT_EQ(owner["kind"], "Job");
    EXPECT_EQ(owner["uid"], job_uid);
    EXPECT_EQ(owner["controller"], true);
    const json env = p["spec"]["containers"][0]["env"];
    ASSERT_EQ(env.size(), 2u);
    EXPECT_EQ(env[1]["name"], "JOB_COMPLETION_INDEX");
    EXPECT_EQ(env[1]["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    EXPECT_EQ(p["status"]["phase"], "Succeeded");
    const json terminated = p["status"]["containerStatuses"][0]["state"]["terminated"];
    EXPECT_EQ(terminated["exitCode"], 0);
    EXPECT_EQ(terminated["reason"], "Completed");
    EXPECT_FALSE(terminated.contains("message")) << "FallbackToLogsOnError: only on failure";
    const std::string log =
        "index " + std::to_string(ix) + " token s3cret host sweep-a-" + std::to_string(ix) + "\n";
    EXPECT_EQ(r.kubelet->container_log("ml", name), log);
    const KubeResponse served = r.client.request("GET", std::string(kPods) + "/" + name + "/log");
    EXPECT_EQ(served.status, 200);
    EXPECT_EQ(served.body, log) << "GET pods/NAME/log";
  }
}

// Index 2 fails once (a marker file tells its second run from its first): only index 2 is
// retried, its new pod carries the failure count, and the Job completes.
TEST(JobRehearsal, AFailedIndexIsRetriedAloneAndTheJobCompletes) {
  testing::TempDir dir;
  const std::string mark = dir.file("index-2-failed");
  Rehearsal r;
  ASSERT_EQ(r.client.create(kSecrets, secret("sweep-b")).outcome, WriteOutcome::kOk);
  const std::string script = "if [ \"$JOB_COMPLETION_INDEX\" = 2 ] && [ ! -e " + mark +
                             " ]; then touch " + mark + "; echo boom; exit 3; fi; echo ok";
  ASSERT_EQ(r.client.create(kJobs, indexed_job("sweep-b", 4, 2, script, 1)).outcome,
            WriteOutcome::kOk);
  ASSERT_TRUE(r.wait_for_condition("sweep-b", "Complete"));

  const json status = (*r.job("sweep-b"))["status"];
  EXPECT_EQ(status["completedIndexes"], "0-3");
  EXPECT_EQ(status["failedIndexes"], "") << "written from the start with backoffLimitPerIndex";
  EXPECT_EQ(status["succeeded"], 4);
  EXPECT_EQ(status["failed"], 1);
  const std::vector<json> pods = r.pods_of("sweep-b");
  ASSERT_EQ(pods.size(), 5u) << "4 indexes + 1 retry of index 2";
  for (int64_t ix : {0, 1, 3}) EXPECT_EQ(of_index(pods, ix).size(), 1u) << "index " << ix;
  std::vector<json> twos = of_index(pods, 2);
  ASSERT_EQ(twos.size(), 2u);
  std::sort(twos.begin(), twos.end(), [](const json& a, const json& b) {
    return a["metadata"]["annotations"][kJobIndexFailureCount] <
           b["metadata"]["annotations"][kJobIndexFailureCount];
  });
  EXPECT_EQ(twos[0]["metadata"]["annotations"][kJobIndexFailureCount], "0");
  EXPECT_EQ(twos[0]["status"]["phase"], "Failed");
  const json terminated = twos[0]["status"]["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(terminated["exitCode"], 3);
  EXPECT_EQ(terminated["reason"], "Error");
  EXPECT_EQ(terminated["message"], "boom\n") << "FallbackToLogsOnError: the log's tail";
  EXPECT_EQ(twos[1]["metadata"]["annotations"][kJobIndexFailureCount], "1");
  EXPECT_EQ(twos[1]["status"]["phase"], "Succeeded");
}

// A shard killed half-way (its process SIGKILLed, as the OOM killer would): the pod fails with
// exit code 137, its index alone is run again (the new pod's failure count says 1, which the
// script reads to tell its second run from its first) and the Job completes.
TEST(JobRehearsal, AShardKilledHalfWayIsRunAgainAndTheJobCompletes) {
  Rehearsal r;
  ASSERT_EQ(r.client.create(kSecrets, secret("sweep-g")).outcome, WriteOutcome::kOk);
  json job = indexed_job("sweep-g", 2, 2,
                         "if [ \"$JOB_COMPLETION_INDEX\" = 0 ] && [ \"$FAILURES\" = 0 ]; then "
                         "echo started; exec sleep 1000; fi; echo resumed",
                         1);
  job["spec"]["template"]["spec"]["containers"][0]["env"].push_back(
      {{"name", "FAILURES"},
       {"valueFrom",
        {{"fieldRef",
          {{"fieldPath",
            std::string("metadata.annotations['") + kJobIndexFailureCount + "']"}}}}}});
  ASSERT_EQ(r.client.create(kJobs, job).outcome, WriteOutcome::kOk);
  std::string first;
  ASSERT_TRUE(r.fake.wait_until([&] {
    for (const json& p : of_index(r.pods_of("sweep-g"), 0))
      if (p["status"].value("phase", "") == "Running") first = p["metadata"]["name"];
    return !first.empty();
  }));
  ASSERT_TRUE(r.kubelet->signal_container("ml", first, SIGKILL));
  ASSERT_TRUE(r.wait_for_condition("sweep-g", "Complete"));

  const json status = (*r.job("sweep-g"))["status"];
  EXPECT_EQ(status["completedIndexes"], "0,1");
  EXPECT_EQ(status["failed"], 1);
  EXPECT_EQ(status["succeeded"], 2);
  const std::vector<json> zeros = of_index(r.pods_of("sweep-g"), 0);
  ASSERT_EQ(zeros.size(), 2u);
  for (const json& p : zeros) {
    const std::string name = p["metadata"]["name"];
    if (name == first) {
      EXPECT_EQ(p["status"]["phase"], "Failed");
      EXPECT_EQ(p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
      // Killed as soon as it showed Running: before or after its echo.
      const std::optional<std::string> log = r.kubelet->container_log("ml", name);
      ASSERT_TRUE(log);
      EXPECT_TRUE(*log == "" || *log == "started\n") << *log;
    } else {
      EXPECT_EQ(p["metadata"]["annotations"][kJobIndexFailureCount], "1");
      EXPECT_EQ(p["status"]["phase"], "Succeeded");
      EXPECT_EQ(r.kubelet->container_log("ml", name), "resumed\n");
    }
  }
}

// Index 1 always fails: with backoffLimitPerIndex 1 it runs twice (1 + 1 retry), then it is a
// failed index, and once the others are done the Job fails with reason FailedIndexes.
TEST(JobRehearsal, AnIndexThatExhaustsItsBackoffLimitFailsTheJob) {
  Rehearsal r;
  ASSERT_EQ(r.client.create(kSecrets, secret("sweep-c")).outcome, WriteOutcome::kOk);
  ASSERT_EQ(r.client
                .create(kJobs, indexed_job("sweep-c", 3, 3,
                                           "[ \"$JOB_COMPLETION_INDEX\" != 1 ] || exit 1", 1))
                .outcome,
            WriteOutcome::kOk);
  ASSERT_TRUE(r.wait_for_condition("sweep-c", "Failed"));

  const json status = (*r.job("sweep-c"))["status"];
  EXPECT_EQ(status["completedIndexes"], "0,2");
  EXPECT_EQ(status["failedIndexes"], "1");
  EXPECT_EQ(status["succeeded"], 2);
  EXPECT_EQ(status["failed"], 2);  // index 1: its first run and its one retry
  ASSERT_EQ(status["conditions"].size(), 2u);
  EXPECT_EQ(status["conditions"][0]["type"], "FailureTarget");
  EXPECT_EQ(status["conditions"][1]["type"], "Failed");
  EXPECT_EQ(status["conditions"][1]["reason"], "FailedIndexes");
  EXPECT_EQ(status["conditions"][1]["message"], "Job has failed indexes");
  EXPECT_FALSE(status.contains("completionTime")) << "set on success only";
  EXPECT_EQ(of_index(r.pods_of("sweep-c"), 1).size(), 2u);
}

// Deleting the Job with propagation Background: the Job goes at once, the garbage collector
// deletes its pods (gracefully: kubelet-sim sends SIGTERM and confirms once the process has
// ended) and its token Secret (owned by the Job).
TEST(JobRehearsal, DeletingTheJobInTheBackgroundKillsItsPodsProcessesAndRemovesItsSecret) {
  Rehearsal r;
  ASSERT_EQ(
      r.client.create(kJobs, indexed_job("sweep-d", 4, 2, "echo started; exec sleep 1000")).outcome,
      WriteOutcome::kOk);
  const json job = *r.job("sweep-d");
  json token = secret("sweep-d");
  token["metadata"]["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                                           {"kind", "Job"},
                                           {"name", "sweep-d"},
                                           {"uid", job["metadata"]["uid"]}}};
  ASSERT_EQ(r.client.create(kSecrets, token).outcome, WriteOutcome::kOk);
  // Both pods of the parallelism running: their processes started (a pod is written Running
  // once its process exists, so its log exists too; wait_until wakes on the server's writes).
  ASSERT_TRUE(r.fake.wait_until([&] {
    int running = 0;
    for (const json& p : r.pods_of("sweep-d"))
      running += p["status"].value("phase", "") == "Running" &&
                 r.kubelet->container_log("ml", p["metadata"]["name"]).has_value();
    return running == 2;
  }));
  const std::vector<json> running = r.pods_of("sweep-d");
  ASSERT_EQ(running.size(), 2u);

  DeleteOptions background;
  background.propagation_policy = "Background";
  ASSERT_EQ(r.client.remove(std::string(kJobs) + "/sweep-d", background).outcome,
            WriteOutcome::kOk);
  EXPECT_FALSE(r.job("sweep-d")) << "the Job goes at once";
  EXPECT_FALSE(r.fake.get(kSecrets, "sweep-d-token")) << "its Secret with it";
  ASSERT_TRUE(r.fake.wait_until([&] { return r.pods_of("sweep-d").empty(); }));

  // Each pod was ended by SIGTERM (exit code 128 + 15) before its deletion was confirmed.
  int confirmed_143 = 0;
  for (const testing::RecordedRequest& q : r.fake.requests())
    if (q.method == "PATCH" && q.path.find("/pods/sweep-d-") != std::string::npos &&
        q.body.find("\"exitCode\":143") != std::string::npos)
      ++confirmed_143;
  EXPECT_EQ(confirmed_143, 2);
}

// An image the test marks unpullable: the pod stays Pending with the kubelet's ErrImagePull.
TEST(JobRehearsal, AnUnpullableImageShowsErrImagePullInThePodsStatus) {
  KubeletSimOptions o;
  o.unpullable_images = {"unpullable/"};
  Rehearsal r(o);
  json job = indexed_job("sweep-e", 1, 1, "true");
  job["spec"]["template"]["spec"]["containers"][0]["image"] = "unpullable/gantry:1.0";
  ASSERT_EQ(r.client.create(kJobs, job).outcome, WriteOutcome::kOk);
  json waiting;
  ASSERT_TRUE(r.fake.wait_until([&] {
    for (const json& p : r.pods_of("sweep-e")) {
      const json statuses = p["status"].value("containerStatuses", json::array());
      if (!statuses.empty() && statuses[0]["state"].contains("waiting")) {
        waiting = p["status"];
        return true;
      }
    }
    return false;
  }));
  EXPECT_EQ(waiting["phase"], "Pending");
  const json w = waiting["containerStatuses"][0]["state"]["waiting"];
  // ErrImagePull first; ImagePullBackOff 10 s of loop time later (0.1 s at speed 100).
  const std::string reason = w["reason"];
  EXPECT_TRUE(reason == "ErrImagePull" || reason == "ImagePullBackOff") << reason;
  EXPECT_NE(w["message"].get<std::string>().find("\"unpullable/gantry:1.0\""), std::string::npos);
  int err_image_pull = 0;
  for (const testing::RecordedRequest& q : r.fake.requests())
    err_image_pull += q.body.find("\"reason\":\"ErrImagePull\"") != std::string::npos;
  EXPECT_EQ(err_image_pull, 1) << "written once, before the back-off";
}

// The token Secret missing: the kubelet cannot make the container's environment, and the pod
// waits with CreateContainerConfigError and the kubelet's message; nothing runs.
TEST(JobRehearsal, AMissingSecretLeavesThePodWaitingWithCreateContainerConfigError) {
  Rehearsal r;
  ASSERT_EQ(r.client.create(kJobs, indexed_job("sweep-f", 1, 1, "echo ran")).outcome,
            WriteOutcome::kOk);
  json waiting;
  ASSERT_TRUE(r.fake.wait_until([&] {
    for (const json& p : r.pods_of("sweep-f")) {
      const json statuses = p["status"].value("containerStatuses", json::array());
      if (!statuses.empty() && statuses[0]["state"].contains("waiting")) {
        waiting = p;
        return true;
      }
    }
    return false;
  }));
  EXPECT_EQ(waiting["status"]["phase"], "Pending");
  EXPECT_EQ(waiting["status"]["containerStatuses"][0]["state"]["waiting"],
            json({{"reason", "CreateContainerConfigError"},
                  {"message", "secret \"sweep-f-token\" not found"}}));
  const std::string name = waiting["metadata"]["name"];
  EXPECT_EQ(r.kubelet->container_log("ml", name), std::nullopt) << "no process was started";
  const KubeResponse served = r.client.request("GET", std::string(kPods) + "/" + name + "/log");
  EXPECT_EQ(served.status, 400);
  EXPECT_EQ(json::parse(served.body)["message"], "container \"sweep-worker\" in pod \"" + name +
                                                     "\" is waiting to start: ContainerCreating");
}

}  // namespace job_rehearsal_test
}  // namespace gantry::kube
