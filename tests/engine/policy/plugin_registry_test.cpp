#include "engine/policy/plugin_registry.hpp"

#include <gtest/gtest.h>

#include "engine/policy/scheduler.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

TEST(PluginRegistry, BuiltInsAreRegisteredByName) {
  const auto names = placement_plugin_names();
  ASSERT_GE(names.size(), 9u);
  EXPECT_EQ(names[0], "binpack");
  EXPECT_EQ(names[1], "spread");
  EXPECT_EQ(names[2], "topology");
  EXPECT_EQ(std::vector<std::string>(names.begin() + 3, names.begin() + 9),
            (std::vector<std::string>{"random", "dotproduct", "gpuclustering", "gpupacking",
                                      "bestfit", "fgd"}));
  for (const auto& n : {"binpack", "spread", "topology", "random", "dotproduct", "gpuclustering",
                        "gpupacking", "bestfit", "fgd"}) {
    auto plugin = make_placement_plugin(n);
    ASSERT_NE(plugin, nullptr) << n;
    EXPECT_EQ(plugin->name(), n);
  }
  EXPECT_EQ(make_placement_plugin("Binpack"), nullptr);  // names are exact
  EXPECT_EQ(make_placement_plugin(""), nullptr);
}

// Lowest node id always: enough to tell it apart from binpack on the test cluster below.
class FirstFitPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "first-fit-test"; }
  NodeScore score(const PlacementContext&, NodeId) const override { return {}; }
};

TEST(PluginRegistry, RegisteredPluginsAreUsableBySchedulers) {
  EXPECT_FALSE(
      register_placement_plugin("binpack", [] { return std::make_unique<FirstFitPlugin>(); }));
  ASSERT_TRUE(register_placement_plugin("first-fit-test",
                                        [] { return std::make_unique<FirstFitPlugin>(); }));
  EXPECT_FALSE(register_placement_plugin("first-fit-test",
                                         [] { return std::make_unique<FirstFitPlugin>(); }));
  const auto names = placement_plugin_names();
  EXPECT_EQ(names.back(), "first-fit-test");

  Cluster cluster = testing::uniform_cluster(2);
  testing::occupy(cluster, 1, 6);
  SchedulerConfig config;
  config.placement = "first-fit-test";
  Scheduler s(config);
  const JobSpec job = testing::worker_job(1, 2);
  ASSERT_TRUE(s.submit(1, job, job.submit));
  const auto placed = s.run_cycle(cluster, Time());
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].pods[0].node, 0);  // binpack would have chosen node 1
}

}  // namespace
}  // namespace gantry
