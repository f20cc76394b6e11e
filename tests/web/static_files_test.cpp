// The web app's files are served from their folder and nothing outside it: "..", encoded
// "%2e%2e" (decoded by civetweb before it reaches us), absolute-looking paths, hidden files and
// symlinks that leave the folder all get 404.

#include "web/server/static_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "tests/web/temp_dir.hpp"

namespace gantry::web {
namespace {

namespace fs = std::filesystem;

class StaticFilesTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "ui" / "assets");
    std::ofstream(dir_ / "ui" / "index.html") << "<!doctype html>app";
    std::ofstream(dir_ / "ui" / "assets" / "app-1a2b.js") << "console.log(1)";
    std::ofstream(dir_ / "ui" / ".env") << "SECRET=1";
    std::ofstream(dir_ / "secret.txt") << "outside";
    fs::create_symlink(dir_ / "secret.txt", dir_ / "ui" / "link.txt");
    fs::create_directory_symlink(dir_, dir_ / "ui" / "up");
  }
};

TEST_F(StaticFilesTest, ServesFilesWithTheirTypes) {
  StaticFiles files(dir_ / "ui");
  const HttpResponse js = files.serve("/assets/app-1a2b.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  const HttpResponse index = files.serve("/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.body, "<!doctype html>app");
}

TEST_F(StaticFilesTest, AppRoutesWithoutAnExtensionGetTheIndex) {
  StaticFiles files(dir_ / "ui");
  EXPECT_EQ(files.serve("/runs/nightly").body, "<!doctype html>app");
  EXPECT_EQ(files.serve("/assets/missing.js").status, 404) << "a missing asset is not the app";
}

TEST_F(StaticFilesTest, NothingOutsideTheFolder) {
  StaticFiles files(dir_ / "ui");
  for (const char* path :
       {"/../secret.txt", "/assets/../../secret.txt", "/./index.html", "//etc/passwd",
        "/assets\\..\\..\\secret.txt", "/.env", "/link.txt", "/up/secret.txt"}) {
    EXPECT_EQ(files.resolve(path), std::nullopt) << path;
    EXPECT_EQ(files.serve(path).status, 404) << path;
  }
}

TEST_F(StaticFilesTest, AMissingFolderSaysTheAppIsNotBuilt) {
  StaticFiles files(dir_ / "nope");
  const HttpResponse r = files.serve("/");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("npm ci"), std::string::npos);
}

}  // namespace
}  // namespace gantry::web
