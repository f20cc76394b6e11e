#pragma once
// Running the real `gantry` program from a test: each test gets a fresh temporary folder, runs
// the binary as a child process with standard output and error captured to files, and reads
// back its exit status. Shared by the end-to-end suites in tests/tools/.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gantry::testing {

// The programs under test: the shipped one, and the same CLI with a fault-injecting commit hook
// (tests/tools/gantry_faulty_main.cpp) for the crash and concurrency tests.
inline const std::string kGantry = std::string(GANTRY_BINARY_DIR) + "/gantry";
#ifdef GANTRY_FAULTY_PROGRAM
inline const std::string kGantryFaulty = GANTRY_FAULTY_PROGRAM;
#endif

struct Outcome {
  int status = -1;  // raw wait status
  std::string out, err;
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  // A folder of our own, made by mkdtemp(3): a fixed name per test would be shared with the
  // same test of another checkout running at the same time, and each would delete the
  // other's files (the mistake issue 8 is about).
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() /
         ("gantry-cli-" +
          std::string(::testing::UnitTest::GetInstance()->current_test_suite()->name()) + "-" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-XXXXXX"))
            .string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Runs `program` (build/gantry by default) with `args` (already shell-quoted), `env`
  // (VAR=value ...) set for it, no standard input. `exec` makes the shell replace itself, so a
  // signal that kills the program shows in the wait status.
  Outcome run(const std::string& args, const std::string& env = "",
              const std::string& program = kGantry) {
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd = "exec env " + env + " " + program + " " + args + " >" + out.string() +
                            " 2>" + err.string() + " </dev/null";
    Outcome o;
    o.status = std::system(cmd.c_str());
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }

  // Starts `program` like run() but without waiting, its output going to `tag`.stdout and
  // `tag`.stderr in the test's folder; returns its pid (the shell execs env, which execs the
  // program, so the pid is the program's). Wait for it with waitpid(); WUNTRACED sees a
  // SIGSTOP.
  pid_t start(const std::string& args, const std::string& env, const std::string& tag,
              const std::string& program = kGantry) {
    const std::string cmd = "exec env " + env + " " + program + " " + args + " >" +
                            (dir_ / (tag + ".stdout")).string() + " 2>" +
                            (dir_ / (tag + ".stderr")).string() + " </dev/null";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return pid;
  }
  // The outcome of a process started with start(), once it has ended (`status` from waitpid).
  Outcome outcome_of(int status, const std::string& tag) {
    Outcome o;
    o.status = status;
    o.out = slurp(dir_ / (tag + ".stdout"));
    o.err = slurp(dir_ / (tag + ".stderr"));
    return o;
  }

  // The file at `source` with the first occurrence of each `from` replaced by its `to` (a test
  // failure when absent), written to `name` in the test's folder; returns its path.
  std::string edited_copy(const std::string& source, const std::string& name,
                          const std::vector<std::pair<std::string, std::string>>& edits) {
    std::string text = slurp(source);
    for (const auto& [from, to] : edits) {
      const size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  std::filesystem::path dir_;
};

}  // namespace gantry::testing
