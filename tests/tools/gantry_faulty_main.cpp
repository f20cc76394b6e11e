// gantry-faulty: the real `gantry` command line (tools/gantry/cli.hpp) with a fault-injecting
// commit hook on the runs database, for the crash and concurrency tests of tests/tools. A test
// program only: the shipped `gantry` has no such hook and reads no such variable.
//   GANTRY_CRASH_AFTER_COMMITS=N  kill -9 itself right after the N-th commit
//   GANTRY_STOP_AFTER_COMMITS=N   stop itself (SIGSTOP) there, holding the database
//   GANTRY_STALL_AFTER_COMMITS=N  block the committing thread there for good (serve: the
//                                 event loop), saying so on standard output
//   GANTRY_CRASH_AFTER_POSTS=N    sweep-worker: kill -9 itself right after the server
//                                 acknowledged its N-th run (a pod dying half-way)
//   GANTRY_STOP_AFTER_POSTS=N     sweep-worker: stop itself (SIGSTOP) there
//   GANTRY_FULL_DISK_FLAG=PATH    the disk is full while PATH exists: every SQLite write of
//                                 the process fails with SQLITE_FULL (full_disk.hpp)

#include <csignal>
#include <cstdlib>

#include "tests/tools/fault_injection.hpp"
#include "tests/tools/full_disk.hpp"
#include "tools/gantry/cli.hpp"

int main(int argc, char** argv) {
  gantry::cli::CliHooks hooks;
  if (const char* n = std::getenv("GANTRY_CRASH_AFTER_COMMITS"))
    hooks.runs_commit = gantry::testing::signal_self_after(std::strtoull(n, nullptr, 10), SIGKILL);
  if (const char* n = std::getenv("GANTRY_STOP_AFTER_COMMITS"))
    hooks.runs_commit = gantry::testing::signal_self_after(std::strtoull(n, nullptr, 10), SIGSTOP);
  if (const char* n = std::getenv("GANTRY_STALL_AFTER_COMMITS"))
    hooks.runs_commit = gantry::testing::stall_after(std::strtoull(n, nullptr, 10));
  if (const char* n = std::getenv("GANTRY_CRASH_AFTER_POSTS"))
    hooks.sweep_run_posted = [n = std::strtoull(n, nullptr, 10)](size_t posted) {
      if (posted == n) ::kill(::getpid(), SIGKILL);
    };
  if (const char* n = std::getenv("GANTRY_STOP_AFTER_POSTS"))
    hooks.sweep_run_posted = [n = std::strtoull(n, nullptr, 10)](size_t posted) {
      if (posted == n) ::kill(::getpid(), SIGSTOP);
    };
  if (const char* flag = std::getenv("GANTRY_FULL_DISK_FLAG"))
    gantry::testing::FullDisk::install(flag);
  return gantry::cli::run_cli(argc, argv, hooks);
}
