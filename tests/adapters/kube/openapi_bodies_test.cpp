// Every request body adapters/kube builds is validated against the Kubernetes v1.32 OpenAPI
// schemas (tests/data/k8s-openapi) by tests/adapters/kube/validate_bodies.py (python3-jsonschema),
// strictly: an unknown field fails as under fieldValidation=Strict.

#include <gtest/gtest.h>

#include <cstdlib>

#include "adapters/kube/executor/attempt_plan.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::kube {
namespace {

using testing::TempDir;

constexpr Time kAt = Time::from_micros(1'767'225'600'123'456);  // 2026-01-01T00:00:00.123456Z

void add(const TempDir& dir, const std::string& file, const std::string& schema,
         const nlohmann::json& body) {
  dir.write(file + ".json", nlohmann::json{{"schema", schema}, {"body", body}}.dump(2));
}

// Runs the validator; returns its exit status and output.
std::pair<int, std::string> validate(const TempDir& bodies) {
  const std::string out = bodies.file("validator.out");
  const std::string command = "python3 " + std::string(GANTRY_SOURCE_DIR) +
                              "/tests/adapters/kube/validate_bodies.py " + testing::openapi_dir() +
                              " " + bodies.path().string() + " > " + out + " 2>&1";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_text(out)};
}

TEST(KubeOpenApi, EveryBodyIsValid) {
  TempDir dir;
  const std::string binding = "io.k8s.api.core.v1.Binding";
  const std::string delete_options = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
  const std::string event = "io.k8s.api.events.v1.Event";
  const std::string lease = "io.k8s.api.coordination.v1.Lease";
  add(dir, "binding", binding, binding_body("default", "job-a-0", "fake-node-1"));
  add(dir, "binding-uid", binding, binding_body("default", "job-a-0", "fake-node-1", "uid-1"));
  add(dir, "binding-annotated", binding,
      binding_body("default", "job-a-0", "fake-node-1", "uid-1",
                   {{"gantry.dev/gpu-index", "0,1"}}));
  add(dir, "delete-plain", delete_options, delete_options_body({}));
  DeleteOptions d;
  d.uid = "716b38a0-464c-4a5a-8e0e-94f73442bdf5";
  d.resource_version = "103";
  d.grace_period_seconds = 0;
  d.propagation_policy = "Background";
  add(dir, "delete-preconditions", delete_options, delete_options_body(d));
  const std::string eviction = "io.k8s.api.policy.v1.Eviction";
  add(dir, "eviction", eviction, eviction_body("default", "job-a-0"));
  add(dir, "eviction-uid", eviction,
      eviction_body("default", "job-a-0", "716b38a0-464c-4a5a-8e0e-94f73442bdf5"));
  EventSpec e;
  e.regarding.namespace_name = "default";
  e.regarding.name = "job-a-0";
  e.regarding.uid = "uid-1";
  e.type = "Warning";
  e.reason = "FailedScheduling";
  e.action = "Scheduling";
  e.note = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
  e.reporting_instance = "gantry-0";
  e.event_time = kAt;
  add(dir, "event", event, event_body(e));
  // The Events of admission's evictions (live_scheduler.hpp): Normal, action Preempting.
  e.type = "Normal";
  e.reason = "InCohortReclamation";
  e.action = "Preempting";
  e.note =
      "gang default/job-a is evicted: preempted by gang default/job-b, whose queue reclaims "
      "the quota its own lent";
  add(dir, "event-preempted", event, event_body(e));
  LeaseSpec l;
  l.namespace_name = "gantry";
  l.name = "gantry-scheduler";
  l.holder_identity = "gantry-0";
  l.acquire_time = kAt;
  l.renew_time = kAt;
  add(dir, "lease-create", lease, lease_body(l));
  l.resource_version = "42";
  l.lease_transitions = 3;
  add(dir, "lease-update", lease, lease_body(l));
  l.holder_identity = "";
  l.lease_duration_seconds = 1;
  add(dir, "lease-release", lease, lease_body(l));
  // An elastic job's host list (world/resize_writer.hpp), and a resize's new pod made from a
  // Worker pod as the API server returns it (status, uid, nodeName and all dropped).
  const std::string config_map = "io.k8s.api.core.v1.ConfigMap";
  add(dir, "config-map-hosts", config_map,
      config_map_body("ml", "train-hosts",
                      {{"hostfile", "train-worker-0 slots=2\ntrain-worker-1 slots=2\n"}},
                      {{"gantry.dev/gang", "train"}}));
  const nlohmann::json worker = nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"train-worker-1","namespace":"ml","uid":"uid-9","resourceVersion":"77",
      "creationTimestamp":"2026-01-01T00:00:00Z","labels":{"gantry.dev/gang":"train"},
      "annotations":{"gantry.dev/gang-size":"2","gantry.dev/gang-index":"1",
        "gantry.dev/elastic-min":"1","gantry.dev/elastic-max":"4","gantry.dev/gpu-index":"2,3"}},
    "spec":{"schedulerName":"gantry","nodeName":"r1-n000","containers":[{"name":"main",
      "image":"busybox","resources":{"requests":{"cpu":"4","nvidia.com/gpu":"2"},
      "limits":{"nvidia.com/gpu":"2"}}}]},
    "status":{"phase":"Running","startTime":"2026-01-01T00:00:05Z"}})");
  const nlohmann::json created = resize_pod_body(
      worker, "train-worker-2", {{"gantry.dev/gang-index", "2"}, {"gantry.dev/gang-size", "3"}});
  EXPECT_FALSE(created.contains("status"));
  EXPECT_FALSE(created["metadata"].contains("uid"));
  EXPECT_FALSE(created["spec"].contains("nodeName"));
  EXPECT_FALSE(created["metadata"]["annotations"].contains("gantry.dev/gpu-index"));
  add(dir, "resize-pod", "io.k8s.api.core.v1.Pod", created);
  // Node writes, as merge patches (their bodies are partial Nodes): the drainer's cordon and
  // uncordon, kubelet-sim's GPUs out of service and its status.
  const std::string node = "io.k8s.api.core.v1.Node";
  add(dir, "node-cordon", node, cordon_patch(true));
  add(dir, "node-uncordon", node, cordon_patch(false));
  add(dir, "node-annotations", node,
      nlohmann::json{{"metadata", {{"annotations", {{"gantry.dev/unhealthy-gpus", "1,5"}}}}}});
  // A drain asked for by `gantry kube drain`, and the state the live world writes back.
  add(dir, "node-drain-request", node,
      annotations_patch({{std::string(kDrainRequestAnnotation),
                          drain_request_value(hours(2), hours(4), format_micro_time(kAt))}}));
  add(dir, "node-drain-state", node,
      annotations_patch({{std::string(kDrainStateAnnotation),
                          drain_state_value(format_micro_time(kAt), "refused", kAt,
                                            "node r1-n000 is draining already")}}));
  {
    Topology t;
    t.gpus = GpuCatalog::with_defaults();
    t.classes.push_back(NodeClass{"dgx-a100", Resources{128'000, int64_t{1024} << 30, 8, 0},
                                  t.gpus.find("A100-80G"), 8});
    t.racks = {"r1"};
    t.nodes = {NodeInfo{"r1-n000", 0, 0}};
    add(dir, "node-status", node, nlohmann::json{{"status", node_object(t, 0, kAt)["status"]}});
    // kubelet-sim's taints of a node down (the node lifecycle controller's).
    add(dir, "node-taints", node,
        nlohmann::json{{"spec", {{"taints", lifecycle_taints(nullptr, true, kAt)}}}});
  }
  // What `gantry kube setup` creates on a plain API server.
  add(dir, "namespace", "io.k8s.api.core.v1.Namespace", namespace_body("team-a"));
  add(dir, "service-account", "io.k8s.api.core.v1.ServiceAccount",
      service_account_body("team-a", "default"));
  // A sweep's Indexed Job and its token's Secret (issue #25).
  const SweepJobSpec sweep{.namespace_name = "what-if",
                           .sweep_id = "s-1f3a",
                           .image = "registry.example/gantry:1.0",
                           .server = "https://gantry.example",
                           .shards = 40,
                           .parallelism = 32};
  add(dir, "sweep-job", "io.k8s.api.batch.v1.Job", sweep_job_body(sweep));
  add(dir, "sweep-secret", "io.k8s.api.core.v1.Secret",
      sweep_secret_body(sweep, "t0k3n", "0f9a6d3e-5b8c-4d2e-9a1f-3c7b2e8d4f60"));
  // The captured binding request as well (what a real server accepted).
  add(dir, "captured-binding", binding,
      nlohmann::json::parse(
          testing::read_text(testing::captures_dir() + "/requests/binding.json")));

  const auto [status, output] = validate(dir);
  EXPECT_EQ(status, 0) << output;
  for (const char* file : {"binding",
                           "binding-uid",
                           "delete-plain",
                           "delete-preconditions",
                           "eviction",
                           "eviction-uid",
                           "event",
                           "event-preempted",
                           "lease-create",
                           "lease-update",
                           "lease-release",
                           "captured-binding",
                           "config-map-hosts",
                           "resize-pod",
                           "node-cordon",
                           "node-uncordon",
                           "node-annotations",
                           "node-drain-request",
                           "node-drain-state",
                           "node-status",
                           "node-taints",
                           "namespace",
                           "service-account",
                           "sweep-job",
                           "sweep-secret"}) {
    EXPECT_NE(output.find(std::string(file) + ".json: valid"), std::string::npos) << file << "\n"
                                                                                  << output;
  }
}

// The objects of pipeline attempts (adapters/kube/executor/attempt_plan.hpp): one of each
// template, with every optional part present somewhere (GPU request and limit, GPU share,
// node selector, command, ports, the MPI hostfile volume, owner references), and the
// DeleteOptions the executor sends when it deletes an attempt.
TEST(KubeOpenApi, ExecutorBodiesAreValid) {
  TempDir dir;
  PipelineSpec pipeline;
  pipeline.name = "Nightly_Train";
  pipeline.namespace_name = "ml";
  pipeline.env = {{"FOO", "bar"}};
  TaskSpec task;
  task.name = "fit";
  task.image = "ghcr.io/acme/train:1";
  task.command = {"python", "train.py"};
  task.gpu_type = "A100-80G";
  task.simulate.outcomes = {"succeeded"};
  AttemptRequest request;
  request.id = 7;
  request.pipeline = &pipeline;
  request.task = &task;
  request.logical_time = kAt;
  request.requests = Resources{4000, int64_t{16} << 30, 2, 0};
  std::vector<std::string> files;
  const auto add_plan = [&](const std::string& name) {
    const AttemptPlan plan = plan_attempt(request, {});
    ASSERT_TRUE(plan.refused.empty()) << plan.refused;
    add(dir, name + "-configmap", "io.k8s.api.core.v1.ConfigMap", plan.owner);
    files.push_back(name + "-configmap");
    if (!plan.service.is_null()) {
      nlohmann::json service = plan.service;
      set_owner(service, plan.base, "uid-1");
      add(dir, name + "-service", "io.k8s.api.core.v1.Service", service);
      files.push_back(name + "-service");
    }
    for (const PlannedPod& p : plan.pods) {
      nlohmann::json pod = p.body;
      set_owner(pod, plan.base, "uid-1");
      const std::string file = name + "-pod-" + std::to_string(p.gang_index);
      add(dir, file, "io.k8s.api.core.v1.Pod", pod);
      files.push_back(file);
    }
  };
  add_plan("container");
  task.gpu_type.clear();
  request.requests = Resources{500, int64_t{1} << 30, 0, 250};  // a GPU share
  add_plan("share");
  request.requests = Resources{4000, int64_t{16} << 30, 1, 0};
  task.template_kind = TaskTemplate::kPyTorchJob;
  task.replicas = {{"master", 1}, {"worker", 1}};
  add_plan("pytorch");
  task.template_kind = TaskTemplate::kXGBoostJob;
  add_plan("xgboost");
  task.template_kind = TaskTemplate::kTFJob;
  task.replicas = {{"chief", 1}, {"ps", 1}, {"worker", 1}, {"evaluator", 1}};
  add_plan("tf");
  task.template_kind = TaskTemplate::kMPIJob;
  task.replicas = {{"launcher", 1}, {"worker", 2}};
  add_plan("mpi");
  DeleteOptions owner_delete;
  owner_delete.uid = "uid-1";
  owner_delete.propagation_policy = "Background";
  add(dir, "delete-owner", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
      delete_options_body(owner_delete));
  files.push_back("delete-owner");

  const auto [status, output] = validate(dir);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(files.size(), 2u + 2 + 4 + 4 + 6 + 5 + 1);  // ConfigMap (+ Service) + pods each
  for (const std::string& file : files)
    EXPECT_NE(output.find(file + ".json: valid"), std::string::npos) << file << "\n" << output;
}

TEST(KubeOpenApi, TheValidatorRejectsWrongBodies) {
  TempDir dir;
  nlohmann::json misspelt = binding_body("default", "p", "n");
  misspelt["target"]["nmae"] = "n";  // unknown field
  add(dir, "misspelt", "io.k8s.api.core.v1.Binding", misspelt);
  nlohmann::json wrong_type = delete_options_body({});
  wrong_type["gracePeriodSeconds"] = "30";  // a string where an integer is wanted
  add(dir, "wrong-type", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", wrong_type);
  const auto [status, output] = validate(dir);
  EXPECT_EQ(status, 1) << output;
  EXPECT_NE(output.find("misspelt.json: target"), std::string::npos) << output;
  EXPECT_NE(output.find("wrong-type.json: gracePeriodSeconds"), std::string::npos) << output;
}

TEST(KubeRequestBodies, MicroTimeHasSixDigits) {
  EXPECT_EQ(format_micro_time(kAt), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ(format_micro_time(Time::from_micros(1'767'225'600'000'000)),
            "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(parse_kube_time("2026-01-01T00:00:00.123456Z"), kAt);
  EXPECT_EQ(event_body([] {
              EventSpec e;
              e.regarding.name = "p";
              e.event_time = Time::from_micros(255);
              return e;
            }())["metadata"]["name"],
            "p.ff");
}

}  // namespace
}  // namespace gantry::kube
