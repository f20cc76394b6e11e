// What an attempt becomes in Kubernetes (adapters/kube/executor/attempt_plan.hpp): names,
// labels, and the environment of each framework, worked out by hand from the task.

#include "adapters/kube/executor/attempt_plan.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "adapters/kube/executor/attempt_status.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::kube {
namespace attempt_plan_test {

using nlohmann::json;

const Time kLogical = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

// The env of a pod body as a map.
std::map<std::string, std::string> env_of(const json& pod) {
  std::map<std::string, std::string> out;
  for (const json& e : pod["spec"]["containers"][0]["env"]) {
    EXPECT_EQ(out.count(e["name"]), 0u) << "duplicate " << e["name"];
    out[e["name"]] = e["value"];
  }
  return out;
}

bool is_dns_label(const std::string& s) {
  return s.size() <= 63 && std::regex_match(s, std::regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?"));
}

struct PlanFixture : ::testing::Test {
  PipelineSpec pipeline;
  TaskSpec task;
  AttemptRequest request;

  PlanFixture() {
    pipeline.name = "train";
    pipeline.namespace_name = "ml";
    task.name = "pt";
    task.image = "ghcr.io/acme/train:1";
    task.command = {"python", "train.py"};
    task.simulate.duration = Duration(1'200'000'000);  // 20 minutes
    request.id = 7;
    request.pipeline = &pipeline;
    request.task = &task;
    request.logical_time = kLogical;
    request.attempt_index = 1;
    request.requests = Resources{4000, int64_t{16} << 30, 1, 0};  // 4 CPU, 16 GiB, 1 GPU
  }

  AttemptPlan plan(AttemptPlanOptions o = {}) { return plan_attempt(request, o); }
};

// The master's DNS name through the headless Service: <pod>.<service>.<namespace>.svc.
const std::string kBase = "train-pt-20260101000000-a7";
const std::string kMasterDns = kBase + "-master-0." + kBase + ".ml.svc";

TEST(AttemptNames, BaseNameIsReadableAndDeterministic) {
  EXPECT_EQ(attempt_base_name("train", "pt", kLogical, 7), kBase);
  // Sanitised: lower case, one '-' for each run of other characters.
  EXPECT_EQ(attempt_base_name("ETL_Daily", "load.table", kLogical, 42),
            "etl-daily-load-table-20260101000000-a42");
  // A Service name starts with a letter.
  EXPECT_EQ(attempt_base_name("9am", "t", kLogical, 1), "g9am-t-20260101000000-a1");
  // Too long (74 characters sanitised): the first 31, '-', 8 hex digits of a hash = 40.
  const Time march = Time::from_micros(1'773'541'800'000'000);  // 2026-03-15T02:30:00Z
  const std::string long_name =
      attempt_base_name("Nightly_Feature.Engineering-Pipeline", "Build_Features", march, 123456);
  ASSERT_EQ(long_name.size(), 40u);
  EXPECT_EQ(long_name.substr(0, 32), "nightly-feature-engineering-pip-");
  EXPECT_TRUE(std::regex_match(long_name.substr(32), std::regex("[0-9a-f]{8}"))) << long_name;
  EXPECT_EQ(long_name, attempt_base_name("Nightly_Feature.Engineering-Pipeline", "Build_Features",
                                         march, 123456));
  EXPECT_NE(long_name, attempt_base_name("Nightly_Feature.Engineering-Pipeline", "Build_Features",
                                         march, 123457));
  EXPECT_TRUE(is_dns_label(long_name));
}

TEST(AttemptNames, LabelsAndQuantities) {
  EXPECT_EQ(dns_label("--Foo__Bar--", 20), "foo-bar");
  EXPECT_EQ(dns_label("%%", 20), "x");
  EXPECT_EQ(label_value("_my pipeline!"), "my-pipeline");
  EXPECT_EQ(label_value(std::string(70, 'a')).size(), 63u);  // 54 + '-' + 8
  EXPECT_EQ(cpu_quantity(4000), "4");
  EXPECT_EQ(cpu_quantity(500), "500m");
  EXPECT_EQ(memory_quantity(int64_t{16} << 30), "16Gi");
  EXPECT_EQ(memory_quantity(int64_t{1536} << 20), "1536Mi");  // 1.5 GiB is not whole Gi
  EXPECT_EQ(memory_quantity(1000), "1000");
}

TEST_F(PlanFixture, ContainerTaskIsOnePod) {
  task.gpu_type = "A100-80G";
  task.simulate.outcomes = {"failed", "succeeded"};
  pipeline.env = {{"FOO", "bar"}};
  const AttemptPlan p = plan();
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.namespace_name, "ml");
  EXPECT_EQ(p.base, kBase);
  EXPECT_TRUE(p.service.is_null());
  ASSERT_EQ(p.pods.size(), 1u);
  const json& pod = p.pods[0].body;
  EXPECT_EQ(p.pods[0].name, kBase);
  EXPECT_EQ(pod["metadata"]["namespace"], "ml");
  const json labels = pod["metadata"]["labels"];
  EXPECT_EQ(labels, (json{{"app.kubernetes.io/managed-by", "gantry"},
                          {"gantry.dev/pipeline", "train"},
                          {"gantry.dev/run", "20260101T000000Z"},
                          {"gantry.dev/task", "pt"},
                          {"gantry.dev/attempt-id", "7"},
                          {"gantry.dev/attempt", "1"},
                          {"gantry.dev/gang", kBase}}));
  const json a = pod["metadata"]["annotations"];
  EXPECT_EQ(a["gantry.dev/gang-size"], "1");
  EXPECT_EQ(a["gantry.dev/gang-index"], "0");
  EXPECT_EQ(a["gantry.dev/simulate-duration"], "20m");
  EXPECT_EQ(a["gantry.dev/simulate-outcome"], "succeeded");  // attempt index 1
  EXPECT_EQ(a["gantry.dev/logical-time"], "2026-01-01T00:00:00Z");
  EXPECT_FALSE(a.contains("gantry.dev/gpu-milli"));
  const json& spec = pod["spec"];
  EXPECT_EQ(spec["schedulerName"], "gantry");
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_FALSE(spec.contains("hostname"));
  EXPECT_EQ(spec["nodeSelector"], (json{{"nvidia.com/gpu.product", "NVIDIA-A100-80GB"}}));
  const json& c = spec["containers"][0];
  EXPECT_EQ(c["name"], "main");
  EXPECT_EQ(c["image"], "ghcr.io/acme/train:1");
  EXPECT_EQ(c["command"], (json{"python", "train.py"}));
  EXPECT_EQ(c["resources"]["requests"],
            (json{{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(c["resources"]["limits"], (json{{"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(env_of(pod),
            (std::map<std::string, std::string>{{"GANTRY_PIPELINE", "train"},
                                                {"GANTRY_TASK", "pt"},
                                                {"GANTRY_LOGICAL_TIME", "2026-01-01T00:00:00Z"},
                                                {"GANTRY_ATTEMPT", "1"},
                                                {"GANTRY_ATTEMPT_ID", "7"},
                                                {"FOO", "bar"}}));
  // The owner lists the pod.
  EXPECT_EQ(p.owner["kind"], "ConfigMap");
  EXPECT_EQ(p.owner["metadata"]["name"], kBase);
  EXPECT_EQ(p.owner["data"], (json{{"pods", kBase + "\n"}}));
}

// A run's params (Run::params, JSON literals) reach every pod as GANTRY_PARAM_<NAME>: a string
// without its quotes, a number and a boolean as written.
TEST_F(PlanFixture, ParamsAreEnvOfEveryPod) {
  request.params = {{"epochs", "10"}, {"dataset", "\"s3://d\""}, {"fast", "true"}};
  const AttemptPlan p = plan();
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  const auto env = env_of(p.pods.at(0).body);
  EXPECT_EQ(env.at("GANTRY_PARAM_EPOCHS"), "10");
  EXPECT_EQ(env.at("GANTRY_PARAM_DATASET"), "s3://d");
  EXPECT_EQ(env.at("GANTRY_PARAM_FAST"), "true");
}

TEST_F(PlanFixture, GpuShareIsAnAnnotation) {
  request.requests = Resources{1000, int64_t{1} << 30, 0, 250};
  const json pod = plan().pods[0].body;
  EXPECT_EQ(pod["metadata"]["annotations"]["gantry.dev/gpu-milli"], "250");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"],
            (json{{"cpu", "1"}, {"memory", "1Gi"}}));
  EXPECT_FALSE(pod["spec"]["containers"][0]["resources"].contains("limits"));
  EXPECT_FALSE(pod["spec"].contains("nodeSelector"));
}

TEST_F(PlanFixture, PyTorchJobMasterFirstRanksInPodOrder) {
  task.template_kind = TaskTemplate::kPyTorchJob;
  task.replicas = {{"worker", 3}, {"master", 1}};
  pipeline.env = {{"RANK", "99"}, {"FOO", "bar"}};  // the framework's RANK wins
  const AttemptPlan p = plan();
  ASSERT_EQ(p.pods.size(), 4u);
  // Master (start stage 0) first, then the workers: WORLD_SIZE 1 + 3 = 4, RANK = pod order.
  const std::vector<std::string> names = {kBase + "-master-0", kBase + "-worker-0",
                                          kBase + "-worker-1", kBase + "-worker-2"};
  for (int i = 0; i < 4; ++i) {
    const PlannedPod& pod = p.pods[i];
    EXPECT_EQ(pod.name, names[i]);
    EXPECT_TRUE(is_dns_label(pod.name)) << pod.name;
    EXPECT_EQ(pod.gang_index, i);
    const json& meta = pod.body["metadata"];
    EXPECT_EQ(meta["labels"]["training.kubeflow.org/replica-type"], i == 0 ? "master" : "worker");
    EXPECT_EQ(meta["labels"]["training.kubeflow.org/replica-index"],
              std::to_string(i == 0 ? 0 : i - 1));
    EXPECT_EQ(meta["annotations"]["gantry.dev/gang-size"], "4");
    EXPECT_EQ(meta["annotations"]["gantry.dev/gang-index"], std::to_string(i));
    EXPECT_EQ(pod.body["spec"]["hostname"], names[i]);
    EXPECT_EQ(pod.body["spec"]["subdomain"], kBase);
    EXPECT_EQ(pod.body["spec"]["containers"][0]["name"], "pytorch");
    EXPECT_EQ(pod.body["spec"]["containers"][0]["ports"],
              (json::array({{{"name", "pytorchjob-port"}, {"containerPort", 23456}}})));
    const auto env = env_of(pod.body);
    EXPECT_EQ(env.at("MASTER_ADDR"), kMasterDns);
    EXPECT_EQ(env.at("MASTER_PORT"), "23456");
    EXPECT_EQ(env.at("WORLD_SIZE"), "4");
    EXPECT_EQ(env.at("RANK"), std::to_string(i));
    EXPECT_EQ(env.at("FOO"), "bar");
  }
  // The headless Service selects the gang and publishes pods before they are ready.
  EXPECT_EQ(p.service["metadata"]["name"], kBase);
  EXPECT_EQ(
      p.service["spec"],
      (json{
          {"clusterIP", "None"},
          {"selector", {{"gantry.dev/gang", kBase}}},
          {"publishNotReadyAddresses", true},
          {"ports",
           json::array({{{"name", "pytorchjob-port"}, {"port", 23456}, {"targetPort", 23456}}})}}));
}

TEST_F(PlanFixture, XGBoostJobLikePyTorch) {
  task.template_kind = TaskTemplate::kXGBoostJob;
  task.replicas = {{"master", 1}, {"worker", 1}};
  const AttemptPlan p = plan();
  ASSERT_EQ(p.pods.size(), 2u);
  const auto worker = env_of(p.pods[1].body);
  EXPECT_EQ(worker.at("MASTER_ADDR"), kMasterDns);
  EXPECT_EQ(worker.at("MASTER_PORT"), "9999");
  EXPECT_EQ(worker.at("WORLD_SIZE"), "2");
  EXPECT_EQ(worker.at("RANK"), "1");
  EXPECT_EQ(p.pods[1].body["spec"]["containers"][0]["name"], "xgboost");
}

TEST_F(PlanFixture, TFJobConfigHasEveryRoleButEvaluators) {
  task.template_kind = TaskTemplate::kTFJob;
  task.replicas = {{"worker", 2}, {"ps", 1}, {"chief", 1}, {"evaluator", 1}};
  const AttemptPlan p = plan();
  // Stage 0 (chief, ps) in name order, then stage 1 (evaluator, worker).
  std::vector<std::string> names;
  for (const PlannedPod& pod : p.pods) names.push_back(pod.name.substr(kBase.size() + 1));
  EXPECT_EQ(names,
            (std::vector<std::string>{"chief-0", "ps-0", "evaluator-0", "worker-0", "worker-1"}));
  const auto addr = [](const std::string& pod) {
    return kBase + "-" + pod + "." + kBase + ".ml.svc:2222";
  };
  const json cluster = {{"chief", {addr("chief-0")}},
                        {"ps", {addr("ps-0")}},
                        {"worker", {addr("worker-0"), addr("worker-1")}}};
  const auto tf_config = [&](int i) { return json::parse(env_of(p.pods[i].body).at("TF_CONFIG")); };
  EXPECT_EQ(tf_config(4), (json{{"cluster", cluster},
                                {"task", {{"type", "worker"}, {"index", 1}}},
                                {"environment", "cloud"}}));
  EXPECT_EQ(tf_config(0)["task"], (json{{"type", "chief"}, {"index", 0}}));
  EXPECT_EQ(tf_config(2)["task"], (json{{"type", "evaluator"}, {"index", 0}}));
  EXPECT_EQ(tf_config(2)["cluster"], cluster);
  EXPECT_EQ(p.service["spec"]["ports"][0]["port"], 2222);
}

TEST_F(PlanFixture, MPIJobHostfileInTheOwnerConfigMap) {
  task.template_kind = TaskTemplate::kMPIJob;
  task.replicas = {{"launcher", 1}, {"worker", 2}};
  request.requests.gpus = 4;
  const AttemptPlan p = plan();
  ASSERT_EQ(p.pods.size(), 3u);
  EXPECT_EQ(p.pods[0].name, kBase + "-launcher-0");
  // Workers only, 4 GPUs each = 4 slots.
  const std::string hostfile = kBase + "-worker-0." + kBase + ".ml.svc slots=4\n" + kBase +
                               "-worker-1." + kBase + ".ml.svc slots=4\n";
  EXPECT_EQ(p.owner["data"]["hostfile"], hostfile);
  for (const PlannedPod& pod : p.pods) {
    EXPECT_EQ(env_of(pod.body).at("OMPI_MCA_orte_default_hostfile"), "/etc/mpi/hostfile");
    EXPECT_EQ(pod.body["spec"]["containers"][0]["volumeMounts"][0]["mountPath"], "/etc/mpi");
    EXPECT_EQ(pod.body["spec"]["volumes"][0]["configMap"]["name"], kBase);
  }
  EXPECT_FALSE(p.service["spec"].contains("ports"));
}

TEST_F(PlanFixture, UnsupportedTemplatesAreRefused) {
  task.template_kind = TaskTemplate::kRayJob;
  task.replicas = {{"head", 1}};
  EXPECT_EQ(plan().refused, "template rayjob is not supported by the Kubernetes executor");
  task.template_kind = TaskTemplate::kPyTorchJob;
  task.replicas = {};
  EXPECT_EQ(plan().refused, "a distributed task with no replicas");
  task.replicas = {{"Worker", 1}, {"worker", 1}};  // both become "...-worker-0"
  EXPECT_NE(plan().refused.find("same pod names"), std::string::npos);
}

TEST_F(PlanFixture, OptionsChooseNamespaceSchedulerAndImage) {
  task.image.clear();
  AttemptPlanOptions o;
  o.namespace_name = "batch";
  o.scheduler_name = "volcano";
  const AttemptPlan p = plan(o);
  EXPECT_EQ(p.namespace_name, "batch");
  EXPECT_EQ(p.pods[0].body["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(p.pods[0].body["spec"]["containers"][0]["image"], "registry.k8s.io/pause:3.9");
  EXPECT_FALSE(p.pods[0].body["metadata"]["labels"].contains("gantry.dev/queue"));
  o.queue = "team-a";
  EXPECT_EQ(plan(o).pods[0].body["metadata"]["labels"]["gantry.dev/queue"], "team-a");
  json pod = p.pods[0].body;
  set_owner(pod, p.base, "uid-1");
  EXPECT_EQ(
      pod["metadata"]["ownerReferences"],
      (json::array(
          {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", kBase}, {"uid", "uid-1"}}})));
}

// ---- attempt_status ----

json pod_status(const std::string& phase, json extra = json::object()) {
  json status = extra;
  status["phase"] = phase;
  return {{"metadata", {{"name", "p"}, {"uid", "u1"}}}, {"status", status}};
}

json running_since(const std::string& at) {
  return {{"containerStatuses",
           json::array({{{"name", "main"}, {"state", {{"running", {{"startedAt", at}}}}}}})}};
}

const Time kNow = Time::from_micros(1'767'226'200'000'000);  // 2026-01-01T00:10:00Z

TEST(AttemptStatus, RunningSinceTheLatestStartAndSucceeded) {
  std::vector<NamedPod> pods = {
      {"a", read_pod(pod_status("Running", running_since("2026-01-01T00:01:00Z")))},
      {"b", read_pod(pod_status("Pending"))}};
  AttemptVerdict v = judge(pods, kNow);
  EXPECT_FALSE(v.running_since);
  EXPECT_FALSE(v.end);
  advance(pods[1].progress, read_pod(pod_status("Running", running_since("2026-01-01T00:04:00Z"))));
  v = judge(pods, kNow);
  EXPECT_EQ(v.running_since, Time::from_micros(1'767'225'840'000'000));  // 00:04:00
  EXPECT_FALSE(v.end);
  // A stale reading (Pending after Running) changes nothing.
  advance(pods[1].progress, read_pod(pod_status("Pending")));
  EXPECT_EQ(pods[1].progress.phase, PodPhase::kRunning);
  for (NamedPod& p : pods) advance(p.progress, read_pod(pod_status("Succeeded")));
  v = judge(pods, kNow);
  ASSERT_TRUE(v.end);
  EXPECT_EQ(v.end->outcome, AttemptOutcome::kSucceeded);
  // Started but no start time read any more: now (00:10:00) is the latest.
  EXPECT_EQ(v.running_since, kNow);
}

TEST(AttemptStatus, ExitCodeEvictionNodeLostAndDeletion) {
  const json terminated = {
      {"containerStatuses", json::array({{{"name", "main"},
                                          {"state",
                                           {{"terminated",
                                             {{"exitCode", 3},
                                              {"reason", "Error"},
                                              {"startedAt", "2026-01-01T00:02:00Z"}}}}}}})}};
  std::vector<NamedPod> pods = {{"a", read_pod(pod_status("Failed", terminated))}};
  AttemptVerdict v = judge(pods, kNow);
  ASSERT_TRUE(v.end);
  EXPECT_EQ(v.end->outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(v.end->reason, "pod a failed: exit code 3 (Error)");
  EXPECT_EQ(v.running_since, Time::from_micros(1'767'225'720'000'000));  // 00:02:00

  pods = {{"a",
           read_pod(pod_status("Failed", {{"reason", "Evicted"},
                                          {"message", "The node was low on resource: memory."}}))}};
  v = judge(pods, kNow);
  EXPECT_EQ(v.end->outcome, AttemptOutcome::kError);
  EXPECT_EQ(v.end->reason, "pod a: Evicted: The node was low on resource: memory.");
  EXPECT_FALSE(v.running_since);  // it never ran

  pods = {{"a", read_pod(pod_status("Unknown", {{"reason", "NodeLost"}}))}};
  EXPECT_EQ(judge(pods, kNow).end->outcome, AttemptOutcome::kError);

  // Deleted while running: error; an eviction wins over a peer's failure.
  pods = {{"a", read_pod(pod_status("Failed", terminated))},
          {"b", read_pod(pod_status("Running", running_since("2026-01-01T00:01:00Z")))}};
  mark_deleted(pods[1].progress);
  v = judge(pods, kNow);
  EXPECT_EQ(v.end->outcome, AttemptOutcome::kError);
  EXPECT_EQ(v.end->reason, "pod b was deleted before it finished");
  // A finished pod deleted keeps its end.
  std::vector<NamedPod> done = {{"a", read_pod(pod_status("Succeeded"))}};
  mark_deleted(done[0].progress);
  EXPECT_EQ(judge(done, kNow).end->outcome, AttemptOutcome::kSucceeded);
}

}  // namespace attempt_plan_test
}  // namespace gantry::kube
