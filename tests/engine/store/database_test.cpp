#include "engine/store/database.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/store/transaction.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

// A fresh file path per test under the build tree, removed before and after.
class StoreFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(GANTRY_BINARY_DIR) / "test-tmp" / "store" /
           (std::string(info->test_suite_name()) + "." + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name = "test.db") const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

int64_t count_rows(Database& db, const std::string& table) {
  Statement q = db.prepare("SELECT count(*) FROM " + table);
  EXPECT_TRUE(q.step());
  return q.column_int64(0);
}

TEST(Statement, BindStepAndColumnTypes) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(i INTEGER, d REAL, s TEXT, n TEXT)");
  Statement insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
  insert.bind_int64(1, int64_t{1} << 40).bind_double(2, 0.25).bind_text(3, "héllo").bind_null(4);
  EXPECT_FALSE(insert.step());
  EXPECT_EQ(db.changes(), 1);
  EXPECT_EQ(db.last_insert_rowid(), 1);

  Statement q = db.prepare("SELECT i, d, s, n FROM t");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_count(), 4);
  EXPECT_EQ(q.column_int64(0), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(q.column_double(1), 0.25);
  EXPECT_EQ(q.column_text(2), "héllo");
  EXPECT_FALSE(q.column_is_null(2));
  EXPECT_TRUE(q.column_is_null(3));
  EXPECT_EQ(q.column_text(3), "");
  EXPECT_FALSE(q.step());
}

TEST(Statement, BindAllPicksTypes) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(a, b, c, d, e, f, g)");
  Statement insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)");
  const std::string owned = "text";
  insert
      .bind_all(7, 1.5, owned, std::optional<int>{}, Time::from_micros(42), true,
                BorrowedText{owned})
      .step();

  Statement q =
      db.prepare("SELECT typeof(a), typeof(b), typeof(c), typeof(d), e, f, typeof(g), g FROM t");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "integer");
  EXPECT_EQ(q.column_text(1), "real");
  EXPECT_EQ(q.column_text(2), "text");
  EXPECT_EQ(q.column_text(3), "null");
  EXPECT_EQ(q.column_int64(4), 42);
  EXPECT_EQ(q.column_int64(5), 1);
  EXPECT_EQ(q.column_text(6), "text");
  EXPECT_EQ(q.column_text(7), "text");
}

TEST(Statement, ResetKeepsBindingsAndClearBindingsNullsThem) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(a, b)");
  Statement insert = db.prepare("INSERT INTO t VALUES (?, ?)");
  insert.bind_all(1, "x").step();
  insert.reset().bind(1, 2).step();                   // b keeps "x"
  insert.reset().clear_bindings().bind(1, 3).step();  // b is NULL now

  Statement q = db.prepare("SELECT a, b FROM t ORDER BY rowid");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(1), "x");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_int64(0), 2);
  EXPECT_EQ(q.column_text(1), "x");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_int64(0), 3);
  EXPECT_TRUE(q.column_is_null(1));
  EXPECT_FALSE(q.step());
}

TEST(Statement, NaNIsStoredAsNull) {
  Database db = Database::open(":memory:");
  Statement q = db.prepare("SELECT ?");
  q.bind_double(1, std::numeric_limits<double>::quiet_NaN());
  ASSERT_TRUE(q.step());
  EXPECT_TRUE(q.column_is_null(0));
}

TEST(Statement, ReusedAfterResetForManyRows) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(x INTEGER)");
  Statement insert = db.prepare("INSERT INTO t(x) VALUES (?)");
  for (int i = 0; i < 100; ++i) {
    insert.bind_all(i).step();
    insert.reset();
  }
  Statement sum = db.prepare("SELECT sum(x) FROM t");
  ASSERT_TRUE(sum.step());
  EXPECT_EQ(sum.column_int64(0), 4950);
}

TEST(Statement, MovedFromIsEmptyAndThrows) {
  Database db = Database::open(":memory:");
  Statement a = db.prepare("SELECT 1");
  Statement b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_THROW(a.step(), StoreError);
  ASSERT_TRUE(b.step());
  EXPECT_EQ(b.column_int64(0), 1);
}

TEST(StoreErrors, PrepareErrorNamesTheSql) {
  Database db = Database::open(":memory:");
  try {
    db.prepare("SELECT nonsense FROM no_such_table");
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no such table: no_such_table"));
    EXPECT_THAT(e.what(), HasSubstr("in: SELECT nonsense FROM no_such_table"));
    EXPECT_EQ(e.code(), SQLITE_ERROR);
    EXPECT_EQ(e.sql(), "SELECT nonsense FROM no_such_table");
  }
}

TEST(StoreErrors, StepErrorNamesTheSqlAndCode) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY)");
  db.exec("INSERT INTO t VALUES (1)");
  Statement insert = db.prepare("INSERT INTO t VALUES (?)");
  insert.bind_all(1);
  try {
    insert.step();
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("UNIQUE constraint failed: t.id"));
    EXPECT_THAT(e.what(), HasSubstr("INSERT INTO t VALUES (?)"));
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT_PRIMARYKEY);
  }
  // The statement was reset and stays usable.
  insert.bind_all(2);
  EXPECT_FALSE(insert.step());
  EXPECT_EQ(count_rows(db, "t"), 2);
}

TEST(StoreErrors, ExecErrorAndLongSqlIsTruncated) {
  Database db = Database::open(":memory:");
  const std::string sql = "SELECT * FROM missing WHERE x = '" + std::string(500, 'y') + "'";
  try {
    db.exec(sql);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("no such table: missing"));
    EXPECT_THAT(what, HasSubstr("in: SELECT * FROM missing"));
    EXPECT_LT(what.size(), 200 + StoreError::kMaxSqlInMessage);
    EXPECT_EQ(e.sql(), sql);  // kept whole for whoever logs it
  }
}

TEST(StoreErrors, IsAGantryError) {
  Database db = Database::open(":memory:");
  EXPECT_THROW(db.exec("NOT SQL"), GantryError);
}

TEST(StoreErrors, BindOutOfRange) {
  Database db = Database::open(":memory:");
  Statement q = db.prepare("SELECT ?");
  try {
    q.bind_int64(2, 0);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code(), SQLITE_RANGE);
    EXPECT_THAT(e.what(), HasSubstr("parameter 2"));
  }
}

TEST(StoreErrors, PrepareRefusesTwoStatements) {
  Database db = Database::open(":memory:");
  EXPECT_NO_THROW(db.prepare("SELECT 1;  \n"));
  EXPECT_THROW(db.prepare("SELECT 1; SELECT 2"), StoreError);
  EXPECT_THROW(db.prepare("   "), StoreError);
}

TEST_F(StoreFile, OpenFailureNamesThePath) {
  const std::string missing = path("no/such/dir/x.db");
  try {
    Database::open(missing);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing));
    EXPECT_EQ(e.code() & 0xff, SQLITE_CANTOPEN);
  }
  OpenOptions no_create;
  no_create.create = false;
  EXPECT_THROW(Database::open(path("absent.db"), no_create), StoreError);
  EXPECT_FALSE(std::filesystem::exists(path("absent.db")));
}

TEST_F(StoreFile, WalAndFastModes) {
  OpenOptions wal;
  wal.wal = true;
  Database a = Database::open(path("wal.db"), wal);
  Statement mode = a.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");

  OpenOptions fast;
  fast.fast = true;
  Database b = Database::open(path("fast.db"), fast);
  Statement fast_mode = b.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(fast_mode.step());
  EXPECT_EQ(fast_mode.column_text(0), "memory");
  Statement sync = b.prepare("PRAGMA synchronous");
  ASSERT_TRUE(sync.step());
  EXPECT_EQ(sync.column_int64(0), 0);  // OFF

  OpenOptions both;
  both.wal = both.fast = true;
  EXPECT_THROW(Database::open(path("both.db"), both), StoreError);
}

TEST(Transaction, CommitKeepsTheRows) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(x)");
  {
    Transaction tx(db);
    EXPECT_FALSE(db.autocommit());
    db.exec("INSERT INTO t VALUES (1)");
    tx.commit();
    EXPECT_TRUE(tx.committed());
  }
  EXPECT_TRUE(db.autocommit());
  EXPECT_EQ(count_rows(db, "t"), 1);
}

TEST(Transaction, RollsBackOnException) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(x)");
  try {
    Transaction tx(db);
    db.exec("INSERT INTO t VALUES (1)");
    db.exec("INSERT INTO t VALUES (2)");
    throw std::runtime_error("simulated failure before commit");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(db.autocommit());
  EXPECT_EQ(count_rows(db, "t"), 0);
}

TEST(Transaction, RollsBackWhenAStatementFails) {
  Database db = Database::open(":memory:");
  db.exec("CREATE TABLE t(x UNIQUE)");
  EXPECT_THROW(
      {
        Transaction tx(db);
        db.exec("INSERT INTO t VALUES (1)");
        db.exec("INSERT INTO t VALUES (1)");  // throws: the first insert must go too
        tx.commit();
      },
      StoreError);
  EXPECT_EQ(count_rows(db, "t"), 0);
}

TEST_F(StoreFile, MigrationsAreAppliedOnceAcrossReopens) {
  const std::vector<std::string> v1 = {
      "CREATE TABLE runs(id INTEGER PRIMARY KEY, state TEXT)",
      "INSERT INTO runs(state) VALUES ('seeded')",
  };
  {
    Database db = Database::open(path());
    EXPECT_EQ(db.user_version(), 0);
    EXPECT_EQ(db.migrate(v1), 2);
    EXPECT_EQ(db.user_version(), 2);
  }
  {
    // Reopen: nothing to apply; re-running the INSERT would have added a second row and
    // re-running the CREATE would have thrown.
    Database db = Database::open(path());
    EXPECT_EQ(db.migrate(v1), 0);
    EXPECT_EQ(count_rows(db, "runs"), 1);
  }
  {
    // A later release appends a step: only that one runs.
    std::vector<std::string> v2 = v1;
    v2.push_back("ALTER TABLE runs ADD COLUMN note TEXT; UPDATE runs SET note = 'v2'");
    Database db = Database::open(path());
    EXPECT_EQ(db.migrate(v2), 1);
    EXPECT_EQ(db.user_version(), 3);
    EXPECT_EQ(count_rows(db, "runs"), 1);
    Statement q = db.prepare("SELECT note FROM runs");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.column_text(0), "v2");
  }
  {
    // An older program must not touch a newer database.
    Database db = Database::open(path());
    EXPECT_THROW(db.migrate(v1), StoreError);
  }
}

TEST(Migrations, AFailedStepLeavesThePreviousVersion) {
  Database db = Database::open(":memory:");
  const std::vector<std::string> steps = {
      "CREATE TABLE a(x)",
      "CREATE TABLE b(x); INSERT INTO b VALUES (1); CREATE TABLE a(y)",  // fails at the end
  };
  EXPECT_THROW(db.migrate(steps), StoreError);
  EXPECT_EQ(db.user_version(), 1);
  EXPECT_TRUE(db.autocommit());
  // Table b from the failed step was rolled back with it.
  EXPECT_THROW(db.prepare("SELECT * FROM b"), StoreError);
}

// A damaged file can hold a negative schema version (a signed header field): refused as
// corrupt, no step run (the fuzz target found it reading steps[-2]).
TEST(Migrations, ANegativeVersionIsRefused) {
  Database db = Database::open(":memory:");
  db.exec("PRAGMA user_version = -2");
  try {
    db.migrate({"CREATE TABLE a(x)"});
    ADD_FAILURE() << "accepted";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code(), SQLITE_CORRUPT);
    EXPECT_NE(std::string(e.what()).find("schema version -2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(db.prepare("SELECT * FROM a"), StoreError) << "no step ran";
}

TEST_F(StoreFile, CloseRefusesWhileStatementsLive) {
  Database db = Database::open(path());
  {
    Statement q = db.prepare("SELECT 1");
    EXPECT_THROW(db.close(), StoreError);
    EXPECT_TRUE(db.is_open());
  }
  db.close();
  EXPECT_FALSE(db.is_open());
  EXPECT_THROW(db.exec("SELECT 1"), StoreError);
  db.close();  // closing twice is harmless
}

}  // namespace
}  // namespace gantry
