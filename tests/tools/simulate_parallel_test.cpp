// `gantry simulate --parallel N` on an Experiment, run as the real program: what it writes does
// not depend on N (text and JSON reports, results database, curves, plot), a pod list found bad
// late is reported as with one thread, and N out of range is bad input said before anything
// runs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/tools/cli_harness.hpp"

namespace simulate_parallel_test {

namespace fs = std::filesystem;
using gantry::testing::CliTest;
using gantry::testing::Outcome;
using gantry::testing::slurp;

class SimulateParallel : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  // A small experiment: 4 nodes of 2 P100s, a pod list of 8 pods and a variant of 6, 2 policies
  // × 3 seeds each: 12 runs. `shares` is the variant's CSV.
  std::string experiment(const std::string& shares) {
    write("nodes.csv",
          "sn,cpu_milli,memory_mib,gpu,model\n"
          "n0,32000,131072,2,P100\nn1,32000,131072,2,P100\n"
          "n2,32000,131072,2,P100\nn3,32000,131072,2,P100\n");
    write("pods.csv",
          "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
          "p0,4000,8192,1,1000\np1,2000,4096,1,500\np2,2000,4096,1,250\n"
          "p3,8000,16384,2,1000\np4,1000,2048,0,0\np5,2000,4096,1,700\n"
          "p6,2000,4096,1,300\np7,4000,8192,1,1000\n");
    write("shares.csv", shares);
    write("tiny.yaml",
          "apiVersion: gantry.dev/v1\n"
          "kind: Experiment\n"
          "metadata: {name: tiny}\n"
          "spec:\n"
          "  type: Fragmentation\n"
          "  seed: 1\n"
          "  nodes: {format: openb-nodes, file: nodes.csv}\n"
          "  pods: {format: openb-pods, file: pods.csv}\n"
          "  seeds: 3\n"
          "  policies: [BestFit, FGD]\n"
          "  variants:\n"
          "  - {name: shares, pods: {format: openb-pods, file: shares.csv}}\n");
    return (dir_ / "tiny.yaml").string();
  }
  static std::string good_shares() {
    return "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
           "s0,1000,2048,1,500\ns1,1000,2048,1,500\ns2,1000,2048,1,250\n"
           "s3,1000,2048,1,750\ns4,2000,4096,1,1000\ns5,1000,2048,1,400\n";
  }

  // Everything a run wrote: its standard output and its files, for comparison.
  struct Written {
    std::string out, db, csv, svg;
  };
  Written simulate(const std::string& file, const std::string& flags) {
    const Outcome o =
        run("simulate " + file + " --no-progress --out " + (dir_ / "r").string() + " " + flags);
    EXPECT_EQ(o.exit_code(), 0) << flags << "\n" << o.err;
    return {o.out, slurp(dir_ / "r" / "results.db"), slurp(dir_ / "r" / "curves.csv"),
            slurp(dir_ / "r" / "unallocated.svg")};
  }
};

// The same output folder each time (the reports name it), each run replacing the last's files.
TEST_F(SimulateParallel, TwoThreadsWriteByteForByteWhatOneWrites) {
  const std::string file = experiment(good_shares());
  for (const std::string format : {"text", "json"}) {
    const Written one = simulate(file, "--format " + format + " --parallel 1");
    const Written two = simulate(file, "--format " + format + " --parallel 2");
    const Written many = simulate(file, "--format " + format + " --parallel 5");
    EXPECT_NE(one.out.find("shares"), std::string::npos) << "the variant is reported\n" << one.out;
    EXPECT_FALSE(one.db.empty());
    EXPECT_EQ(one.out, two.out) << format;
    EXPECT_EQ(one.db, two.db) << format;
    EXPECT_EQ(one.csv, two.csv) << format;
    EXPECT_EQ(one.svg, two.svg) << format;
    EXPECT_EQ(one.out, many.out) << format;
    EXPECT_EQ(one.db, many.db) << format;
  }
}

// The variant's pod list has a bad row (line 3, num_gpu): found when its turn comes, after the
// first list's runs started; exit 2 and the loader's message, the same with 1 and 2 threads;
// no results written.
TEST_F(SimulateParallel, ABadPodListFoundLateIsReportedAsWithOneThread) {
  const std::string file = experiment(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
      "s0,1000,2048,1,500\ns1,1000,2048,two,500\n");
  const Outcome one = run("simulate " + file + " --parallel 1 --out " + (dir_ / "r1").string());
  const Outcome two = run("simulate " + file + " --parallel 2 --out " + (dir_ / "r2").string());
  EXPECT_EQ(one.exit_code(), 2);
  EXPECT_EQ(two.exit_code(), 2);
  EXPECT_NE(one.err.find("shares.csv:3"), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("num_gpu"), std::string::npos) << one.err;
  EXPECT_EQ(one.err, two.err);
  EXPECT_EQ(one.out, "");
  EXPECT_EQ(two.out, "");
  EXPECT_FALSE(fs::exists(dir_ / "r1" / "results.db"));
  EXPECT_FALSE(fs::exists(dir_ / "r2" / "results.db"));
}

// --parallel takes 1 to 256: anything else is bad input (exit 2) naming the flag and the range,
// before any output folder is made.
TEST_F(SimulateParallel, OutOfRangeIsBadInput) {
  const std::string file = experiment(good_shares());
  for (const std::string value : {"0", "-1", "257", "100000000000", "two", "2x", ""}) {
    const Outcome o =
        run("simulate " + file + " --parallel '" + value + "' --out " + (dir_ / "r").string());
    EXPECT_EQ(o.exit_code(), 2) << "'" << value << "'\n" << o.err;
    EXPECT_NE(o.err.find("--parallel: expected a number of runs at once from 1 to 256, got '" +
                         value + "'"),
              std::string::npos)
        << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "r")) << value;
  }
}

}  // namespace simulate_parallel_test
