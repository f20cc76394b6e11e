// The store's guards against losing or corrupting files (issue 8): what Database::open()
// refuses, whose database a file is (database_kind.hpp), one writer per database
// (file_lock.hpp) and files that appear complete or not at all (replacement_file.hpp).

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "engine/store/file_lock.hpp"
#include "engine/store/replacement_file.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const DatabaseKind kKind{0x54455354u, "test database", {{"alpha", "beta"}}};  // "TEST"

class FileSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(GANTRY_BINARY_DIR) / "test-tmp" / "store-safety" / info->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path dir_;
};

// Opening a second connection must not drop the locks the first holds. POSIX advisory locks
// belong to the process and fall when it closes *any* descriptor of the file, so a check that
// opened and closed the file beside SQLite (it once read the header with an ifstream) let
// another process take the database while this one was reading — in WAL mode the last-closer
// check then removed the WAL under live readers (SQLITE_IOERR_SHORT_READ in the web e2e). Here:
// a read transaction holds SHARED; after another Database::open() of the same file, a child
// process must still be refused a write lock on SQLite's shared-lock bytes.
TEST_F(FileSafety, OpeningAnotherConnectionKeepsTheLocksOfTheFirst) {
  const std::string file = path("locks.db");
  {
    Database setup = Database::open(file, {.create = true});
    setup.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
  }
  Database reader = Database::open(file);
  reader.exec("BEGIN");
  Statement s = reader.prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(s.step());  // SHARED lock held until the transaction ends
  { Database other = Database::open(file); }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Asked of the kernel directly (SQLite's state is not to be used across fork()): a write
    // lock on SQLite's shared-lock range must be refused while the parent reads.
    const int fd = ::open(file.c_str(), O_RDWR);
    if (fd < 0) _exit(2);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 1073741826;  // SQLite's SHARED_FIRST (PENDING_BYTE + 2)
    lock.l_len = 510;           // SHARED_SIZE
    _exit(fcntl(fd, F_SETLK, &lock) == -1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child got the lock: our SHARED lock was lost";
  s = Statement();
  reader.exec("COMMIT");
}

// A pipeline YAML where a database was expected: refused with the path, and not changed by a
// single byte (SQLite would otherwise make an empty file a database, and fail later on this).
TEST_F(FileSafety, OpenRefusesAFileThatIsNotSqlite) {
  const std::string yaml = "apiVersion: gantry.dev/v1\nkind: Pipeline\n";
  const std::string file = write("pipeline.yaml", yaml);
  try {
    Database::open(file);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(file));
    EXPECT_THAT(e.what(), HasSubstr("not an SQLite database"));
  }
  EXPECT_EQ(read(file), yaml);
  EXPECT_FALSE(fs::exists(file + "-journal"));
}

// A FIFO and a folder are not database files; /dev/null (a device node) neither. SQLite would
// open the device node and write into it; check_database_file() looks first.
TEST_F(FileSafety, OpenRefusesWhatIsNotARegularFile) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(check_database_file(fifo), StoreError);
  EXPECT_THROW(Database::open(path("")), StoreError);  // the folder itself (trailing slash)
  try {
    Database::open("/dev/null");
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/dev/null: exists and is not a regular file"));
  }
  EXPECT_NO_THROW(check_database_file(path("missing.db")));
  EXPECT_NO_THROW(check_database_file(write("empty.db", "")));
}

// Every StoreError starts with the database's path, from open to a failing statement.
TEST_F(FileSafety, EveryStoreErrorNamesTheDatabase) {
  Database db = Database::open(path("named.db"));
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY)");
  try {
    db.exec("SELECT * FROM nowhere");
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path("named.db") + ": ", 0), 0u) << e.what();
    EXPECT_EQ(e.path(), path("named.db"));
  }
  Statement insert = db.prepare("INSERT INTO t VALUES (1)");
  insert.step();
  insert.reset();
  try {
    insert.step();  // a constraint failure, from a Statement
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path("named.db") + ": UNIQUE constraint failed"));
  }
}

// claim(): an empty database becomes ours; another program's is refused and left unchanged;
// one an older version wrote (the legacy tables, application_id 0) is adopted.
TEST_F(FileSafety, ClaimStampsEmptyAndLegacyAndRefusesForeign) {
  {
    Database fresh = Database::open(path("fresh.db"));
    claim(fresh, kKind);
    EXPECT_EQ(identify(fresh, kKind).ownership, Ownership::kOurs);
  }
  {
    Database foreign = Database::open(path("foreign.db"));
    foreign.exec("CREATE TABLE invoices(id); INSERT INTO invoices VALUES (7)");
    try {
      claim(foreign, kKind);
      FAIL() << "expected StoreError";
    } catch (const StoreError& e) {
      EXPECT_THAT(e.what(), HasSubstr("with tables invoices, not a test database"));
    }
    Statement id = foreign.prepare("PRAGMA application_id");
    ASSERT_TRUE(id.step());
    EXPECT_EQ(id.column_int64(0), 0) << "nothing written into a foreign file";
  }
  {
    Database legacy = Database::open(path("legacy.db"));
    legacy.exec("CREATE TABLE alpha(x); CREATE TABLE beta(y)");
    EXPECT_EQ(identify(legacy, kKind).ownership, Ownership::kLegacy);
    claim(legacy, kKind);
    EXPECT_EQ(identify(legacy, kKind).ownership, Ownership::kOurs);
  }
  {
    Database other = Database::open(path("other-kind.db"));
    other.exec("PRAGMA application_id = 1234");
    EXPECT_THROW(claim(other, kKind), StoreError);
  }
}

// remove_database() deletes our database and its sidecars, and refuses anything else.
TEST_F(FileSafety, RemoveDatabaseDeletesOnlyOurs) {
  {
    Database ours = Database::open(path("ours.db"));
    claim(ours, kKind);
  }
  write("ours.db-wal", "");
  remove_database(path("ours.db"), kKind);
  EXPECT_FALSE(fs::exists(path("ours.db")));
  EXPECT_FALSE(fs::exists(path("ours.db-wal")));

  const std::string text = write("notes.txt", "744 runs of history\n");
  EXPECT_THROW(remove_database(text, kKind), StoreError);
  EXPECT_EQ(read(text), "744 runs of history\n");
  {
    Database foreign = Database::open(path("foreign.db"));
    foreign.exec("CREATE TABLE t(x)");
  }
  EXPECT_THROW(remove_database(path("foreign.db"), kKind), StoreError);
  EXPECT_TRUE(fs::exists(path("foreign.db")));
  EXPECT_NO_THROW(remove_database(path("never-there.db"), kKind));
}

// One holder at a time. A child process takes the lock and stops itself (SIGSTOP: it holds
// the lock, frozen, for as long as the parent wants, no sleeping involved). The parent's
// acquire fails naming the child's pid. Then the child is killed with SIGKILL, never having
// released anything: the kernel drops its lock, and the parent's acquire succeeds.
TEST_F(FileSafety, LockIsExclusiveAndDiesWithItsHolder) {
  const std::string db = path("runs.db");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    FileLock held = FileLock::acquire(db);
    ::raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
  ASSERT_TRUE(WIFSTOPPED(status));
  try {
    FileLock::acquire(db);
    ADD_FAILURE() << "expected StoreError while the child holds the lock";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("database in use by pid " + std::to_string(child)));
    EXPECT_THAT(e.what(), HasSubstr(db));
  }
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  FileLock mine = FileLock::acquire(db);
  EXPECT_TRUE(mine.held());
  // Within one process too, a second holder is refused until the first lets go.
  EXPECT_THROW(FileLock::acquire(db), StoreError);
  mine.release();
  EXPECT_NO_THROW(FileLock::acquire(db));
}

TEST_F(FileSafety, LockInAFolderThatCannotExistNamesTheDatabase) {
  const std::string not_a_dir = write("plain-file", "x");
  try {
    FileLock::acquire(not_a_dir + "/runs.db");
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(not_a_dir + "/runs.db: cannot create the lock file"));
  }
}

// Until commit() the target keeps its old content; a ReplacementFile given up deletes its
// temporary; commit() swaps the new content in.
TEST_F(FileSafety, ReplacementIsAllOrNothing) {
  const std::string target = write("curves.csv", "old\n");
  {
    ReplacementFile r(target);
    std::ofstream(r.temp_path()) << "half of the new";
    EXPECT_EQ(read(target), "old\n");
  }  // abandoned
  EXPECT_EQ(read(target), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "no temporary left behind";
  write_file_atomically(target, "new\n");
  EXPECT_EQ(read(target), "new\n");
  EXPECT_TRUE(first_line_matches(target, "new\nother"));
  EXPECT_FALSE(first_line_matches(target, "policy,arrival_pct\n"));
  EXPECT_TRUE(first_line_matches(path("absent.csv"), "anything\n"));
}

}  // namespace
}  // namespace gantry
