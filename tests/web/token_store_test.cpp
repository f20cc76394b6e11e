// API tokens: created tokens verify with their role, unknown and malformed ones do not, only
// hashes are stored, and the first start writes one admin token to a 0600 file.

#include "web/server/token_store.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "engine/store/statement.hpp"
#include "tests/web/temp_dir.hpp"

namespace gantry::web {
namespace {

namespace fs = std::filesystem;

using TokenStoreTest = testing::TempDirTest;

// SHA-256("abc") from FIPS 180-2, appendix B.1.
TEST(Sha256, KnownAnswer) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(TokenStoreTest, CreatedTokensVerifyWithTheirRole) {
  TokenStore store((dir_ / "g.db").string());
  const std::string admin = store.create(TokenRole::kAdmin, "ops");
  const std::string viewer = store.create(TokenRole::kViewer, "dashboard");
  EXPECT_TRUE(looks_like_token(admin));
  EXPECT_NE(admin, viewer);
  EXPECT_EQ(store.verify(admin)->role, TokenRole::kAdmin);
  EXPECT_EQ(store.verify(viewer)->role, TokenRole::kViewer);
  EXPECT_EQ(store.verify(viewer)->name, "dashboard");
  std::string wrong = admin;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_EQ(store.verify(wrong), std::nullopt);
  EXPECT_EQ(store.verify("Bearer " + admin), std::nullopt);
  EXPECT_EQ(store.verify(""), std::nullopt);
  ASSERT_TRUE(store.revoke(store.verify(viewer)->id));
  EXPECT_EQ(store.verify(viewer), std::nullopt) << "revoked";
}

TEST_F(TokenStoreTest, OnlyHashesAreStored) {
  std::string token;
  {
    TokenStore store((dir_ / "g.db").string());
    token = store.create(TokenRole::kAdmin, "ops");
  }
  Database db = Database::open((dir_ / "g.db").string(), {.create = false, .read_only = true});
  Statement s = db.prepare("SELECT hash FROM api_tokens");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), sha256_hex(token));
  std::ifstream raw(dir_ / "g.db", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(raw)), {});
  EXPECT_EQ(bytes.find(token), std::string::npos);
}

TEST_F(TokenStoreTest, FirstStartWritesOneAdminTokenToAPrivateFile) {
  TokenStore store((dir_ / "g.db").string());
  const fs::path file = dir_ / "g.db.token";
  ASSERT_TRUE(store.ensure_admin(file));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string token;
  std::getline(std::ifstream(file) >> std::ws, token);
  EXPECT_EQ(store.verify(token)->role, TokenRole::kAdmin);
  EXPECT_FALSE(store.ensure_admin(file)) << "an admin exists: nothing written";
  EXPECT_EQ(store.list().size(), 1u);
}

TEST_F(TokenStoreTest, AForeignFileIsNeverReplaced) {
  TokenStore store((dir_ / "g.db").string());
  const fs::path file = dir_ / "notes.txt";
  std::ofstream(file) << "my notes\n";
  EXPECT_THROW(store.ensure_admin(file), std::runtime_error);
  std::string line;
  std::getline(std::ifstream(file), line);
  EXPECT_EQ(line, "my notes");
}

}  // namespace
}  // namespace gantry::web
