// What `gantry sweep --on kubernetes` tells a user about their cluster (issue #25): a 403 names
// the RBAC verb, resource and namespace; the pods' status says which shard cannot pull its image,
// failed, or cannot be scheduled. Pod statuses below have the shape the kubelet writes
// (core/v1 ContainerStateWaiting / ContainerStateTerminated, PodCondition); the messages are
// the kinds real kubelets and schedulers print.

#include "adapters/kube/sweep_job_launcher.hpp"

#include <gtest/gtest.h>

namespace gantry::kube {
namespace sweep_job_launcher_test {

nlohmann::json pod(const std::string& name, const std::string& index, nlohmann::json status) {
  return {
      {"metadata",
       {{"name", name}, {"annotations", {{"batch.kubernetes.io/job-completion-index", index}}}}},
      {"status", std::move(status)}};
}

TEST(SweepJobLauncher, PermissionMessageNamesTheRoleItNeeds) {
  KubeStatus status;
  status.code = 403;
  status.message =
      "jobs.batch is forbidden: User \"alice\" cannot create resource \"jobs\" in API group "
      "\"batch\" in the namespace \"what-if\"";
  const std::string m = permission_message(status, "create", "batch", "jobs", "what-if");
  EXPECT_EQ(m,
            "no permission to create jobs.batch in namespace what-if: a Role there needs apiGroups "
            "[\"batch\"], resources [\"jobs\"], verbs [\"create\"] (see README, \"Sweeps on "
            "Kubernetes\"). The API server said: " +
                status.message);
  EXPECT_NE(permission_message(status, "create", "", "secrets", "x").find("create secrets in"),
            std::string::npos)
      << "the core group has no suffix";
}

TEST(SweepJobLauncher, PodProblemsNameShardAndCause) {
  const auto status = [](const char* json) { return nlohmann::json::parse(json); };
  nlohmann::json list = {{"items", nlohmann::json::array()}};
  list["items"].push_back(pod("gantry-sweep-a-0-abcde", "0", status(R"({
      "phase": "Pending",
      "containerStatuses": [{"name": "sweep-worker", "image": "registry.example/gantry:1.0",
        "state": {"waiting": {"reason": "ImagePullBackOff",
          "message": "Back-off pulling image \"registry.example/gantry:1.0\""}}}]})")));
  list["items"].push_back(pod("gantry-sweep-a-1-fghij", "1", status(R"({"phase": "Running"})")));
  list["items"].push_back(pod("gantry-sweep-a-2-klmno", "2", status(R"({
      "phase": "Failed",
      "containerStatuses": [{"name": "sweep-worker", "state": {"terminated": {"exitCode": 2,
        "reason": "Error", "message": "cannot reach https://gantry.example"}}}]})")));
  list["items"].push_back(pod("gantry-sweep-a-3-pqrst", "3", status(R"({
      "phase": "Succeeded",
      "containerStatuses": [{"name": "sweep-worker", "state": {"terminated": {"exitCode": 0,
        "reason": "Completed"}}}]})")));
  list["items"].push_back(pod("gantry-sweep-a-4-uvwxy", "4", status(R"({
      "phase": "Pending",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/3 nodes are available: 3 Insufficient cpu."}]})")));
  const std::vector<std::string> problems = sweep_pod_problems(list);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0],
            "pod gantry-sweep-a-0-abcde (shard 0): the image registry.example/gantry:1.0 cannot be "
            "pulled (ImagePullBackOff): Back-off pulling image \"registry.example/gantry:1.0\"");
  EXPECT_EQ(problems[1],
            "pod gantry-sweep-a-2-klmno (shard 2): the shard failed with exit code 2: cannot "
            "reach https://gantry.example");
  EXPECT_EQ(problems[2],
            "pod gantry-sweep-a-4-uvwxy (shard 4): the pod cannot be scheduled: 0/3 nodes are "
            "available: 3 Insufficient cpu.");
  EXPECT_TRUE(sweep_pod_problems(nlohmann::json::object()).empty());
}

}  // namespace sweep_job_launcher_test
}  // namespace gantry::kube
