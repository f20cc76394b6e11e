// kind: Admission files (sim/admission_file.hpp): the shipped example, and errors with their file,
// line, column and field path counted by hand in the texts below.

#include "sim/admission_file.hpp"

#include <gtest/gtest.h>

#include "engine/core/errors.hpp"

namespace gantry {
namespace {

// Every message of the InputErrors loading `text` as a.yaml, one per line.
std::string errors_of(const std::string& text) {
  try {
    load_admission_text(text, "a.yaml");
  } catch (const InputErrors& e) {
    std::string out;
    for (const InputError& error : e.errors()) out += std::string(error.what()) + "\n";
    return out;
  } catch (const InputError& e) {
    return std::string(e.what()) + "\n";
  }
  ADD_FAILURE() << "expected errors for:\n" << text;
  return "";
}

TEST(AdmissionFile, TheShippedExample) {
  const AdmissionFile a =
      load_admission_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/live/admission.yaml");
  EXPECT_EQ(a.name, "research");
  ASSERT_EQ(a.admission.queues.size(), 2u);
  const QueueSpec& team_a = a.admission.queues[0];
  EXPECT_EQ(team_a.name, "team-a");
  EXPECT_EQ(team_a.cohort, "research");
  EXPECT_EQ(team_a.nominal.at(kQuotaGpu), 32'000);               // 32 GPUs in milli-GPUs
  EXPECT_EQ(team_a.nominal.at(kQuotaCpu), 512'000);              // 512 cores in milli-CPUs
  EXPECT_EQ(team_a.nominal.at(kQuotaMemory), int64_t{4} << 40);  // 4Ti
  EXPECT_EQ(team_a.reclaim_within_cohort, PreemptionPolicy::kAny);
  const QueueSpec& team_b = a.admission.queues[1];
  EXPECT_EQ(team_b.nominal.at(quota_gpu_model("H100-80G")), 16'000);
  EXPECT_EQ(team_b.lending.at(quota_gpu_model("H100-80G")), 8'000);
  EXPECT_EQ(team_b.queueing, QueueingStrategy::kStrictFifo);
  ASSERT_TRUE(a.admission.wait_for_pods_ready.has_value());
  EXPECT_EQ(a.admission.wait_for_pods_ready->backoff_limit, 5);
}

// A model outside the default catalog, an unknown key and a second problem in the same file:
// every error, each with its place; the paths are the file's own (spec.queues...).
TEST(AdmissionFile, ErrorsNameTheirPlace) {
  const std::string text =
      "apiVersion: gantry.dev/v1\n"      // 1
      "kind: Admission\n"                // 2
      "metadata: {name: q}\n"            // 3
      "spec:\n"                          // 4
      "  queues:\n"                      // 5
      "  - name: team-a\n"               // 6
      "    quota: {gpu: {B300: 8}}\n"    // 7: "    quota: {gpu: {" is 18 wide
      "  - name: team-a\n"               // 8: a name given twice, column 11
      "    quota: {gpu: 8}\n"            // 9
      "  fairShare: {enabled: true}\n";  // 10: unknown key, column 3
  EXPECT_EQ(errors_of(text),
            "a.yaml:7:19: spec.queues[0].quota.gpu.B300: unknown GPU type 'B300'; known types: "
            "A100-80G, H100-80G, H800, A10, T4, V100, L40S (a live cluster's models are not known "
            "before it is watched: per-model quotas name models of the default catalog)\n"
            "a.yaml:8:11: spec.queues[1].name: duplicate queue name 'team-a' (first used at line "
            "6)\n"
            "a.yaml:10:3: spec.fairShare: unknown field 'fairShare'; expected one of: queues, "
            "fairSharing, admissionFairSharing, waitForPodsReady\n");
}

TEST(AdmissionFile, OtherKindsAreRefused) {
  EXPECT_EQ(errors_of("apiVersion: gantry.dev/v1\nkind: Scenario\nmetadata: {name: s}\nspec: {}\n"),
            "a.yaml:2:7: kind: expected kind Admission, got 'Scenario'\n");
}

}  // namespace
}  // namespace gantry
