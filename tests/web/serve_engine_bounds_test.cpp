// Issue 22: one small file must not wedge `gantry serve`. A schedule whose catch-up would
// create more runs than the CLI lets a replay create (kMaxRunsPerReplay, 1,000,000) is refused
// when applied, with the error at its start (file:line:col, like every validation error); a
// backfill window over the bound is refused as `gantry pipeline backfill` refuses it.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/web/temp_dir.hpp"
#include "web/server/api_server.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/serve_engine.hpp"

namespace gantry::web {
namespace {

// The file of the issue: a minutely cron since 2000, catch-up on by default. From 2000 to
// any day after 2001-11-25 that is more than 1,000,000 minutes (694.4 days).
constexpr const char* kStorm = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: storm}
spec:
  schedule: {cron: "* * * * *", start: 2000-01-01T00:00:00Z}
  tasks:
  - {name: t, image: x}
)";

class ServeEngineBounds : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    engine_ = std::make_unique<ServeEngine>(
        ServeConfig{.db_path = (dir_ / "g.db").string(),
                    .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                    .kube = {},
                    .log = {}},
        bus_);
    engine_->start();
  }
  EventBus bus_;
  std::unique_ptr<ServeEngine> engine_;
};

TEST_F(ServeEngineBounds, ACatchUpOfMoreThanAMillionRunsIsRefusedAtItsStart) {
  bool created = false;
  try {
    engine_->apply(kStorm, false, created);
    FAIL() << "applied";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 400);
    const nlohmann::json& error = e.body()["errors"][0];
    EXPECT_EQ(error["file"], "body");
    EXPECT_EQ(error["line"], 5);
    EXPECT_EQ(error["column"], 40) << "the value of start: 2 + 37 characters before it";
    EXPECT_EQ(error["path"], "spec.schedule.start");
    EXPECT_NE(error["message"].get<std::string>().find("more than 1000000"), std::string::npos)
        << error;
  }
  EXPECT_EQ(engine_->list_pipelines()["pipelines"].size(), 0u) << "nothing applied";
  // Without catch-up only the most recent tick may run: accepted.
  std::string calm = kStorm;
  calm.replace(calm.find("start:"), 0, "catchup: false, ");
  engine_->apply(calm, false, created);
  EXPECT_TRUE(created);
}

// A backfill of the minutely pipeline over 2024 and 2025 (a leap year
// and a common one: (366 + 365) x 1,440 = 1,052,640 ticks) is over the bound; a day, 1,440 runs,
// is not.
TEST_F(ServeEngineBounds, ABackfillOfMoreThanAMillionRunsIsRefused) {
  std::string manual = kStorm;
  manual.replace(manual.find("start:"), 0, "catchup: false, ");
  bool created = false;
  engine_->apply(manual, false, created);
  Time from, to;
  ASSERT_TRUE(parse_rfc3339("2024-01-01T00:00:00Z", from));
  ASSERT_TRUE(parse_rfc3339("2025-12-31T23:59:00Z", to));
  try {
    engine_->backfill("storm", from, to, BackfillRerun::kNone);
    FAIL() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(std::string(e.what()).rfind("to: the window", 0), 0u) << e.what();
  }
  const nlohmann::json day =
      engine_->backfill("storm", from, from + hours(24) - minutes(1), BackfillRerun::kNone);
  EXPECT_EQ(day["created"], 1440);
}

}  // namespace
}  // namespace gantry::web
