// Where `gantry` finds the files it ships (issue #27): beside an installed program first, then
// in the source tree it was built from; never in the working directory.

#include "tools/gantry/shipped_data.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/core/errors.hpp"

namespace gantry::shipped_data_test {

namespace fs = std::filesystem;
using cli::find_shipped_data;

class ShippedData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gantry-shipped-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path make_folder(const fs::path& relative) {
    fs::create_directories(dir_ / relative);
    return dir_ / relative;
  }

  fs::path dir_;
};

TEST_F(ShippedData, AnInstalledProgramFindsItsShareFolder) {
  make_folder("prefix/bin");
  make_folder("prefix/share/gantry/scenarios");
  make_folder("src/scenarios");  // a source tree too: the installed copy wins
  const auto found = find_shipped_data(dir_ / "prefix/bin/gantry", dir_ / "src");
  EXPECT_EQ(found.root, dir_ / "prefix/share/gantry");
  EXPECT_EQ(found.scenarios, dir_ / "prefix/share/gantry/scenarios");
  EXPECT_EQ(found.web_ui, dir_ / "prefix/share/gantry/web");
}

TEST_F(ShippedData, AProgramInItsBuildTreeFindsItsSourceTree) {
  make_folder("src/build");
  make_folder("src/scenarios");
  const auto found = find_shipped_data(dir_ / "src/build/gantry", dir_ / "src");
  EXPECT_EQ(found.scenarios, dir_ / "src/scenarios");
  EXPECT_EQ(found.web_ui, dir_ / "src/web/ui/dist");
}

TEST_F(ShippedData, TheWorkingDirectoryIsNotLookedAt) {
  // A scenarios folder in the working directory, none beside the program nor in its source.
  make_folder("cwd/scenarios");
  const fs::path before = fs::current_path();
  fs::current_path(dir_ / "cwd");
  try {
    find_shipped_data(dir_ / "lone/gantry", dir_ / "gone");
    ADD_FAILURE() << "found shipped data in the working directory";
  } catch (const GantryError& e) {
    const std::string what = e.what();
    // Both places are named, and what to do instead.
    EXPECT_NE(what.find((dir_ / "share/gantry/scenarios").string()), std::string::npos) << what;
    EXPECT_NE(what.find((dir_ / "gone/scenarios").string()), std::string::npos) << what;
    EXPECT_NE(what.find("--cluster"), std::string::npos) << what;
  }
  fs::current_path(before);
}

TEST_F(ShippedData, AShareFolderWithoutScenariosIsNotTaken) {
  make_folder("prefix/bin");
  make_folder("prefix/share/gantry/web");  // a half-installed prefix
  make_folder("src/scenarios");
  EXPECT_EQ(find_shipped_data(dir_ / "prefix/bin/gantry", dir_ / "src").scenarios,
            dir_ / "src/scenarios");
}

}  // namespace gantry::shipped_data_test
