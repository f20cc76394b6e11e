#pragma once
// A Pipeline as written by its user (kind: Pipeline, issue #4): plain data, filled by the
// pipeline loader and read by the run scheduler. Field names follow the YAML (README,
// "Pipeline files"); every default is stated here.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/resources.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// When a scheduled run is due.
enum class ScheduleSemantics {
  kTrigger,   // at the tick itself (cube-studio, Argo CronWorkflow)
  kInterval,  // when the interval [tick, next tick) has ended (Airflow's data interval)
};

struct ScheduleSpec {
  std::string cron;              // Vixie syntax or @hourly/@daily/...
  std::string timezone = "UTC";  // IANA name
  SourceLocation cron_where;     // for error messages about the expression
  Time start;                    // inclusive
  SourceLocation start_where;    // for error messages about the start (too many ticks)
  std::optional<Time> end;       // inclusive
  ScheduleSemantics semantics = ScheduleSemantics::kTrigger;
  bool catchup = true;                        // every missed tick gets a run (backfill)
  std::optional<Duration> starting_deadline;  // catchup false: most recent missed tick only if
                                              // no older than this
  int64_t max_missed_runs = 100;  // catchup false: more missed ticks than this: none starts
};

enum class ConcurrencyPolicy {
  kAllow,    // runs may overlap up to maxActiveRuns
  kForbid,   // a tick that finds a run in flight is skipped
  kReplace,  // a tick that finds a run in flight kills it and starts
};

struct ConcurrencySpec {
  int max_active_runs = 1;  // runs in flight, manual ones included
  ConcurrencyPolicy policy = ConcurrencyPolicy::kAllow;
  int keep_latest = 0;  // >0: only the newest N runs live; older ones expire
};

enum class TaskTemplate {
  kContainer,
  kTFJob,
  kPyTorchJob,
  kMPIJob,
  kXGBoostJob,
  kRayJob,
  kSparkJob
};

enum class TriggerRule {
  kAllSuccess,  // every upstream succeeded (or was skipped)
  kAllFailed,   // every upstream failed or upstream_failed
  kAllDone,     // every upstream finished, whatever the outcome
  kOneSuccess,  // at least one upstream succeeded: may start before the others finish
  kOneFailed,   // at least one upstream failed: may start before the others finish
  kNoneFailed,  // no upstream failed or upstream_failed (skipped is fine)
  kAlways,      // no dependency at all: starts at once, whatever upstream does (Airflow)
};

enum class RetryPolicy {
  kOnFailure,  // the attempt failed or timed out
  kOnError,    // infrastructure: node lost, evicted
  kAlways,     // any unsuccessful attempt
};

struct RetrySpec {
  int limit = 0;  // retries after the first attempt; no retry unless asked
  RetryPolicy policy = RetryPolicy::kOnFailure;
  Duration delay = Duration(10'000'000);  // wait before retry 1
  double factor = 2;                      // wait before retry k: delay · factor^(k−1)
  Duration cap = Duration(300'000'000);   // ... capped at this
  std::optional<Duration> max_duration;   // give up if the next attempt would start after
                                          // first start + this
};

// How long an attempt takes in virtual time, and how it ends.
struct SimulateSpec {
  Duration duration = Duration(60'000'000);  // fixed, or the median of a log-normal
  std::optional<Duration> p90;               // set: log-normal with this 90th percentile
  std::vector<std::string> outcomes;         // per attempt, the last repeats: succeeded |
                                             // failed | error
  double failure_probability = 0;            // used when outcomes is empty
  // Resources actually used (for autosize); default: the requests.
  std::optional<int64_t> used_cpu_milli;
  std::optional<int64_t> used_memory_bytes;
};

struct TaskSpec {
  std::string name;
  SourceLocation where;
  TaskTemplate template_kind = TaskTemplate::kContainer;
  std::string image;
  std::vector<std::string> command;
  Resources resources;
  std::string gpu_type;
  std::map<std::string, int> replicas;  // distributed templates: {master: 1, worker: 4}
  std::vector<std::string> depends_on;
  std::vector<SourceLocation> depends_on_where;
  TriggerRule trigger_rule = TriggerRule::kAllSuccess;
  bool depends_on_past = false;
  std::string pool;  // empty: no pool
  int pool_slots = 1;
  int priority = 0;
  std::optional<Duration> timeout;  // per attempt
  RetrySpec retry;
  bool skip = false;
  bool autosize = false;
  SimulateSpec simulate;
};

// A parameter of a manual run (spec.params): given at trigger, or its default.
enum class ParamType { kString, kInt, kFloat, kBool };
inline std::string_view to_string(ParamType t) {
  switch (t) {
    case ParamType::kString:
      return "string";
    case ParamType::kInt:
      return "int";
    case ParamType::kFloat:
      return "float";
    case ParamType::kBool:
      return "bool";
  }
  return "?";
}

struct ParamSpec {
  std::string name;  // letters, digits and '_': tasks see it as env GANTRY_PARAM_<NAME>
  ParamType type = ParamType::kString;
  // The default as a JSON literal of its type ("\"abc\"", "3", "2.5", "true"); none: a
  // manual trigger must give it (a scheduled pipeline needs a default for every param).
  std::optional<std::string> default_value;
  std::string description;
  SourceLocation where;
};

struct PipelineSpec {
  std::string name;
  std::string description;        // metadata.description
  std::string owner;              // metadata.owner; "" when not given
  std::vector<std::string> tags;  // metadata.tags, as written
  std::vector<ParamSpec> params;  // spec.params, in document order
  std::string namespace_name = "default";
  std::string file;
  SourceLocation where;
  std::optional<ScheduleSpec> schedule;  // absent: manual runs only
  ConcurrencySpec concurrency;
  bool depends_on_past = false;     // run level
  int parallelism = 0;              // tasks at once inside a run; 0 = unlimited
  std::optional<Duration> timeout;  // run level
  std::map<std::string, std::string> env;
  std::vector<TaskSpec> tasks;
};

struct PoolSpec {
  std::string name;
  int slots = 1;
  std::optional<Duration> max_wait;  // waited longer: no longer overtaken
  SourceLocation where;
};

// Everything a set of files declares.
struct PipelineDocuments {
  std::vector<PipelineSpec> pipelines;
  std::vector<PoolSpec> pools;
};

}  // namespace gantry
