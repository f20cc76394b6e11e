#pragma once
// The plan tests' bases and folder: an M/M/c queue whose answers Erlang C gives (mmc_base.hpp),
// and a batch of eight jobs on two priced pools worked out by hand.

#include <gtest/gtest.h>

#include <string>

#include "engine/config/config_errors.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "tests/sim/plan/mmc_base.hpp"
#include "tests/sim/sweep/sweep_fixture.hpp"

namespace gantry::testing {

// Eight 1-hour 1-GPU jobs at 0 s on 1-GPU nodes of two classes, the same GPU: n nodes in all
// give waits of 0, 1, 2, ... h in groups of n, so wait.max <= 1 h needs n >= 4.
inline std::string eight_jobs_base() {
  std::string jobs;
  for (int i = 0; i < 8; ++i)
    jobs += "    - {name: j" + std::to_string(i) +
            ", submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: "
            "{cpu: 1, memory: 1Gi, gpu: 1}}], work: {steps: 3600, stepCompute: 1s, "
            "gradientSize: 0}}\n";
  return R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: eight}
spec:
  seed: 7
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: cheap, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    - {name: pricey, cpu: "64", memory: 512Gi, gpu: {type: A100-80G, count: 1}, nic: 200Gbps}
    racks:
    - {name: r1, class: cheap, nodes: 1}
    - {name: r2, class: pricey, nodes: 1}
  workload:
    jobs:
)" + jobs +
         "  sim: {podStartup: 0s}\n";
}

class PlanFolder : public SweepFolder {
 protected:
  std::string plan_file(const std::string& base, const std::string& spec) {
    write("plan-base.yaml", base);
    return write("plan.yaml",
                 "apiVersion: gantry.dev/v1\nkind: Plan\nmetadata: {name: p}\nspec:\n  base: "
                 "plan-base.yaml\n" +
                     spec);
  }
  std::string error(const std::string& base, const std::string& spec) {
    try {
      const PlanSpec plan = load_plan_file(plan_file(base, spec));
      PlanVariants variants(plan);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected an error for\n" << spec;
    return "";
  }
  const PlanEvaluation& neighbour(const PlanStepResult& step, size_t pool) {
    for (const PlanNeighbour& n : step.neighbours)
      if (n.pool == pool) return *n.evaluation;
    ADD_FAILURE() << "no neighbour for pool " << pool;
    return *step.largest;
  }
};

}  // namespace gantry::testing
