// libFuzzer target for opening a runs database that someone else wrote, or that was damaged
// (workflow/store/sqlite_run_store.hpp): the fuzz input is written to a file, which the store
// opens (lock, identity check, migrations) and loads. The only acceptable failure is a
// StoreError naming the file: a foreign or corrupt file, a schema from the future, tables
// that do not fit together. Anything else (map::at, a crash in SQLite's hands, UB) escapes or
// is caught by the sanitizers, and libFuzzer reports it. A load that succeeds must give the
// same runs when repeated (the read is one consistent transaction).
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   cmake --build build-fuzz --target run_store_fuzz
//   build-fuzz/tests/fuzz/run_store_fuzz -max_total_time=60 tests/fuzz/corpus/run_store
// The seeds are runs databases written by `gantry pipeline run` and `backfill`.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "engine/store/store_error.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace {

namespace fs = std::filesystem;

// A folder per fuzzing process, made for each input and removed after it, so that nothing is
// left behind however libFuzzer ends the process.
fs::path work_dir() {
  return fs::temp_directory_path() / ("gantry-run-store-fuzz-" + std::to_string(::getpid()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path dir = work_dir();
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const fs::path db = dir / "runs.db";
  {
    std::ofstream out(db, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    gantry::SqliteRunStore store(db.string());
    const std::vector<gantry::Run> first = store.load_runs(gantry::RunSelection::kAll);
    const std::vector<gantry::Run> again = store.load_runs(gantry::RunSelection::kAll);
    if (first.size() != again.size()) __builtin_trap();
    for (size_t i = 0; i < first.size(); ++i) {
      if (first[i].pipeline != again[i].pipeline || first[i].tasks.size() != again[i].tasks.size())
        __builtin_trap();
    }
  } catch (const gantry::StoreError& e) {
    if (std::string(e.what()).rfind(db.string(), 0) != 0) __builtin_trap();
  }
  fs::remove_all(dir, ec);
  return 0;
}
