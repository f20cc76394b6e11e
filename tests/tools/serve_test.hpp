#pragma once
// The fixture of the end-to-end tests of `gantry serve`: a fresh database in the test's folder,
// the quickstart cluster, and helpers to start the real program (serve_process.hpp), read its
// admin token and follow its event stream (event_stream.hpp).

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/tools/cli_harness.hpp"
#include "tests/tools/event_stream.hpp"
#include "tests/tools/serve_process.hpp"

namespace gantry::testing {

class ServeTest : public CliTest {
 protected:
  // Starts `gantry serve` on a free loopback port with `extra` flags after the defaults; its
  // stderr goes to `<tag>.stderr` in the test's folder (shown when it did not start).
  std::unique_ptr<ServeProcess> serve(const std::vector<std::string>& extra = {},
                                      const std::string& tag = "serve") {
    const std::string source = GANTRY_SOURCE_DIR;
    std::vector<std::string> args = {"--db",        db(),
                                     "--listen",    "127.0.0.1:0",
                                     "--cluster",   source + "/scenarios/quickstart.yaml",
                                     "--scenarios", scenarios_,
                                     "--ui",        (dir_ / "no-ui").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto p = std::make_unique<ServeProcess>(kGantry, args, (dir_ / (tag + ".stderr")).string());
    EXPECT_FALSE(p->url().empty()) << slurp(dir_ / (tag + ".stderr"));
    return p;
  }
  std::string db() const { return (dir_ / "g.db").string(); }
  std::string token() const { return read_token(db() + ".token"); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  // Reads the event stream from the start (the bus keeps its history) until `done` says so.
  void watch(const std::string& url, const EventPredicate& done) {
    watch_events(url, token(), std::chrono::minutes(5), done);
  }

  std::string scenarios_ = std::string(GANTRY_SOURCE_DIR) + "/scenarios";  // --scenarios
};

}  // namespace gantry::testing
