#pragma once
// A folder of its own per test with a small base scenario whose figures can be worked out by
// hand, for the sweep tests.
//
// The base ("hand"): racks of 1-GPU nodes (one rack of 1 node), four 1-GPU jobs submitted at
// 0s, each 3,600 steps of 1 s with nothing to synchronise or read, no pod start-up time: each
// job runs exactly 1 h once placed, one per GPU, in submission order. On n GPUs the waits are
// 0 h for the first n jobs, 1 h for the next n, and so on.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gantry::testing {

inline const char* kHandBase = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: hand}
spec:
  seed: 7
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: box, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    racks:
    - {name: r1, class: box, nodes: 1}
  workload:
    jobs:
    - {name: a, submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: {cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, gradientSize: 0}}
    - {name: b, submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: {cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, gradientSize: 0}}
    - {name: c, submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: {cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, gradientSize: 0}}
    - {name: d, submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: {cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, gradientSize: 0}}
  sim: {podStartup: 0s}
)";

class SweepFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gantry-sweep-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    write("base.yaml", kHandBase);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` to `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // A sweep of the base with `spec` (indented by two spaces) after `base: base.yaml`.
  std::string sweep(const std::string& spec, const std::string& name = "sweep.yaml") {
    return write(name,
                 "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: s}\nspec:\n  base: "
                 "base.yaml\n" +
                     spec);
  }

  std::filesystem::path dir_;
};

}  // namespace gantry::testing
