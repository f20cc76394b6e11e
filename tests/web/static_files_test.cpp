// The web app's files are served from their folder and nothing outside it: "..", encoded
// "%2e%2e" (decoded by civetweb before it reaches us), absolute-looking paths, hidden files and
// symlinks that leave the folder all get 404.

#include "web/server/static_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

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

// Inflates a gzip stream (RFC 1952) with zlib, independently of the server's code.
std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[4096];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END) << "not a complete gzip stream";
  return out;
}

std::optional<std::string> header_of(const HttpResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return std::nullopt;
}

TEST_F(StaticFilesTest, TextGoesOutGzippedWhenTheClientAcceptsIt) {
  // A script large enough that compression matters: 2,000 repetitions of one line.
  std::string script;
  for (int i = 0; i < 2000; ++i)
    script += "console.log('gantry ' + " + std::to_string(i % 7) + ");\n";
  std::ofstream(dir_ / "ui" / "assets" / "big-9f8e.js") << script;
  StaticFiles files(dir_ / "ui");

  const HttpResponse gz = files.serve("/assets/big-9f8e.js", "gzip, deflate");
  EXPECT_EQ(gz.status, 200);
  EXPECT_EQ(header_of(gz, "Content-Encoding"), "gzip");
  EXPECT_EQ(header_of(gz, "Vary"), "Accept-Encoding");
  EXPECT_LT(gz.body.size(), script.size() / 10) << "a repetitive script compresses well";
  EXPECT_TRUE(gunzip(gz.body) == script) << "the gzip stream is not the script";
  // Served again (from the kept copy): the same bytes.
  EXPECT_EQ(files.serve("/assets/big-9f8e.js", "gzip").body, gz.body);

  const HttpResponse plain = files.serve("/assets/big-9f8e.js", "");
  EXPECT_EQ(header_of(plain, "Content-Encoding"), std::nullopt);
  EXPECT_EQ(header_of(plain, "Vary"), "Accept-Encoding") << "caches must key on the header";
  EXPECT_EQ(plain.body, script);
  EXPECT_EQ(files.serve("/assets/big-9f8e.js", "gzip;q=0, identity").body, script);

  const HttpResponse index = files.serve("/", "gzip");
  EXPECT_EQ(gunzip(index.body), "<!doctype html>app");
}

TEST_F(StaticFilesTest, AChangedFileIsCompressedAgain) {
  StaticFiles files(dir_ / "ui");
  EXPECT_EQ(gunzip(files.serve("/assets/app-1a2b.js", "gzip").body), "console.log(1)");
  std::ofstream(dir_ / "ui" / "assets" / "app-1a2b.js") << "console.log(22)";
  EXPECT_EQ(gunzip(files.serve("/assets/app-1a2b.js", "gzip").body), "console.log(22)")
      << "the kept copy is of the old file (its size changed)";
}

TEST_F(StaticFilesTest, ImagesAreNotCompressed) {
  std::ofstream(dir_ / "ui" / "logo.png") << "\x89PNG....";
  StaticFiles files(dir_ / "ui");
  const HttpResponse r = files.serve("/logo.png", "gzip");
  EXPECT_EQ(header_of(r, "Content-Encoding"), std::nullopt);
  EXPECT_EQ(header_of(r, "Vary"), std::nullopt);
}

TEST_F(StaticFilesTest, TheIndexCarriesAContentSecurityPolicy) {
  StaticFiles files(dir_ / "ui");
  const std::optional<std::string> csp =
      header_of(files.serve("/runs/nightly"), "Content-Security-Policy");
  ASSERT_TRUE(csp.has_value());
  EXPECT_NE(csp->find("default-src 'self'"), std::string::npos);
  EXPECT_NE(csp->find("frame-ancestors 'none'"), std::string::npos);
  EXPECT_EQ(header_of(files.serve("/assets/app-1a2b.js"), "Content-Security-Policy"), std::nullopt);
}

TEST_F(StaticFilesTest, BrotliWhenBuiltInAndAskedFor) {
  if (!brotli_available()) GTEST_SKIP() << "built without libbrotli-dev: gzip only";
  std::string css;
  for (int i = 0; i < 500; ++i) css += ".n" + std::to_string(i % 9) + " { color: #123456; }\n";
  std::ofstream(dir_ / "ui" / "assets" / "app-77aa.css") << css;
  StaticFiles files(dir_ / "ui");
  const HttpResponse br = files.serve("/assets/app-77aa.css", "gzip, deflate, br");
  EXPECT_EQ(header_of(br, "Content-Encoding"), "br");
  EXPECT_EQ(header_of(br, "Vary"), "Accept-Encoding");
  EXPECT_EQ(brotli_decompress(br.body), css);
  // A client without br gets gzip.
  const HttpResponse gz = files.serve("/assets/app-77aa.css", "gzip");
  EXPECT_EQ(header_of(gz, "Content-Encoding"), "gzip");
  EXPECT_EQ(gunzip(gz.body), css);
  EXPECT_EQ(header_of(files.serve("/assets/app-77aa.css", "br;q=0, gzip"), "Content-Encoding"),
            "gzip");
}

TEST(AcceptsGzip, ReadsTheHeaderAsRfc9110Says) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("deflate, GZIP;q=0.5"));
  EXPECT_TRUE(accepts_gzip("br, *"));
  EXPECT_TRUE(accepts_gzip("gzip;q=1.0"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0.000, *"));
  EXPECT_FALSE(accepts_gzip("*;q=0"));
  EXPECT_FALSE(accepts_gzip("x-gzip2"));
  EXPECT_TRUE(accepts_encoding("gzip, deflate, br", "br"));
  EXPECT_FALSE(accepts_encoding("gzip, deflate", "br"));
  EXPECT_FALSE(accepts_encoding("br;q=0, *", "br"));
}

}  // namespace
}  // namespace gantry::web
