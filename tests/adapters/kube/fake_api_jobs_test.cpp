// The fake API server's batch/v1 Jobs and Secrets (fake_api_jobs.hpp) against what a real
// kube-apiserver v1.32 does, field by field, each expected value with the upstream source it
// comes from (there is no capture of a real Job: tests/data/k8s-captures has none); garbage
// collection with each propagationPolicy; RBAC refusals. The Job is the one `gantry sweep --on
// kubernetes` sends (sweep_job.hpp).

#include <gtest/gtest.h>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace fake_api_jobs_test {

using nlohmann::json;
using testing::FakeApiServer;

constexpr const char* kJobs = "/apis/batch/v1/namespaces/what-if/jobs";
constexpr const char* kPods = "/api/v1/namespaces/what-if/pods";
constexpr const char* kSecrets = "/api/v1/namespaces/what-if/secrets";

SweepJobSpec sweep() {
  SweepJobSpec s;
  s.namespace_name = "what-if";
  s.sweep_id = "s1";
  s.image = "registry.example/gantry:1.0";
  s.server = "https://gantry.example";
  s.shards = 4;
  s.parallelism = 2;
  return s;
}

// The server's refusal of a request, thrown or not.
KubeStatus refusal(const std::function<void()>& request) {
  try {
    request();
  } catch (const KubeError& e) {
    return e.status();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

struct FakeJobs : ::testing::Test {
  FakeJobs() { fake.create_namespace("what-if"); }
  FakeApiServer fake{{.garbage_collector = true}};
  KubeClient client{testing::config_for(fake.url())};
};

// A JSON pointer into the stored Job, what it must be, and where that comes from.
struct Expected {
  const char* pointer;
  json value;
  const char* source;
};

TEST_F(FakeJobs, AJobIsStoredWithTheDefaultsAndLabelsOfAV132Server) {
  const json stored = client.post(kJobs, sweep_job_body(sweep()));
  const std::string uid = stored["metadata"]["uid"];
  const json labels = {{"app.kubernetes.io/managed-by", "gantry"},
                       {"gantry.dev/sweep", "s1"},
                       {"batch.kubernetes.io/controller-uid", uid},
                       {"batch.kubernetes.io/job-name", "gantry-sweep-s1"},
                       {"controller-uid", uid},
                       {"job-name", "gantry-sweep-s1"}};
  const std::vector<Expected> table = {
      {"/spec/completions", 4, "sent"},
      {"/spec/parallelism", 2, "sent"},
      {"/spec/completionMode", "Indexed", "sent"},
      {"/spec/backoffLimitPerIndex", 3, "sent"},
      {"/spec/backoffLimit", 2147483647,
       "defaults.go SetDefaults_Job: MaxInt32 with backoffLimitPerIndex (v1.28+), else 6"},
      {"/spec/suspend", false, "defaults.go SetDefaults_Job (v1.21+)"},
      {"/spec/manualSelector", false, "defaults.go SetDefaults_Job (v1.27+)"},
      {"/spec/podReplacementPolicy", "TerminatingOrFailed",
       "defaults.go SetDefaults_Job (v1.29+, no podFailurePolicy)"},
      {"/spec/selector",
       {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}},
       "strategy.go generateSelector (v1.27+ key)"},
      {"/spec/template/metadata/labels", labels,
       "strategy.go generateSelector: both label generations (v1.27+)"},
      {"/metadata/labels",
       {{"app.kubernetes.io/managed-by", "gantry"}, {"gantry.dev/sweep", "s1"}},
       "sent (defaults.go copies the template's labels only when the Job has none)"},
      {"/metadata/generation", 1, "strategy.go PrepareForCreate"},
      {"/metadata/creationTimestamp", "2026-01-01T00:00:00Z", "the server's clock"},
      {"/status", json::object(), "strategy.go PrepareForCreate"},
      {"/spec/template/spec/restartPolicy", "Never", "sent"},
      {"/spec/template/spec/terminationGracePeriodSeconds", 30, "core/v1 defaults.go"},
      {"/spec/template/spec/dnsPolicy", "ClusterFirst", "core/v1 defaults.go"},
      {"/spec/template/spec/schedulerName", "default-scheduler", "core/v1 defaults.go"},
      {"/spec/template/spec/securityContext", json::object(), "core/v1 defaults.go"},
      {"/spec/template/spec/containers/0/imagePullPolicy", "IfNotPresent",
       "core/v1 defaults.go: a tag that is not latest"},
      {"/spec/template/spec/containers/0/terminationMessagePath", "/dev/termination-log",
       "core/v1 defaults.go"},
  };
  for (const Expected& e : table)
    EXPECT_EQ(stored.value(json::json_pointer(e.pointer), json()), e.value)
        << e.pointer << " (" << e.source << ")";
  EXPECT_FALSE(stored["spec"]["template"]["spec"].contains("serviceAccountName"))
      << "admission plugins run on pods, not on templates";
  EXPECT_EQ(stored["metadata"]["resourceVersion"], std::to_string(fake.resource_version()));
}

// defaults.go's `obj.Labels = labels` shares the template's Go map: a Job sent without labels
// shows the generated ones too; without template labels it has none.
TEST_F(FakeJobs, AJobWithoutLabelsGetsItsTemplatesIncludingTheGeneratedOnes) {
  json body = sweep_job_body(sweep());
  body["metadata"].erase("labels");
  const json stored = client.post(kJobs, body);
  EXPECT_EQ(stored["metadata"]["labels"], stored["spec"]["template"]["metadata"]["labels"]);
  EXPECT_EQ(stored["metadata"]["labels"].size(), 6u);
  body["metadata"]["name"] = "bare";
  body["spec"]["template"]["metadata"].erase("labels");
  EXPECT_FALSE(client.post(kJobs, body)["metadata"].contains("labels"));
}

TEST_F(FakeJobs, AJobWithBothCountsAbsentRunsOncePodBackoffSix) {
  json body = sweep_job_body(sweep());
  for (const char* k : {"completions", "parallelism", "completionMode", "backoffLimitPerIndex"})
    body["spec"].erase(k);
  const json stored = client.post(kJobs, body);
  EXPECT_EQ(stored["spec"]["completions"], 1);
  EXPECT_EQ(stored["spec"]["parallelism"], 1);
  EXPECT_EQ(stored["spec"]["backoffLimit"], 6);
  EXPECT_EQ(stored["spec"]["completionMode"], "NonIndexed");
}

TEST_F(FakeJobs, WhatARealServerRefusesIsRefusedWithItsMessage) {
  json body = sweep_job_body(sweep());
  // backoffLimitPerIndex without Indexed (validation.go ValidateJobSpec).
  json non_indexed = body;
  non_indexed["spec"]["completionMode"] = "NonIndexed";
  KubeStatus s = refusal([&] { client.post(kJobs, non_indexed); });
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.reason, "Invalid");
  EXPECT_EQ(s.message,
            "Job.batch \"gantry-sweep-s1\" is invalid: spec.backoffLimitPerIndex: Invalid value: "
            "3: requires indexed completion mode");
  // The PodSpec default Always is not a Job's.
  json always = body;
  always["spec"]["template"]["spec"].erase("restartPolicy");
  s = refusal([&] { client.post(kJobs, always); });
  EXPECT_EQ(s.message,
            "Job.batch \"gantry-sweep-s1\" is invalid: spec.template.spec.restartPolicy: Required "
            "value: valid values: \"OnFailure\", \"Never\"");
  // Indexed needs completions.
  json no_completions = body;
  no_completions["spec"].erase("completions");
  s = refusal([&] { client.post(kJobs, no_completions); });
  EXPECT_EQ(s.message,
            "Job.batch \"gantry-sweep-s1\" is invalid: spec.completions: Required value: when "
            "completion mode is Indexed");
  // A name that is no DNS subdomain.
  json bad_name = body;
  bad_name["metadata"]["name"] = "Sweep_1";
  s = refusal([&] { client.post(kJobs, bad_name); });
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message.substr(0, 71),
            "Job.batch \"Sweep_1\" is invalid: metadata.name: Invalid value: \"Sweep_1\"");
  // An unknown namespace (NamespaceLifecycle), a name taken.
  s = refusal([&] { client.post("/apis/batch/v1/namespaces/nope/jobs", body); });
  EXPECT_EQ(s.code, 404);
  EXPECT_EQ(s.message, "namespaces \"nope\" not found");
  client.post(kJobs, body);
  s = refusal([&] { client.post(kJobs, body); });
  EXPECT_EQ(s.code, 409);
  EXPECT_EQ(s.reason, "AlreadyExists");
  EXPECT_EQ(s.message, "jobs \"gantry-sweep-s1\" already exists");
}

// ValidateJobSpecUpdate: the template is immutable; the status subresource still takes writes.
TEST_F(FakeJobs, ATemplateChangeIsRefusedAndStatusGoesThroughItsSubresource) {
  json stored = client.post(kJobs, sweep_job_body(sweep()));
  json changed = stored;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example/gantry:2.0";
  const KubeStatus s =
      refusal([&] { client.put(std::string(kJobs) + "/gantry-sweep-s1", changed); });
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message,
            "Job.batch \"gantry-sweep-s1\" is invalid: spec.template: Invalid value: \"…\": field "
            "is immutable");
  // A label change is fine, keeps the status and the generation (no spec change).
  changed = stored;
  changed["metadata"]["labels"]["team"] = "capacity";
  changed["status"] = {{"active", 99}};
  const json put = client.put(std::string(kJobs) + "/gantry-sweep-s1", changed);
  EXPECT_EQ(put["metadata"]["labels"]["team"], "capacity");
  EXPECT_EQ(put["status"], json::object()) << "status is the subresource's";
  EXPECT_EQ(put["metadata"]["generation"], 1);
  const json status = client.patch(std::string(kJobs) + "/gantry-sweep-s1/status",
                                   {{"status", {{"active", 2}}}}, PatchType::kMerge);
  EXPECT_EQ(status["status"]["active"], 2);
}

TEST_F(FakeJobs, ASecretsStringDataIsStoredBase64InData) {
  const json stored = client.post(kSecrets, sweep_secret_body(sweep(), "s3cret"));
  EXPECT_EQ(stored["data"], json({{"token", "czNjcmV0"}}));  // base64("s3cret")
  EXPECT_FALSE(stored.contains("stringData"));
  EXPECT_EQ(stored["type"], "Opaque");
  EXPECT_EQ(client.get(std::string(kSecrets) + "/gantry-sweep-s1-token")["data"]["token"],
            "czNjcmV0");
}

// A Job with a pod (bound, running: deleted gracefully), an unbound pod and a Secret, all owned
// by it.
struct Owned {
  json job;
  std::string bound = "gantry-sweep-s1-0-aaaaa";
  std::string unbound = "gantry-sweep-s1-1-bbbbb";
};
Owned make_owned(KubeClient& client) {
  Owned o;
  o.job = client.post(kJobs, sweep_job_body(sweep()));
  const json owner = {{{"apiVersion", "batch/v1"},
                       {"kind", "Job"},
                       {"name", "gantry-sweep-s1"},
                       {"uid", o.job["metadata"]["uid"]},
                       {"controller", true},
                       {"blockOwnerDeletion", true}}};
  for (const std::string& name : {o.bound, o.unbound}) {
    client.post(kPods, {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}, {"ownerReferences", owner}}},
                        {"spec", {{"containers", {{{"name", "w"}, {"image", "x:1"}}}}}}});
  }
  client.bind("what-if", o.bound, "n1");
  json secret = sweep_secret_body(sweep(), "s3cret");
  secret["metadata"]["ownerReferences"] = owner;
  client.post(kSecrets, secret);
  return o;
}

TEST_F(FakeJobs, BackgroundDeletesTheJobThenItsDependents) {
  const Owned o = make_owned(client);
  DeleteOptions bg;
  bg.propagation_policy = "Background";
  const WriteResult r = client.remove(std::string(kJobs) + "/gantry-sweep-s1", bg);
  EXPECT_EQ(r.outcome, WriteOutcome::kOk);
  EXPECT_EQ(r.object["kind"], "Status") << "a Job's delete answers a Status, not the object";
  EXPECT_EQ(r.object["details"]["uid"], o.job["metadata"]["uid"]);
  EXPECT_FALSE(fake.get(kJobs, "gantry-sweep-s1"));
  EXPECT_FALSE(fake.get(kSecrets, "gantry-sweep-s1-token"));
  EXPECT_FALSE(fake.get(kPods, o.unbound)) << "an unbound pod goes at once";
  const json bound = *fake.get(kPods, o.bound);
  EXPECT_EQ(bound["metadata"]["deletionGracePeriodSeconds"], 30) << "gracefully, its kubelet's";
  EXPECT_EQ(testing::confirm_deletions(client, kPods), std::vector<std::string>{o.bound});
  EXPECT_FALSE(fake.get(kPods, o.bound));
}

// A bare DELETE of a batch/v1 Job orphans its pods (the Job strategy's default, kept for
// compatibility): they stay, without their ownerReference.
TEST_F(FakeJobs, ABareDeleteOfAJobOrphansItsPods) {
  const Owned o = make_owned(client);
  client.remove(std::string(kJobs) + "/gantry-sweep-s1");
  EXPECT_FALSE(fake.get(kJobs, "gantry-sweep-s1"));
  for (const std::string& name : {o.bound, o.unbound}) {
    const std::optional<json> pod = fake.get(kPods, name);
    ASSERT_TRUE(pod) << name;
    EXPECT_FALSE(pod->at("metadata").contains("ownerReferences")) << name;
    EXPECT_FALSE(pod->at("metadata").contains("deletionTimestamp")) << name;
  }
  EXPECT_TRUE(fake.get(kSecrets, "gantry-sweep-s1-token"));
}

// Foreground: the Job is marked (202, the foregroundDeletion finalizer) and stays until its
// last dependent is gone.
TEST_F(FakeJobs, ForegroundKeepsTheJobUntilItsDependentsAreGone) {
  const Owned o = make_owned(client);
  const KubeResponse r = client.request(
      "DELETE", std::string(kJobs) + "/gantry-sweep-s1?propagationPolicy=Foreground");
  EXPECT_EQ(r.status, 202);
  const json marked = *fake.get(kJobs, "gantry-sweep-s1");
  EXPECT_EQ(marked["metadata"]["finalizers"], json::array({"foregroundDeletion"}));
  EXPECT_TRUE(marked["metadata"].contains("deletionTimestamp"));
  EXPECT_FALSE(fake.get(kSecrets, "gantry-sweep-s1-token"));
  EXPECT_FALSE(fake.get(kPods, o.unbound));
  EXPECT_TRUE(fake.get(kPods, o.bound)) << "terminating, for its kubelet";
  EXPECT_TRUE(fake.get(kJobs, "gantry-sweep-s1")) << "waits for it";
  testing::confirm_deletions(client, kPods);
  EXPECT_FALSE(fake.get(kJobs, "gantry-sweep-s1"));
}

// A plain API server (kube-apiserver alone, as in a rehearsal): nobody collects garbage. A
// Background delete removes the Job alone; an Orphan one leaves it marked with the finalizer
// orphan, which only the collector would take off.
TEST(FakeJobsWithoutCollector, APlainApiServerLeavesDependentsAndOrphanedOwners) {
  FakeApiServer fake;
  fake.create_namespace("what-if");
  KubeClient client{testing::config_for(fake.url())};
  const Owned o = make_owned(client);
  DeleteOptions bg;
  bg.propagation_policy = "Background";
  client.remove(std::string(kJobs) + "/gantry-sweep-s1", bg);
  EXPECT_FALSE(fake.get(kJobs, "gantry-sweep-s1"));
  EXPECT_TRUE(fake.get(kPods, o.bound));
  EXPECT_TRUE(fake.get(kPods, o.unbound));
  EXPECT_TRUE(fake.get(kSecrets, "gantry-sweep-s1-token"));

  json body = sweep_job_body(sweep());
  body["metadata"]["name"] = "kept";
  client.post(kJobs, body);
  const KubeResponse r = client.request("DELETE", std::string(kJobs) + "/kept");  // Orphan
  EXPECT_EQ(r.status, 202);
  const json kept = *fake.get(kJobs, "kept");
  EXPECT_EQ(kept["metadata"]["finalizers"], json::array({"orphan"}));
  EXPECT_TRUE(kept["metadata"].contains("deletionTimestamp"));
}

TEST_F(FakeJobs, AForbiddenCreateIsRefusedAsRbacRefusesIt) {
  fake.forbid({.verb = "create",
               .group = "batch",
               .resource = "jobs",
               .user = "system:serviceaccount:what-if:gantry"});
  const KubeStatus s = refusal([&] { client.post(kJobs, sweep_job_body(sweep())); });
  EXPECT_EQ(s.code, 403);
  EXPECT_EQ(s.reason, "Forbidden");
  EXPECT_EQ(s.message,
            "jobs.batch is forbidden: User \"system:serviceaccount:what-if:gantry\" cannot create "
            "resource \"jobs\" in API group \"batch\" in the namespace \"what-if\"");
  EXPECT_EQ(s.kind, "jobs");
  // Other verbs and resources are not refused.
  EXPECT_EQ(client.get(kJobs)["items"].size(), 0u);
  EXPECT_EQ(client.create(kSecrets, sweep_secret_body(sweep(), "t")).outcome, WriteOutcome::kOk);
}

}  // namespace fake_api_jobs_test
}  // namespace gantry::kube
