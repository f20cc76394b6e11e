// Drawing fault and maintenance events (sim/fault_process.hpp): counts against the Llama 3
// paper's, a Weibull's mean, the renewal rule, the rolling maintenance schedule instant by
// instant, order, determinism and the guard against floods.

#include "sim/fault_process.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "tests/sim/fault_fixtures.hpp"

namespace gantry {
namespace {

using testing::kFaultT0;

std::vector<FaultEvent> draw(const FaultSpec& spec, const Topology& t, Duration span,
                             uint64_t seed) {
  Result<std::vector<FaultEvent>> r = draw_fault_events(spec, t, kFaultT0, kFaultT0 + span, seed);
  EXPECT_TRUE(r) << r.error();
  return r ? r.value() : std::vector<FaultEvent>{};
}

auto fields(const FaultEvent& e) {
  return std::tuple(e.at, e.action, e.node, e.rack, e.gpu, e.duration, e.deadline, e.cause);
}

void expect_same(const std::vector<FaultEvent>& a, const std::vector<FaultEvent>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(fields(a[i]) == fields(b[i])) << i;
}

FailureProcessSpec exponential(FailureComponent c, std::string model, Duration mtbf,
                               Duration repair) {
  FailureProcessSpec p;
  p.component = c;
  p.gpu_model = std::move(model);
  p.time_to_failure.mtbf = mtbf;
  p.repair.mean = repair;
  p.cause = to_string(c);
  return p;
}

TEST(FaultProcess, Llama3PresetReproducesThePapersInterruptions) {
  // Dubey et al. 2024, §3.3.4: 419 interruptions in 54 days on 2,048 nodes of 8 H100s, 58.7 %
  // of them GPU issues. The preset's rates give 245.953 GPU + 173.047 node failures expected
  // (tests/sim/fault_spec_test.cpp); repairs (mean 6 h and 2 h) take a unit out of the risk
  // for a negligible share of 54 days. The count is Poisson: σ = √419 = 20.47, so ±4σ = ±82;
  // the GPU share is binomial: σ = √(0.587 × 0.413 / 419) = 0.02405, ±4σ = ±0.0962.
  const Topology t = testing::llama3_cluster();
  const FaultSpec spec{llama3_h100_processes(), {}};
  for (const uint64_t seed : {1u, 2u}) {
    const std::vector<FaultEvent> events = draw(spec, t, days(54), seed);
    size_t gpu = 0;
    for (const FaultEvent& e : events) {
      ASSERT_GE(e.node, 0);
      ASSERT_LT(e.node, 2048);
      EXPECT_GT(e.duration, Duration{});
      EXPECT_GE(e.at, kFaultT0);
      EXPECT_LT(e.at, kFaultT0 + days(54));
      if (e.action == FaultAction::kGpuFail) {
        ++gpu;
        EXPECT_EQ(e.cause, "GPU");
        EXPECT_GE(e.gpu, 0);
        EXPECT_LT(e.gpu, 8);
      } else {
        EXPECT_EQ(e.action, FaultAction::kNodeDown);
        EXPECT_EQ(e.cause, "node");
        EXPECT_EQ(e.gpu, -1);
      }
    }
    EXPECT_NEAR(static_cast<double>(events.size()), 419.0, 82.0) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(gpu) / static_cast<double>(events.size()), 0.587, 0.0962)
        << "seed " << seed;
  }
}

TEST(FaultProcess, Llama3UnitsAndThirtyDays) {
  // 2,048 nodes × 8 GPUs = 16,384 GPU units, plus 2,048 node units.
  const Topology t = testing::llama3_cluster();
  const FaultSpec spec{llama3_h100_processes(), {}};
  EXPECT_EQ(FaultTimeline(spec, t, kFaultT0, 7).units(), 18'432u);
  // 30 days: 16,384 × 30 / 3,597.175 + 2,048 × 30 / 639.0865 = 136.64 + 96.14 = 232.8 expected;
  // σ = √232.8 = 15.26, ±4σ = ±61.
  EXPECT_NEAR(static_cast<double>(draw(spec, t, days(30), 7).size()), 232.8, 61.0);
}

TEST(FaultProcess, SameSeedSameEventsOtherSeedOthers) {
  const Topology t = testing::llama3_cluster();
  const FaultSpec spec{llama3_h100_processes(), {}};
  const std::vector<FaultEvent> a = draw(spec, t, days(30), 42);
  expect_same(a, draw(spec, t, days(30), 42));
  const std::vector<FaultEvent> b = draw(spec, t, days(30), 43);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a.front().at, b.front().at);
}

TEST(FaultProcess, WindowsGiveTheSameEventsAsOneDraw) {
  // Draws follow the events' time order, so cutting the run into windows changes nothing.
  const Topology t = testing::llama3_cluster();
  FaultSpec spec{llama3_h100_processes(), {}};
  MaintenanceSpec m;
  m.start = hours(5);
  m.every = days(7);
  m.duration = hours(4);
  m.deadline = hours(1);
  m.concurrent = 256;  // 2,048 / 256 = 8 batches of 5 h = 40 h < 7 d
  spec.maintenance.push_back(m);
  const std::vector<FaultEvent> whole = draw(spec, t, days(20), 5);
  FaultTimeline timeline(spec, t, kFaultT0, 5);
  std::vector<FaultEvent> pieces;
  for (const Duration cut : {hours(1), hours(30), days(9), days(9), days(20)}) {
    Result<std::vector<FaultEvent>> part = timeline.take_until(kFaultT0 + cut);
    ASSERT_TRUE(part) << part.error();
    pieces.insert(pieces.end(), part.value().begin(), part.value().end());
    EXPECT_EQ(timeline.drawn_until(), kFaultT0 + cut);
  }
  // 3 rounds (5 h, 7 d 5 h, 14 d 5 h) × 2,048 drains = 6,144 of the events.
  size_t drains = 0;
  for (const FaultEvent& e : whole) drains += e.action == FaultAction::kDrain ? 1 : 0;
  EXPECT_EQ(drains, 6'144u);
  expect_same(whole, pieces);
}

TEST(FaultProcess, SortedByTimeThenNode) {
  const Topology t = testing::llama3_cluster();
  FaultSpec spec{llama3_h100_processes(), {}};
  MaintenanceSpec m;
  m.duration = hours(1);
  m.every = days(1);
  spec.maintenance.push_back(m);  // every node drained at once, each day: many ties
  const std::vector<FaultEvent> events = draw(spec, t, days(10), 3);
  for (size_t i = 1; i < events.size(); ++i) {
    const FaultEvent& a = events[i - 1];
    const FaultEvent& b = events[i];
    ASSERT_TRUE(std::tuple(a.at, a.node, a.rack, a.gpu, a.action) <=
                std::tuple(b.at, b.node, b.rack, b.gpu, b.action))
        << i;
  }
}

TEST(FaultProcess, WeibullTimeToFailureHasItsMean) {
  // 2,000 nodes, Weibull shape 2, scale 100 h: mean 100 × Γ(1.5) = 88.6227 h, standard
  // deviation 100 × √(Γ(2) − Γ(1.5)²) = 100 × √(1 − 0.785398) = 46.325 h. Each node's first
  // failure is one draw (P(T > 1,000 h) = e^−100: all fail within the run); the mean of 2,000
  // draws has σ = 46.325 / √2000 = 1.0359 h; ±4σ = ±4.14 h.
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  testing::add_fault_racks(t, testing::add_fault_class(t, "c", "A100-80G", 8), 20, 100);
  FailureProcessSpec p = exponential(FailureComponent::kNode, "", Duration{}, days(1000));
  p.time_to_failure.kind = TimeToFailure::Kind::kWeibull;
  p.time_to_failure.shape = 2;
  p.time_to_failure.scale = hours(100);
  const std::vector<FaultEvent> events = draw(FaultSpec{{p}, {}}, t, hours(1000), 11);
  // A repair of 1,000 days: one failure per node.
  ASSERT_EQ(events.size(), 2000u);
  double sum_h = 0;
  for (const FaultEvent& e : events) sum_h += (e.at - kFaultT0).seconds() / 3600;
  EXPECT_NEAR(sum_h / 2000, 88.6227, 4.14);
}

TEST(FaultProcess, WeibullShapeBelowOneFailsEarly) {
  // Shape 0.5, scale 100 h: P(T ≤ 1 h) = 1 − exp(−(1/100)^0.5) = 1 − e^−0.1 = 0.09516, against
  // 1 − exp(−1/200) = 0.00499 for an exponential of the same mean (100 × Γ(3) = 200 h). Over
  // 2,000 nodes: 190.3 expected failures in the first hour, binomial σ = √(2000 × 0.09516 ×
  // 0.90484) = 13.12; ±4σ = ±52.5.
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  testing::add_fault_racks(t, testing::add_fault_class(t, "c", "A100-80G", 8), 20, 100);
  FailureProcessSpec p = exponential(FailureComponent::kNode, "", Duration{}, days(1000));
  p.time_to_failure.kind = TimeToFailure::Kind::kWeibull;
  p.time_to_failure.shape = 0.5;
  p.time_to_failure.scale = hours(100);
  EXPECT_NEAR(static_cast<double>(draw(FaultSpec{{p}, {}}, t, hours(1), 4).size()), 190.3, 52.5);
}

TEST(FaultProcess, AUnitDoesNotFailWhileItIsRepaired) {
  // One node, MTBF 1 h, fixed repair 10 h: each failure comes at least 10 h after the one
  // before. Over 1,000 h a cycle takes 10 h + 1 h on average: about 1000 / 11 = 90.9 failures
  // (a renewal count; σ ≈ √90.9 × (1 h / 11 h) ≈ 0.87 since only the 1 h part varies; ±4σ
  // plus one for the partial cycle at the end, ±5).
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  testing::add_fault_racks(t, testing::add_fault_class(t, "c", "A100-80G", 8), 1, 1);
  const FaultSpec spec{{exponential(FailureComponent::kNode, "", hours(1), hours(10))}, {}};
  const std::vector<FaultEvent> events = draw(spec, t, hours(1000), 9);
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_EQ(events[i - 1].duration, hours(10));
    EXPECT_GE(events[i].at, events[i - 1].at + hours(10)) << i;
  }
  EXPECT_NEAR(static_cast<double>(events.size()), 90.9, 5.0);
}

TEST(FaultProcess, GpuModelSelectsTheUnits) {
  // mixed_cluster: nodes 0-1 A100 (rack 0), 2-3 H100 (rack 1), 4 CPU-only (rack 2).
  const Topology t = testing::mixed_cluster();
  // MTBF 1 h, repair 1,000 d: every unit fails once within 100 h (P(miss) = e^−100).
  const Duration mtbf = hours(1);
  FailureProcessSpec a100 = exponential(FailureComponent::kNode, "a100", mtbf, days(1000));
  a100.cause = "a100";
  const FaultSpec spec{{exponential(FailureComponent::kGpu, "H100", mtbf, days(1000)), a100,
                        exponential(FailureComponent::kRack, "H100", mtbf, days(1000)),
                        exponential(FailureComponent::kNode, "", mtbf, days(1000))},
                       {}};
  std::map<std::tuple<FaultAction, NodeId, RackId, int, std::string>, int> seen;
  for (const FaultEvent& e : draw(spec, t, hours(100), 1))
    ++seen[std::tuple(e.action, e.node, e.rack, e.gpu, e.cause)];
  // 2 H100 nodes × 8 GPUs = 16; A100 nodes 0, 1 (cause a100); rack 1 only; all 5 nodes (cause
  // node): 16 + 2 + 1 + 5 = 24.
  EXPECT_EQ(seen.size(), 24u);
  for (const auto& [key, count] : seen) EXPECT_EQ(count, 1);
  for (NodeId n : {2, 3})
    for (int g = 0; g < 8; ++g) EXPECT_EQ(seen.count({FaultAction::kGpuFail, n, -1, g, "gpu"}), 1u);
  EXPECT_EQ(seen.count({FaultAction::kNodeDown, 0, -1, -1, "a100"}), 1u);
  EXPECT_EQ(seen.count({FaultAction::kNodeDown, 1, -1, -1, "a100"}), 1u);
  EXPECT_EQ(seen.count({FaultAction::kNodeDown, 2, -1, -1, "a100"}), 0u);
  EXPECT_EQ(seen.count({FaultAction::kRackDown, -1, 1, -1, "rack"}), 1u);
  EXPECT_EQ(seen.count({FaultAction::kNodeDown, 4, -1, -1, "node"}), 1u);  // CPU-only, no model
}

TEST(FaultProcess, RollingMaintenanceInstants) {
  // 5 nodes, start 24 h, every 7 d (168 h), deadline 2 h, duration 4 h, 2 at a time: a batch
  // slot is 2 + 4 = 6 h. Round 0 at 24 h: nodes 0, 1 at 24 h; 2, 3 at 30 h; 4 at 36 h. Round 1
  // at 24 + 168 = 192 h: 0, 1 at 192 h; 2, 3 at 198 h; 4 at 204 h, past the 200 h end.
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  testing::add_fault_racks(t, testing::add_fault_class(t, "c", "A100-80G", 8), 1, 5);
  MaintenanceSpec m;
  m.start = hours(24);
  m.every = days(7);
  m.deadline = hours(2);
  m.duration = hours(4);
  m.concurrent = 2;
  const std::vector<FaultEvent> events = draw(FaultSpec{{}, {m}}, t, hours(200), 1);
  const std::vector<std::pair<int64_t, NodeId>> expected = {
      {24, 0}, {24, 1}, {30, 2}, {30, 3}, {36, 4}, {192, 0}, {192, 1}, {198, 2}, {198, 3}};
  ASSERT_EQ(events.size(), expected.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].at, kFaultT0 + hours(expected[i].first)) << i;
    EXPECT_EQ(events[i].node, expected[i].second) << i;
    EXPECT_EQ(events[i].action, FaultAction::kDrain);
    EXPECT_EQ(events[i].deadline, hours(2));
    EXPECT_EQ(events[i].duration, hours(4));
    EXPECT_EQ(events[i].cause, "maintenance");
  }
}

TEST(FaultProcess, MaintenanceOfARackAndOfAListOnce) {
  // mixed_cluster. Rack 1 (nodes 2, 3) once at 1 h, one at a time with a 30 min slot: 2 at 1 h,
  // 3 at 1.5 h. A list [4, 0] at 1 h, all at once: both at 1 h. At 1 h the order is by node:
  // 0, 2, 4; then 3 at 1.5 h.
  const Topology t = testing::mixed_cluster();
  MaintenanceSpec rack;
  rack.target = MaintenanceSpec::Target::kRack;
  rack.rack = 1;
  rack.start = hours(1);
  rack.deadline = minutes(10);
  rack.duration = minutes(20);
  rack.concurrent = 1;
  MaintenanceSpec list;
  list.target = MaintenanceSpec::Target::kNodes;
  list.nodes = {4, 0};
  list.start = hours(1);
  list.duration = hours(3);
  const std::vector<FaultEvent> events = draw(FaultSpec{{}, {rack, list}}, t, days(30), 1);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].node, 0);
  EXPECT_EQ(events[0].duration, hours(3));
  EXPECT_EQ(events[1].node, 2);
  EXPECT_EQ(events[1].duration, minutes(20));
  EXPECT_EQ(events[2].node, 4);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(events[static_cast<size_t>(i)].at, kFaultT0 + hours(1));
  EXPECT_EQ(events[3].node, 3);
  EXPECT_EQ(events[3].at, kFaultT0 + minutes(90));
}

TEST(FaultProcess, TooManyEventsIsAnError) {
  // 5 nodes drained every hour for 10 h (5 × 10 = 50 events) with a bound of 49.
  const Topology t = testing::mixed_cluster();
  MaintenanceSpec m;
  m.every = hours(1);
  m.duration = minutes(30);
  const FaultSpec spec{{}, {m}};
  const Result<std::vector<FaultEvent>> over =
      draw_fault_events(spec, t, kFaultT0, kFaultT0 + hours(10), 1, 49);
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().find("more than 49"), std::string::npos) << over.error();
  const Result<std::vector<FaultEvent>> exact =
      draw_fault_events(spec, t, kFaultT0, kFaultT0 + hours(10), 1, 50);
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact.value().size(), 50u);
}

TEST(FaultProcess, EmptyWindows) {
  const Topology t = testing::llama3_cluster();
  const FaultSpec spec{llama3_h100_processes(), {}};
  EXPECT_TRUE(draw(spec, t, Duration{}, 1).empty());
  EXPECT_TRUE(draw(FaultSpec{}, t, days(30), 1).empty());
}

}  // namespace
}  // namespace gantry
