// ServeEngine on a disk that fills up and gets its space back (issue 22: on a 3 MiB tmpfs the
// server aborted, answered 500 to triggers that still created runs, and left databases it
// could not open again). The disk is tests/tools/full_disk.hpp's: every SQLite write of the
// process fails with SQLITE_FULL while it is full, deterministically.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/tools/full_disk.hpp"
#include "tests/web/temp_dir.hpp"
#include "web/server/api_server.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/serve_engine.hpp"

namespace gantry::web {
namespace {

using gantry::testing::FullDisk;

// One task of a minute of simulated time; at --speed 600 that is 0.1 s of the wall clock.
constexpr const char* kManual = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: manual}
spec:
  tasks:
  - {name: t, image: x, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 1m}}
)";

class ServeEngineFullDisk : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    FullDisk::install();
    FullDisk::set_full(false);
  }
  void TearDown() override {
    FullDisk::set_full(false);
    TempDirTest::TearDown();
  }
  std::unique_ptr<ServeEngine> engine(EventBus& bus) {
    return std::make_unique<ServeEngine>(
        ServeConfig{.db_path = db(),
                    .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                    .speed = 600,
                    .kube = {},
                    .log = [this](const std::string& line) { logged_.push_back(line); }},
        bus);
  }
  std::string db() const { return (dir_ / "g.db").string(); }
  int64_t count(const std::string& sql) {
    Database d = Database::open(db(), {.create = false, .read_only = true});
    Statement s = d.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }
  static void apply(ServeEngine& e, const std::string& yaml) {
    bool created = false;
    e.apply(yaml, false, created);
  }
  std::vector<std::string> logged_;
};

// A trigger on a full disk: 507 naming the database, and nothing of it stays, neither in the
// database nor in memory (the run's writes failed at COMMIT, after the scheduler had made the
// run). While the disk is full, changes are refused at once (507) and /readyz names the
// problem; reads go on. Space back: the next try writes, the problem is gone, a trigger works.
TEST_F(ServeEngineFullDisk, ARequestOnAFullDiskChangesNothingAndIsAnswered507) {
  EventBus bus;
  auto e = engine(bus);
  e->start();
  apply(*e, kManual);
  FullDisk::set_full(true);
  const long refused = FullDisk::refused();
  try {
    e->trigger("manual");
    FAIL() << "triggered on a full disk";
  } catch (const ApiError& err) {
    EXPECT_EQ(err.status(), 507);
    EXPECT_NE(std::string(err.what()).find("the disk of the runs database is full"),
              std::string::npos)
        << err.what();
    EXPECT_NE(std::string(err.what()).find(db()), std::string::npos) << err.what();
  }
  EXPECT_GT(FullDisk::refused(), refused) << "the disk refused a write";
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 0) << "no run for a request that failed";
  EXPECT_EQ(e->pipeline("manual")["runsInFlight"], 0) << "none in memory either";
  ASSERT_EQ(e->problems().size(), 1u);
  EXPECT_EQ(e->problems()[0].rfind("database: the disk of the runs database is full", 0), 0u)
      << e->problems()[0];
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_EQ(logged_[0], "error: " + e->problems()[0]);
  bool created = false;
  try {
    e->apply(std::string(kManual).replace(std::string(kManual).find("manual"), 6, "other"), false,
             created);
    FAIL() << "applied on a full disk";
  } catch (const ApiError& err) {
    EXPECT_EQ(err.status(), 507);
  }
  EXPECT_EQ(e->list_pipelines()["pipelines"].size(), 1u) << "reads go on";
  EXPECT_FALSE(e->retry_storage()) << "still full";

  FullDisk::set_full(false);
  EXPECT_TRUE(e->retry_storage());
  EXPECT_TRUE(e->problems().empty());
  e->trigger("manual");
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(e->pipeline("manual")["runsInFlight"], 1);
}

// An event whose write fails (the attempt's end, on a full disk) stops the scheduler, which
// does not pretend: the database keeps the attempt open, as after a crash. Space back, the
// orchestrator is built anew by the restart rules: the attempt is lost and run again, the run
// succeeds: 2 attempts, the first lost. A restart afterwards loads the database.
TEST_F(ServeEngineFullDisk, AnEventThatCannotWriteStopsTheSchedulerUntilSpaceReturns) {
  {
    EventBus bus;
    auto e = engine(bus);
    e->start();
    apply(*e, kManual);
    const nlohmann::json run = e->trigger("manual");
    ASSERT_EQ(count("SELECT count(*) FROM attempts WHERE end_us IS NULL"), 1);
    FullDisk::set_full(true);
    // The attempt ends 1 minute after the trigger; run 2 minutes (0.2 s of the wall clock).
    e->run_until(e->loop().now() + minutes(2));
    ASSERT_EQ(e->problems().size(), 1u);
    EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE end_us IS NULL"), 1) << "not written";
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE state = 'running'"), 1);
    FullDisk::set_full(false);
    ASSERT_TRUE(e->retry_storage());
    EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE state = 'lost'"), 1);
    e->run_until(e->loop().now() + minutes(2));
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE state = 'succeeded'"), 1);
    EXPECT_EQ(count("SELECT count(*) FROM attempts"), 2);
  }
  EventBus bus;
  auto again = engine(bus);
  again->start();
  EXPECT_TRUE(again->problems().empty());
  EXPECT_EQ(again->list_pipelines()["pipelines"].size(), 1u);
}

// A server started on a full disk starts (it writes nothing to open the database) and says
// so at its first failed write; it does not refuse to start.
TEST_F(ServeEngineFullDisk, AServerStartsOnAFullDisk) {
  {
    EventBus bus;
    auto e = engine(bus);
    e->start();
    apply(*e, kManual);
  }
  FullDisk::set_full(true);
  EventBus bus;
  auto e = engine(bus);
  e->start();
  EXPECT_EQ(e->list_pipelines()["pipelines"].size(), 1u);
  EXPECT_THROW(e->trigger("manual"), ApiError);
  EXPECT_EQ(e->problems().size(), 1u);
  FullDisk::set_full(false);
  EXPECT_TRUE(e->retry_storage());
  e->trigger("manual");
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
}

}  // namespace
}  // namespace gantry::web
