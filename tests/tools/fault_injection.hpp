#pragma once
// Fault injection for the crash and concurrency tests, kept out of the shipped program (issue
// 9): the only commit hooks that harm their own process (SqliteRunStore::set_commit_hook). The
// store tests install one directly; gantry-faulty (gantry_faulty_main.cpp) is the real CLI
// with one installed from its environment.

#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "workflow/store/sqlite_run_store.hpp"

namespace gantry::testing {

// Sends this process `signal` right after the store's commit number `n`: SIGKILL is a real
// kill -9 at a transaction boundary (or, with batching, inside the open batch); SIGSTOP
// freezes it while it holds the database, so that a test can start a second process against
// it without sleeping.
inline SqliteRunStore::CommitHook signal_self_after(uint64_t n, int signal) {
  return [n, signal](uint64_t commits) {
    if (commits == n) ::kill(::getpid(), signal);
  };
}

// Blocks the thread that made the store's commit number `n` for good, after writing
// "gantry-faulty: stalled after commit N" on standard output (the test reads it there): an
// event of the loop that never ends, for the tests of a stop that must not wait for it.
inline SqliteRunStore::CommitHook stall_after(uint64_t n) {
  return [n](uint64_t commits) {
    if (commits != n) return;
    std::printf("gantry-faulty: stalled after commit %llu\n", static_cast<unsigned long long>(n));
    std::fflush(stdout);
    while (true) ::pause();
  };
}

}  // namespace gantry::testing
