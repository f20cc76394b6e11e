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

// A person's token named like the first start's admin token does not stop a start without an
// admin token: the new one takes the next free name.
TEST_F(TokenStoreTest, TheFirstStartsTokenTakesAFreeName) {
  TokenStore store((dir_ / "g.db").string());
  store.create(TokenRole::kViewer, "admin (first start)");
  ASSERT_TRUE(store.ensure_admin(dir_ / "g.db.token"));
  EXPECT_EQ(store.list_users().back().name, "admin (first start 2)");
  EXPECT_EQ(store.list_users().back().role, TokenRole::kAdmin);
}

// The record of a token's last use never waits for another writer: while another connection
// holds the write lock, verify() answers at once and records nothing.
TEST_F(TokenStoreTest, ALockedDatabaseSkipsTheLastUseRecord) {
  TokenStore store((dir_ / "g.db").string());
  const std::string token = store.create(TokenRole::kViewer, "dashboard");
  Database other = Database::open((dir_ / "g.db").string(), {.wal = true});
  other.exec("BEGIN IMMEDIATE");  // holds the write lock
  const std::optional<TokenInfo> who = store.verify(token);
  ASSERT_TRUE(who.has_value());
  EXPECT_EQ(who->last_used_us, 0) << "not recorded";
  other.exec("COMMIT");
  EXPECT_GT(store.verify(token)->last_used_us, 0) << "recorded at the next request";
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

TEST_F(TokenStoreTest, EditorTokensKeepTheirRole) {
  TokenStore store((dir_ / "g.db").string());
  const std::string editor = store.create(TokenRole::kEditor, "ana");
  EXPECT_EQ(store.verify(editor)->role, TokenRole::kEditor);
  EXPECT_EQ(user_role_from("editor"), TokenRole::kEditor);
  EXPECT_EQ(user_role_from("sweep-worker"), std::nullopt);
}

TEST_F(TokenStoreTest, NamesAreUniqueAmongPeoplesTokens) {
  TokenStore store((dir_ / "g.db").string());
  store.create(TokenRole::kViewer, "dashboard");
  try {
    store.create(TokenRole::kAdmin, "dashboard");
    FAIL() << "a second token named dashboard";
  } catch (const TokenNameError& e) {
    EXPECT_NE(std::string(e.what()).find("already a token named 'dashboard' (viewer)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(store.create(TokenRole::kEditor, ""), TokenNameError);
  EXPECT_THROW(store.create(TokenRole::kEditor, "a\nb"), TokenNameError);
  // Sweep workers' tokens are named by their sweep and are not people's: no conflict.
  store.create(TokenRole::kSweepWorker, "dashboard", "s1");
  ASSERT_EQ(store.revoke_named("dashboard"), RevokeOutcome::kRevoked);
  store.create(TokenRole::kEditor, "dashboard");  // free again once revoked
  EXPECT_EQ(store.list_users().size(), 1u);
  EXPECT_EQ(store.list().size(), 2u);
}

TEST_F(TokenStoreTest, RevokeByNameRefusesTheAmbiguousAndTheLastAdmin) {
  TokenStore store((dir_ / "g.db").string());
  store.create(TokenRole::kAdmin, "ops");
  EXPECT_EQ(store.revoke_named("nobody"), RevokeOutcome::kNotFound);
  EXPECT_EQ(store.revoke_named("ops"), RevokeOutcome::kLastAdmin);
  store.create(TokenRole::kAdmin, "ops2");
  TokenInfo revoked;
  EXPECT_EQ(store.revoke_named("ops", &revoked), RevokeOutcome::kRevoked);
  EXPECT_EQ(revoked.name, "ops");
  // A database from before names were unique may hold two tokens of one name.
  {
    Database db = Database::open((dir_ / "g.db").string());
    db.exec(
        "INSERT INTO api_tokens(hash, role, name, created_us) VALUES ('h1', 'viewer', 'cli', 1), "
        "('h2', 'viewer', 'cli', 2)");
  }
  EXPECT_EQ(store.revoke_named("cli"), RevokeOutcome::kAmbiguous);
  EXPECT_EQ(store.list_users().size(), 3u);
}

TEST_F(TokenStoreTest, ATokensLastUseIsRecorded) {
  TokenStore store((dir_ / "g.db").string());
  const std::string token = store.create(TokenRole::kViewer, "dashboard");
  EXPECT_EQ(store.list_users()[0].last_used_us, 0) << "never used";
  const int64_t used = store.verify(token)->last_used_us;
  EXPECT_GT(used, 0);
  EXPECT_EQ(store.list_users()[0].last_used_us, used);
  // Within the minute, a second use writes nothing.
  EXPECT_EQ(store.verify(token)->last_used_us, used);
}

// A database of a server from before named roles has no last_used_us column: opened, it gets
// one, and its tokens still verify.
TEST_F(TokenStoreTest, AnOlderTableGetsTheLastUseColumn) {
  {
    Database db = Database::open((dir_ / "g.db").string());
    db.exec(
        "CREATE TABLE api_tokens(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, role TEXT NOT "
        "NULL, name TEXT NOT NULL, created_us INTEGER NOT NULL)");
    db.prepare("INSERT INTO api_tokens(hash, role, name, created_us) VALUES (?, 'viewer', 'v', 1)")
        .bind_all(sha256_hex("gty_" + std::string(64, 'a')))
        .step();
  }
  TokenStore store((dir_ / "g.db").string());
  EXPECT_EQ(store.verify("gty_" + std::string(64, 'a'))->name, "v");
}

}  // namespace
}  // namespace gantry::web
