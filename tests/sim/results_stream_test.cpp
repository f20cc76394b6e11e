// ResultsStream: the events and series of a run written while it goes on give the database
// the kept log gives, row for row; identical runs give identical files; a full disk ends the
// run with an error naming the file and leaves nothing at the target.

#include "sim/results_stream.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/core/errors.hpp"
#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "sim/results_export.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace results_stream_test {

using namespace gantry::testing;

// 3,000 jobs of two sizes on 4 DGX nodes: about 24,000 events and series points, so
// several batches of ResultsStream::kBatchRows go through the writer.
ScenarioSpec busy_scenario() {
  ScenarioSpec s = two_size_poisson(11, 3'000, seconds(20), 2000);
  s.name = "busy";
  return s;
}

class ResultsStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(GANTRY_BINARY_DIR) / "test-tmp" / "results-stream" / info->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // `gantry simulate`'s way: the rows streamed, the rest written after the run.
  RunSummary write_streamed(const std::string& file, const ScenarioSpec& scenario) {
    ResultsStream stream(file, gpu_type_names(scenario.topology));
    const SimulationRun run = run_simulation(scenario, {}, nullptr, &stream);
    EXPECT_TRUE(run.log.events.empty() && run.log.series.empty()) << "nothing kept";
    const RunSummary summary = summarize(run);
    write_results_database(stream.finish(), scenario, run, summary, {});
    return summary;
  }

  std::filesystem::path dir_;
};

// Every row of a table, in rowid order, as text.
std::string rows_of(const std::string& file, const std::string& table) {
  Database db = Database::open(file, {.create = false, .read_only = true});
  Statement q = db.prepare("SELECT * FROM " + table + " ORDER BY rowid");
  std::string out;
  int64_t rows = 0;
  while (q.step()) {
    ++rows;
    for (int c = 0; c < q.column_count(); ++c) out += q.column_text(c) + "|";
    out += "\n";
  }
  return std::to_string(rows) + " rows\n" + out;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(ResultsStreamTest, TheStreamedDatabaseHoldsTheKeptLogsRows) {
  const ScenarioSpec scenario = busy_scenario();
  const SimulationRun kept = run_simulation(scenario);
  const RunSummary kept_summary = summarize(kept);
  ASSERT_GT(kept.log.events.size() + kept.log.series.size(), 2 * ResultsStream::kBatchRows);
  write_results_database(path("kept.db"), scenario, kept, kept_summary, {});

  const RunSummary streamed_summary = write_streamed(path("streamed.db"), scenario);
  // The digest replaces the kept rows exactly: the same fingerprint and, to the last bit, the
  // same time-weighted GPU figures.
  EXPECT_EQ(streamed_summary.fingerprint, kept_summary.fingerprint);
  EXPECT_EQ(streamed_summary.gpu_allocation_ratio, kept_summary.gpu_allocation_ratio);
  EXPECT_EQ(streamed_summary.gpu_busy_ratio, kept_summary.gpu_busy_ratio);
  EXPECT_GT(kept_summary.gpu_allocation_ratio, 0.1);
  for (const char* table : {"meta", "jobs", "events", "cluster_series", "summary"})
    EXPECT_EQ(rows_of(path("streamed.db"), table), rows_of(path("kept.db"), table)) << table;
}

TEST_F(ResultsStreamTest, IdenticalRunsGiveIdenticalFiles) {
  write_streamed(path("a.db"), busy_scenario());
  write_streamed(path("b.db"), busy_scenario());
  const std::string a = file_bytes(path("a.db"));
  EXPECT_GT(a.size(), 100'000u);
  EXPECT_EQ(a, file_bytes(path("b.db")));
}

// The writer's error reaches the simulation at the next batch handed over once the writer has
// failed, or at finish() when the run ended first (the run may hand over kBatchesInFlight
// batches before the writer has tried the first: which comes first is the threads' timing,
// so the test accepts either and checks the error both times).
TEST_F(ResultsStreamTest, AFullDiskEndsTheRunWithAnErrorNamingTheFile) {
  const ScenarioSpec scenario = busy_scenario();
  const std::string file = path("results.db");
  ResultsStream stream(file, gpu_type_names(scenario.topology));
  stream.limit_pages_for_test(40);  // 160 KiB: the schema and a few thousand rows
  const auto names_the_full_file = [](const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("results.db"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("full"), std::string::npos) << e.what();
  };
  try {
    run_simulation(scenario, {}, nullptr, &stream);
  } catch (const StoreError& e) {
    names_the_full_file(e);
  }
  try {
    stream.finish();
    ADD_FAILURE() << "finish() must report the full disk";
  } catch (const StoreError& e) {
    names_the_full_file(e);
  }
  EXPECT_FALSE(std::filesystem::exists(file)) << "nothing half-written at the target";
}

}  // namespace results_stream_test
}  // namespace gantry
