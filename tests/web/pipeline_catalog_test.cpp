// The server's catalog of submitted documents survives reopening (a restart), keeps a replaced
// pipeline's paused flag, and lists pools before pipelines.

#include "web/server/pipeline_catalog.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace gantry::web {
namespace {

namespace fs = std::filesystem;

TEST(PipelineCatalog, SurvivesReopeningAndKeepsPausedOnReplace) {
  std::string pattern = (fs::temp_directory_path() / "gantry-catalog-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  const std::string db = (dir / "g.db").string();
  {
    PipelineCatalog c(db);
    EXPECT_TRUE(c.put("Pipeline", "nightly", "kind: Pipeline # v1\n", 1));
    EXPECT_TRUE(c.put("Pool", "gpus", "kind: Pool\n", 2));
    EXPECT_TRUE(c.put("Pipeline", "etl", "kind: Pipeline\n", 3));
    EXPECT_TRUE(c.set_paused("nightly", true));
    EXPECT_FALSE(c.put("Pipeline", "nightly", "kind: Pipeline # v2\n", 4)) << "replaced, not new";
    EXPECT_FALSE(c.set_paused("nope", true));
  }
  PipelineCatalog c(db);
  const auto all = c.all();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].kind, "Pool");
  EXPECT_EQ(all[1].name, "etl");
  EXPECT_EQ(all[2].name, "nightly");
  EXPECT_EQ(all[2].yaml, "kind: Pipeline # v2\n");
  EXPECT_TRUE(all[2].paused) << "a replaced pipeline stays paused";
  EXPECT_EQ(all[2].updated_us, 4);
  EXPECT_TRUE(c.remove("Pipeline", "etl"));
  EXPECT_FALSE(c.remove("Pipeline", "etl"));
  EXPECT_EQ(c.find("Pipeline", "etl"), std::nullopt);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gantry::web
