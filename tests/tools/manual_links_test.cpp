// An error that names a field links the manual section for it (issue #27), and every section
// linked exists: each anchor is the GitHub slug of a heading of that manual.

#include "tools/gantry/manual_links.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

namespace gantry::manual_links_test {

using cli::manual_section;
using cli::manual_sections;

// GitHub's anchor of a heading: lower case; letters, digits, '-' and '_' kept; spaces become
// '-'; everything else dropped.
std::string slug(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_')
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

std::set<std::string> anchors_of(const std::string& manual) {
  std::ifstream in(std::string(GANTRY_SOURCE_DIR) + "/" + manual);
  EXPECT_TRUE(in) << manual;
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("#")) out.insert(slug(line.substr(line.find_first_not_of('#') + 1)));
  return out;
}

TEST(ManualLinks, EachKindOfFieldLinksItsSection) {
  EXPECT_EQ(manual_section("spec.policy.admission.queues[0].bogus"),
            "scenarios/README.md#teams-and-queues-admission-quotas-borrowing-preemption");
  EXPECT_EQ(manual_section("spec.policy.placement"), "scenarios/README.md#the-scenario-file");
  EXPECT_EQ(manual_section("spec.workload.services[0].load.qps"),
            "scenarios/README.md#inference-services-traffic-autoscaling-cold-starts");
  EXPECT_EQ(manual_section("spec.workload.jobs[3].gpus"), "scenarios/README.md#the-scenario-file");
  EXPECT_EQ(manual_section("spec.autoscaling.pools[0].max"),
            "scenarios/README.md#failures-elastic-jobs-spot-capacity-and-autoscaling");
  EXPECT_EQ(manual_section("spec.tasks[1].retries"), "workflow/README.md#the-pipeline-file");
  EXPECT_EQ(manual_section("[0].action"), "workflow/README.md#the-events-file---events");
  EXPECT_EQ(manual_section("spec.axes[0].path"), "sim/PLANNING.md#gantry-sweep-a-grid-of-variants");
  EXPECT_EQ(manual_section("spec.pools[0].class"),
            "sim/PLANNING.md#gantry-plan-the-cheapest-cluster-that-meets-the-slos");
  // At a key boundary only: spec.seedling is not spec.seed.
  EXPECT_EQ(manual_section("spec.seedling"), std::nullopt);
  EXPECT_EQ(manual_section(""), std::nullopt);
  EXPECT_EQ(manual_section("metadata.name"), std::nullopt);
}

TEST(ManualLinks, EverySectionLinkedIsAHeadingOfItsManual) {
  const char* fields[] = {"spec.policy.admission",
                          "spec.workload.services",
                          "spec.failures",
                          "spec.cluster",
                          "spec.tasks",
                          "[0]",
                          "spec.axes",
                          "spec.pools"};
  for (const char* field : fields) {
    const std::string link = *manual_section(field);
    const std::string manual = link.substr(0, link.find('#'));
    EXPECT_TRUE(anchors_of(manual).contains(link.substr(link.find('#') + 1))) << link;
  }
}

TEST(ManualLinks, EachSectionIsListedOnceInTheOrderFirstMet) {
  const std::vector<InputError> errors{
      InputError({"s.yaml", 7, 1}, "spec.policy.admission.queues[0].quota", "missing"),
      InputError({"s.yaml", 5, 1}, "spec.cluster.racks", "empty"),
      InputError({"s.yaml", 8, 1}, "spec.policy.admission.cohorts", "bad"),
      InputError({"s.yaml", 1, 1}, "metadata.name", "missing")};
  EXPECT_EQ(manual_sections(errors),
            (std::vector<std::string>{
                "scenarios/README.md#teams-and-queues-admission-quotas-borrowing-preemption",
                "scenarios/README.md#the-scenario-file"}));
}

}  // namespace gantry::manual_links_test
