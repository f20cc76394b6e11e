// `gantry tune`'s flags (issue 22): --qps 1e12 and --measure 36500d hung (a simulation of 10^12
// requests a second, or of 100 years, per grid point), --qps nan was accepted and ignored and
// --qps 0 was refused with a 300-digit range. Each is now refused with exit code 2 and the
// documented range, before anything is simulated; the ranges are in --help.

#include <gtest/gtest.h>

#include "tests/tools/cli_harness.hpp"

namespace gantry::testing {
namespace {

const std::string kChat = std::string(GANTRY_SOURCE_DIR) + "/scenarios/serving/chat-service.yaml";

class TuneCommand : public CliTest {
 protected:
  Outcome tune(const std::string& flags) { return run("tune " + kChat + " --slo p99=2s " + flags); }
};

TEST_F(TuneCommand, QpsOutsideItsRangeIsRefused) {
  for (const std::string qps : {"0", "nan", "inf", "1e12", "10000001", "many"}) {
    const Outcome o = tune("--qps " + qps);
    EXPECT_EQ(o.exit_code(), 2) << qps << ": " << o.err;
    EXPECT_EQ(o.err, "error: --qps: '" + qps +
                         "': expected requests per second above 0 and at most 10000000 (10^7)\n");
    EXPECT_EQ(o.out, "");
  }
}

TEST_F(TuneCommand, MeasureOutsideItsRangeIsRefused) {
  for (const std::string measure : {"36500d", "2d", "9s", "10", "soon"}) {
    const Outcome o = tune("--measure " + measure);
    EXPECT_EQ(o.exit_code(), 2) << measure << ": " << o.err;
    EXPECT_EQ(o.err, "error: --measure: '" + measure +
                         "': expected a duration from 10s to 1d (simulated time per grid point)\n");
  }
}

// --qps 10^7 (the most a service may ask) for the default 10 minutes: 10^7 × 600 s = 6 × 10^9
// requests per grid point, above 10^8. 10^7 for 10 s is exactly 10^8: accepted by that check,
// but the exhaustive grid of chat-service (960 points: (5 + 4 + 5 + 4 + 6) batch sizes × 40
// replicas) would then be 9.6 × 10^10 requests, above 10^10.
TEST_F(TuneCommand, WhatASimulationWouldCostIsBounded) {
  Outcome o = tune("--qps 1e7");
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err,
            "error: --measure: 10m at --qps 1e+07 is 6e+09 simulated requests per grid point, "
            "above the limit of 10^8 (some 10 s of simulation each): shorten --measure or lower "
            "--qps\n");
  o = tune("--qps 1e7 --measure 10s");
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err,
            "error: the exhaustive comparison would simulate 9.6e+10 requests (960 grid points × "
            "--qps 1e+07 × 10s), above the limit of 10^10 (some 20 minutes): pass "
            "--no-exhaustive, shorten --measure or lower --qps\n");
}

// A --qps in range is used: the report states it as the peak.
TEST_F(TuneCommand, AQpsInRangeIsThePeak) {
  const Outcome o = tune("--qps 20 --measure 10s --no-exhaustive");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(o.out.rfind("Tuning chat for p99 ≤ 2.0s at 20.0 requests/s (its peak)\n", 0), 0u)
      << o.out;
}

TEST_F(TuneCommand, HelpStatesTheRanges) {
  const Outcome o = run("tune --help");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_NE(o.out.find("above 0 and at most 10^7"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("10s to 1d"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace gantry::testing
