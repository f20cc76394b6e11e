// gantry tune on the shipped example (scenarios/serving/chat-service.yaml: Azure's conversation
// trace, four GPU options from half an L4 to a whole H100) against its own exhaustive grid, at
// a loose and a tight SLO. The loose one is the case that once went wrong: at the first round's
// short budget one H100 held 8 s, which pruned every other arm on its bound; at the full budget
// the H100 needed two (8.00 an hour) while eight L4s (5.60) held. The search must land on the
// exhaustive answer's cost from under a fifth of the grid.
#include <gtest/gtest.h>

#include "adapters/traces/azure_llm_trace.hpp"
#include "sim/serving/service_file.hpp"
#include "sim/serving/spec_tuner.hpp"

namespace gantry {
namespace {

TEST(SpecTunerShipped, ChatServiceMatchesTheExhaustiveGridAtEightAndTwoSeconds) {
  const ServiceSpec s =
      load_service_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/serving/chat-service.yaml");
  const auto trace = std::make_shared<const std::vector<TraceRequest>>(
      load_azure_llm_trace(s.load.trace_file, s.load.speedup));
  for (const auto& [slo, key] : {std::pair{seconds(8), "L4"}, std::pair{seconds(2), "H100"}}) {
    SCOPED_TRACE(slo.seconds());
    TuneOptions o;
    o.slo_p99 = slo;
    const TuneResult r = tune_service(s, trace, o);
    EXPECT_EQ(r.grid_size, (5 + 4 + 5 + 4 + 6) * 40);
    ASSERT_TRUE(r.best && r.exhaustive_best);
    EXPECT_DOUBLE_EQ(r.best->cost_per_hour, r.exhaustive_best->cost_per_hour);
    EXPECT_EQ(r.best->key, key);
    EXPECT_EQ(r.exhaustive_best->key, key);
    EXPECT_LT(r.sampled, r.grid_size / 5);
  }
}

}  // namespace
}  // namespace gantry
