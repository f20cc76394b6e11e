// Pipeline files: a full file with every field, several documents per file and across files,
// and each kind of error with its exact "file:line:col: path: message". Every position below
// is counted by hand from the text of the test (columns are 1-based; a quoted scalar is marked
// at its opening quote; a missing field is reported at its map, whose mark is its first key or
// its opening brace).

#include "workflow/pipeline/pipeline_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workflow/pipeline/dag.hpp"

namespace gantry {
namespace {

using ::testing::ElementsAre;

const std::string kData = std::string(GANTRY_SOURCE_DIR) + "/tests/data/pipelines/";

// Every error of loading `sources` together, as the lines `gantry pipeline validate` prints.
std::vector<std::string> errors_of(const std::vector<PipelineSource>& sources) {
  PipelineDocuments out;
  std::vector<std::string> lines;
  for (const InputError& e : validate_pipeline_sources(sources, out)) lines.push_back(e.what());
  return lines;
}

std::vector<std::string> errors_of(const std::string& text) {
  return errors_of({{"t.yaml", text}});
}

Time at(const char* text) {
  Time t;
  EXPECT_TRUE(parse_rfc3339(text, t)) << text;
  return t;
}

TEST(PipelineLoader, FullFileReadsEveryField) {
  const PipelineDocuments docs = load_pipeline_files({kData + "full.yaml"});
  ASSERT_EQ(docs.pipelines.size(), 1u);
  ASSERT_EQ(docs.pools.size(), 1u);

  const PipelineSpec& p = docs.pipelines[0];
  EXPECT_EQ(p.name, "hourly-etl");
  EXPECT_EQ(p.namespace_name, "team-a");
  EXPECT_EQ(p.file, kData + "full.yaml");
  EXPECT_EQ(p.where.line, 2);  // the document's first key, apiVersion
  ASSERT_TRUE(p.schedule.has_value());
  const ScheduleSpec& s = *p.schedule;
  EXPECT_EQ(s.cron, "0 * * * *");
  // `    cron: "0 * * * *"`: the quote is column 11, the expression starts at 12.
  EXPECT_EQ(s.cron_where.line, 7);
  EXPECT_EQ(s.cron_where.column, 12);
  EXPECT_EQ(s.timezone, "America/New_York");
  EXPECT_EQ(s.start, at("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(s.end.has_value());
  EXPECT_EQ(*s.end, at("2026-12-31T23:00:00Z"));
  EXPECT_EQ(s.semantics, ScheduleSemantics::kInterval);
  EXPECT_FALSE(s.catchup);
  EXPECT_EQ(s.starting_deadline, hours(1));
  EXPECT_EQ(s.max_missed_runs, 50);
  EXPECT_EQ(p.concurrency.max_active_runs, 2);
  EXPECT_EQ(p.concurrency.policy, ConcurrencyPolicy::kForbid);
  EXPECT_EQ(p.concurrency.keep_latest, 3);
  EXPECT_TRUE(p.depends_on_past);
  EXPECT_EQ(p.parallelism, 3);
  EXPECT_EQ(p.timeout, hours(6));
  EXPECT_EQ(p.env,
            (std::map<std::string, std::string>{{"DATE", "{{ logicalTime }}"}, {"MODE", "full"}}));
  ASSERT_EQ(p.tasks.size(), 3u);

  const TaskSpec& extract = p.tasks[0];
  EXPECT_EQ(extract.name, "extract");
  EXPECT_EQ(extract.where.line, 24);
  EXPECT_EQ(extract.template_kind, TaskTemplate::kContainer);
  EXPECT_EQ(extract.image, "registry.local/etl:1");
  EXPECT_EQ(extract.command, (std::vector<std::string>{"python", "extract.py"}));
  EXPECT_EQ(extract.resources.cpu_milli, 2000);
  EXPECT_EQ(extract.resources.memory_bytes, 4ll << 30);  // 4Gi = 4 * 2^30
  EXPECT_EQ(extract.resources.gpus, 0);
  EXPECT_EQ(extract.resources.gpu_milli, 500);  // "0.5" is a share of one GPU
  EXPECT_EQ(extract.gpu_type, "V100");
  EXPECT_TRUE(extract.replicas.empty());
  EXPECT_TRUE(extract.depends_on.empty());
  EXPECT_EQ(extract.trigger_rule, TriggerRule::kAllSuccess);
  EXPECT_FALSE(extract.depends_on_past);
  EXPECT_EQ(extract.pool, "etl");
  EXPECT_EQ(extract.pool_slots, 2);
  EXPECT_EQ(extract.priority, 5);
  EXPECT_EQ(extract.timeout, minutes(30));
  EXPECT_EQ(extract.retry.limit, 3);
  EXPECT_EQ(extract.retry.policy, RetryPolicy::kOnFailure);
  EXPECT_EQ(extract.retry.delay, seconds(10));
  EXPECT_EQ(extract.retry.factor, 2.0);
  EXPECT_EQ(extract.retry.cap, minutes(5));
  EXPECT_EQ(extract.retry.max_duration, hours(2));
  EXPECT_FALSE(extract.skip);
  EXPECT_FALSE(extract.autosize);
  EXPECT_EQ(extract.simulate.duration, minutes(20));
  EXPECT_FALSE(extract.simulate.p90.has_value());
  EXPECT_EQ(extract.simulate.outcomes, (std::vector<std::string>{"failed", "succeeded"}));

  const TaskSpec& train = p.tasks[1];
  EXPECT_EQ(train.template_kind, TaskTemplate::kPyTorchJob);
  EXPECT_EQ(train.resources.cpu_milli, 8000);
  EXPECT_EQ(train.resources.memory_bytes, 64ll << 30);
  EXPECT_EQ(train.resources.gpus, 2);
  EXPECT_EQ(train.resources.gpu_milli, 0);
  EXPECT_EQ(train.replicas, (std::map<std::string, int>{{"master", 1}, {"worker", 4}}));
  EXPECT_EQ(train.depends_on, std::vector<std::string>{"extract"});
  ASSERT_EQ(train.depends_on_where.size(), 1u);
  // `    dependsOn: [extract]` on line 46: '[' at 16, the name at 17.
  EXPECT_EQ(train.depends_on_where[0].line, 46);
  EXPECT_EQ(train.depends_on_where[0].column, 17);
  EXPECT_EQ(train.trigger_rule, TriggerRule::kOneSuccess);
  EXPECT_TRUE(train.depends_on_past);
  EXPECT_EQ(train.retry.limit, 1);
  EXPECT_EQ(train.retry.policy, RetryPolicy::kOnError);
  EXPECT_EQ(train.retry.delay, seconds(10));  // defaults of RetrySpec
  EXPECT_EQ(train.retry.factor, 2.0);
  EXPECT_EQ(train.retry.cap, minutes(5));
  EXPECT_FALSE(train.retry.max_duration.has_value());
  EXPECT_TRUE(train.autosize);
  EXPECT_EQ(train.simulate.duration, minutes(20));
  EXPECT_EQ(train.simulate.p90, minutes(45));
  EXPECT_TRUE(train.simulate.outcomes.empty());
  EXPECT_EQ(train.simulate.failure_probability, 0.1);
  EXPECT_EQ(train.simulate.used_cpu_milli, 1500);
  EXPECT_EQ(train.simulate.used_memory_bytes, 2ll << 30);
  EXPECT_TRUE(train.pool.empty());
  EXPECT_EQ(train.pool_slots, 1);
  EXPECT_FALSE(train.timeout.has_value());

  const TaskSpec& load = p.tasks[2];
  EXPECT_EQ(load.depends_on, (std::vector<std::string>{"extract", "train"}));
  EXPECT_EQ(load.trigger_rule, TriggerRule::kNoneFailed);
  EXPECT_TRUE(load.skip);
  EXPECT_EQ(load.simulate.duration, minutes(1));  // SimulateSpec default
  EXPECT_EQ(load.resources, Resources{});

  const PoolSpec& pool = docs.pools[0];
  EXPECT_EQ(pool.name, "etl");
  EXPECT_EQ(pool.slots, 4);
  EXPECT_EQ(pool.max_wait, minutes(10));
  EXPECT_EQ(pool.where.line, 60);  // the document's first key
}

TEST(PipelineLoader, DefaultsOfAMinimalPipeline) {
  const PipelineDocuments docs = load_pipeline_text(
      "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: p1}\nspec:\n  tasks: [{name: "
      "a}]\n",
      "m.yaml");
  ASSERT_EQ(docs.pipelines.size(), 1u);
  const PipelineSpec& p = docs.pipelines[0];
  EXPECT_EQ(p.namespace_name, "default");
  EXPECT_FALSE(p.schedule.has_value());
  EXPECT_EQ(p.concurrency.max_active_runs, 1);
  EXPECT_EQ(p.concurrency.policy, ConcurrencyPolicy::kAllow);
  EXPECT_EQ(p.parallelism, 0);
  EXPECT_EQ(p.tasks[0].retry.limit, 0);
  EXPECT_EQ(p.tasks[0].template_kind, TaskTemplate::kContainer);
}

TEST(PipelineLoader, SeveralDocumentsInOneFile) {
  const PipelineDocuments docs = load_pipeline_files({kData + "several.yaml"});
  ASSERT_EQ(docs.pools.size(), 1u);
  EXPECT_EQ(docs.pools[0].name, "gpu-pool");
  EXPECT_EQ(docs.pools[0].slots, 2);
  EXPECT_FALSE(docs.pools[0].max_wait.has_value());
  ASSERT_EQ(docs.pipelines.size(), 2u);
  // The same name in two namespaces is two pipelines.
  EXPECT_EQ(docs.pipelines[0].name, "nightly");
  EXPECT_EQ(docs.pipelines[0].namespace_name, "default");
  EXPECT_EQ(docs.pipelines[0].schedule->cron, "@daily");
  EXPECT_EQ(docs.pipelines[0].schedule->timezone, "UTC");
  EXPECT_EQ(docs.pipelines[0].tasks[0].pool, "gpu-pool");
  EXPECT_EQ(docs.pipelines[1].name, "nightly");
  EXPECT_EQ(docs.pipelines[1].namespace_name, "other");
  EXPECT_EQ(docs.pipelines[1].where.line, 15);
}

TEST(PipelineLoader, PoolsAreFoundAcrossFiles) {
  const PipelineDocuments docs =
      load_pipeline_files({kData + "other_pool_user.yaml", kData + "shared_pool.yaml"});
  ASSERT_EQ(docs.pipelines.size(), 1u);
  ASSERT_EQ(docs.pools.size(), 1u);
  EXPECT_EQ(docs.pipelines[0].tasks[0].pool_slots, 3);

  // Alone, the pipeline names a pool nobody declares.
  // `  - {name: t, pool: shared, poolSlots: 3}`: '{' 5, name 6-10, t 12, pool: 15-19, shared 21.
  try {
    load_pipeline_files({kData + "other_pool_user.yaml"});
    FAIL() << "expected PipelineErrors";
  } catch (const PipelineErrors& e) {
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_EQ(std::string(e.what()),
              kData +
                  "other_pool_user.yaml:6:21: spec.tasks[0].pool: unknown pool 'shared'; no "
                  "pool is declared in the files given (declare pools with kind: Pool)");
    EXPECT_EQ(e.where().line, 6);
    EXPECT_EQ(e.field(), "spec.tasks[0].pool");
  }
}

TEST(PipelineLoader, EveryUnknownFieldIsReported) {
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  paralelism: 3
  tasks:
  - name: a
    imagee: x
)";
  EXPECT_THAT(
      errors_of(text),
      ElementsAre("t.yaml:5:3: spec.paralelism: unknown field 'paralelism'; expected one of: "
                  "schedule, concurrency, dependsOnPast, parallelism, timeout, env, params, tasks",
                  "t.yaml:8:5: spec.tasks[0].imagee: unknown field 'imagee'; expected one of: "
                  "name, template, image, command, resources, replicas, dependsOn, triggerRule, "
                  "dependsOnPast, pool, poolSlots, priority, timeout, retry, skip, autosize, "
                  "simulate"));
}

TEST(PipelineLoader, WrongTypesAndBadUnits) {
  // Line 9: `    resources: {cpu: "2", memory: 4Gb, gpu: "1.5"}`: '{' 16, cpu: 17-20, "2" 22-24,
  // memory: 27-33, 4Gb 35-37, gpu: 40-43, the quote of "1.5" at 45.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  parallelism: three
  timeout: 90
  tasks:
  - name: a
    resources: {cpu: "2", memory: 4Gb, gpu: "1.5"}
    skip: "true"
)";
  EXPECT_THAT(
      errors_of(text),
      ElementsAre(
          "t.yaml:5:16: spec.parallelism: expected an integer from 0 to 2147483647, got 'three'",
          "t.yaml:6:12: spec.timeout: expected a duration such as 90s, 1h30m or 500ms, got '90' "
          "(the unit is required: d, h, m, s, ms or us)",
          "t.yaml:9:35: spec.tasks[0].resources.memory: expected a size in bytes such as 80Gi, "
          "512Mi or 1.5GB, got '4Gb' (unknown suffix; use Ki, Mi, Gi, Ti, Pi, k, M, G, T or P)",
          "t.yaml:9:45: spec.tasks[0].resources.gpu: expected a GPU count such as 1 or 2, or a "
          "share of one GPU below 1 such as 0.5, got '1.5' (a share is of one GPU; ask for whole "
          "GPUs above 1)",
          // `    skip: "true"`: skip: 5-9, the quote at 11. Booleans must be plain.
          "t.yaml:10:11: spec.tasks[0].skip: expected true or false, got the string 'true'"));
}

TEST(PipelineLoader, DuplicateNames) {
  // `metadata: {name: p1}`: '{' 11, name: 12-16, p1 at 18. `  - name: a`: a at 11.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  tasks:
  - name: a
  - name: a
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1, namespace: default}
spec:
  tasks: [{name: x}]
---
apiVersion: gantry.dev/v1
kind: Pool
metadata: {name: p1}
spec: {slots: 1}
)";
  EXPECT_THAT(errors_of(text),
              ElementsAre("t.yaml:7:11: spec.tasks[1].name: duplicate task name 'a' (first used "
                          "at line 6)",
                          "t.yaml:11:18: metadata.name: duplicate pipeline 'p1' in namespace "
                          "'default' (first declared at t.yaml:3:18)"));
}

TEST(PipelineLoader, DuplicatePipelinesAndPoolsAcrossFiles) {
  const std::string a =
      "apiVersion: gantry.dev/v1\nkind: Pool\nmetadata: {name: gpu}\nspec: {slots: 1}\n";
  EXPECT_THAT(errors_of({{"a.yaml", a}, {"b.yaml", a}}),
              ElementsAre("b.yaml:3:18: metadata.name: duplicate pool 'gpu' (first declared at "
                          "a.yaml:3:18)"));
}

TEST(PipelineLoader, DependencyErrorsAndCycleNaming) {
  // extract needs load, transform needs extract, load needs transform: a cycle closed by
  // extract's entry 'load' (the depth-first search starts at extract and meets the back edge
  // load -> extract last). `    dependsOn: [load]`: '[' 16, the name at 17.
  // `    dependsOn: [extract, transfrom]`: transfrom at 26.
  // `    dependsOn: [transform, load]`: load at 28.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: etl}
spec:
  tasks:
  - name: extract
    dependsOn: [load]
  - name: transform
    dependsOn: [extract, transfrom]
  - name: load
    dependsOn: [transform, load]
)";
  EXPECT_THAT(
      errors_of(text),
      ElementsAre(
          "t.yaml:7:17: spec.tasks[0].dependsOn[0]: cycle: extract -> transform -> load -> "
          "extract",
          "t.yaml:9:26: spec.tasks[1].dependsOn[1]: unknown task 'transfrom'; tasks of this "
          "pipeline: extract, transform, load",
          "t.yaml:11:28: spec.tasks[2].dependsOn[1]: task 'load' depends on itself"));
}

TEST(PipelineLoader, TwoCyclesAreBothNamed) {
  // a <-> b and c <-> d. Edges run upstream -> downstream, so "a depends on b" is b -> a.
  // The search starts at a: a -> b (b depends on a) is a tree edge, then b -> a is a back edge,
  // the entry 'b' of a's dependsOn. Then from c the same way: c's entry 'd'.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: two}
spec:
  tasks:
  - {name: a, dependsOn: [b]}
  - {name: b, dependsOn: [a]}
  - {name: c, dependsOn: [d]}
  - {name: d, dependsOn: [c]}
)";
  // `  - {name: a, dependsOn: [b]}`: '{' 5, name: 6-10, a 12, ',' 13, dependsOn: 15-24,
  // '[' 26, b at 27.
  EXPECT_THAT(errors_of(text),
              ElementsAre("t.yaml:6:27: spec.tasks[0].dependsOn[0]: cycle: a -> b -> a",
                          "t.yaml:8:27: spec.tasks[2].dependsOn[0]: cycle: c -> d -> c"));
}

TEST(PipelineLoader, CronAndTimeZoneErrors) {
  // `    cron: "0 24 * * *"`: the quote at 11, the expression from 12; the hour field is column
  // 3 of the expression, so 12 + 3 - 1 = 14. `    timezone: Mars/Olympus`: the name at 15.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  schedule:
    cron: "0 24 * * *"
    timezone: Mars/Olympus
    start: 2026-01-01T00:00:00Z
  tasks: [{name: a}]
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p2}
spec:
  schedule:
    cron: 0 0 * * 8
    start: 2026-01-01T00:00:00Z
  tasks: [{name: a}]
)";
  // Plain `    cron: 0 0 * * 8`: the expression from 11; day-of-week is column 9: 11 + 8 = 19.
  EXPECT_THAT(
      errors_of(text),
      ElementsAre("t.yaml:6:14: spec.schedule.cron: hour: value 24 out of range 0-23 (at column 3 "
                  "of \"0 24 * * *\")",
                  "t.yaml:7:15: spec.schedule.timezone: unknown time zone \"Mars/Olympus\"; "
                  "expected an IANA name such as \"Europe/Paris\"",
                  "t.yaml:16:19: spec.schedule.cron: day-of-week: value 8 out of range 0-7 (at "
                  "column 9 of \"0 0 * * 8\")"));
}

// Issue 8: `timezone: ""` used to mean UTC, and an offset of +99:00 was accepted.
TEST(PipelineLoader, EmptyTimeZoneAndOffsetsOutOfRange) {
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  schedule:
    cron: "0 * * * *"
    timezone: ""
    start: 2026-01-01T00:00:00+99:00
  tasks: [{name: a}]
)";
  // `    timezone: ""`: the quote at 15. `    start: 2026...`: the value at 12.
  EXPECT_THAT(
      errors_of(text),
      ElementsAre("t.yaml:7:15: spec.schedule.timezone: expected an IANA time zone name such as "
                  "Europe/Paris or UTC, got an empty string (leave timezone out for UTC)",
                  "t.yaml:8:12: spec.schedule.start: expected an RFC 3339 time such as "
                  "2026-01-01T00:00:00Z, got '2026-01-01T00:00:00+99:00' (offset +99:00 is out "
                  "of range: hours 00-23, minutes 00-59)"));
}

TEST(PipelineLoader, SchedulesThatNeverRun) {
  // 30 February never exists. `    cron: "0 0 30 2 *"` is on line 6 at column 11 (the quote).
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  schedule:
    cron: "0 0 30 2 *"
    start: 2026-01-01T00:00:00Z
  tasks: [{name: a}]
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p2}
spec:
  schedule:
    cron: "0 0 1 * *"
    start: 2026-01-02T00:00:00Z
    end: 2026-01-31T00:00:00Z
  tasks: [{name: a}]
)";
  // p2 fires on the 1st of each month; the first tick after 2 January is 1 February, after
  // end. `    end: 2026-01-31T00:00:00Z` is line 17, the time at column 10.
  EXPECT_THAT(errors_of(text),
              ElementsAre("t.yaml:6:11: spec.schedule.cron: the expression '0 0 30 2 *' never "
                          "fires on or after start 2026-01-01T00:00:00Z",
                          "t.yaml:17:10: spec.schedule.end: no tick between start and end: the "
                          "first tick on or after start is 2026-02-01T00:00:00Z"));
}

TEST(PipelineLoader, SemanticErrors) {
  // Line 5: `  schedule: {cron: "@hourly", start: 2026-02-01T00:00:00Z, end: 2026-...}`:
  // '{' 13, cron: 14-18, "@hourly" 20-28, ',' 29, start: 31-36, the time 38-57, ',' 58,
  // end: 60-63, the end time at 65.
  // Line 7 starts task 0's block map at `name` (column 5): the missing replicas point there.
  // `    retry: {factor: 0.5}`: 0.5 at 21. `    replicas: {worker: 2}`: '{' at 15.
  // `    resources: {gpuType: A100}`: A100 at 26.
  // `    simulate: {outcomes: [succeeded], failureProbability: 0.5}`: '{' 15, outcomes: 16-24,
  // '[' 26, succeeded 27-35, ']' 36, ',' 37, failureProbability: 39-57, 0.5 at 59.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: Bad_Name}
spec:
  schedule: {cron: "@hourly", start: 2026-02-01T00:00:00Z, end: 2026-01-01T00:00:00Z}
  tasks:
  - name: train
    template: tfjob
    retry: {factor: 0.5}
  - name: one
    replicas: {worker: 2}
    resources: {gpuType: A100}
    simulate: {outcomes: [succeeded], failureProbability: 0.5}
)";
  EXPECT_THAT(
      errors_of(text),
      ElementsAre(
          "t.yaml:3:18: metadata.name: expected a pipeline name of lower-case letters, digits "
          "and '-', starting with a letter and ending with a letter or digit "
          "(^[a-z][a-z0-9-]*[a-z0-9]$), got 'Bad_Name'",
          "t.yaml:5:65: spec.schedule.end: end 2026-01-01T00:00:00Z is before start "
          "2026-02-01T00:00:00Z",
          "t.yaml:7:5: spec.tasks[0].replicas: missing required field 'replicas' (a distributed "
          "template needs the count of each role, such as {master: 1, worker: 4})",
          "t.yaml:9:21: spec.tasks[0].retry.factor: the backoff factor must be at least 1 (waits "
          "never shrink), got 0.5",
          "t.yaml:11:15: spec.tasks[1].replicas: replicas applies to the distributed templates "
          "(tfjob, pytorchjob, mpijob, xgboostjob, rayjob, sparkjob); a container task is one "
          "pod",
          "t.yaml:12:26: spec.tasks[1].resources.gpuType: gpuType applies to tasks that request a "
          "GPU; add gpu: N or remove gpuType",
          "t.yaml:13:59: spec.tasks[1].simulate.failureProbability: give outcomes or "
          "failureProbability, not both"));
}

TEST(PipelineLoader, PoolSlotsBeyondThePool) {
  // `  - {name: big, pool: small, poolSlots: 3}`: big 12-14, pool: 17-21, small 23-27,
  // poolSlots: 30-39, 3 at 41.
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pool
metadata: {name: small}
spec: {slots: 2}
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p1}
spec:
  tasks:
  - {name: big, pool: small, poolSlots: 3}
  - {name: nopool, poolSlots: 1}
)";
  // Line 12: `  - {name: nopool, poolSlots: 1}`: nopool 12-17, ',' 18, poolSlots: 20-29, 1 at 31.
  EXPECT_THAT(errors_of(text),
              ElementsAre("t.yaml:11:41: spec.tasks[0].poolSlots: poolSlots 3 is more than the 2 "
                          "slots of pool 'small': the task could never start",
                          "t.yaml:12:31: spec.tasks[1].poolSlots: poolSlots applies to tasks with "
                          "a pool; add pool: NAME or remove poolSlots"));
}

TEST(PipelineLoader, EnvelopeErrorsAndMissingFields) {
  // Document 1: wrong apiVersion (value at 13) and no spec (reported at the document's map,
  // line 1 column 1). Document 2: an unknown kind (value at 7): skipped after its error.
  // Document 3: a task without a name; its flow map '{' is at 12 on line 15.
  const std::string text = R"(apiVersion: gantry.dev/v2
kind: Pipeline
metadata: {name: p1}
---
apiVersion: gantry.dev/v1
kind: Cluster
metadata: {name: c1}
spec: {}
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: p2}
spec:
  tasks:
  - image: {}
)";
  // `  - image: {}`: the task's block map starts at `image` (column 5); `{}` at 12.
  EXPECT_THAT(errors_of(text),
              ElementsAre("t.yaml:1:1: spec: missing required field 'spec'",
                          "t.yaml:1:13: apiVersion: unsupported apiVersion 'gantry.dev/v2'; "
                          "expected gantry.dev/v1",
                          "t.yaml:6:7: kind: unknown value 'Cluster'; expected one of: Pipeline, "
                          "Pool",
                          "t.yaml:15:5: spec.tasks[0].name: missing required field 'name'",
                          "t.yaml:15:12: spec.tasks[0].image: expected a name, got a map"));
}

TEST(PipelineLoader, SyntaxErrorInOneFileDoesNotHideTheOthers) {
  const std::string good =
      "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: p1}\nspec:\n"
      "  tasks: [{name: a, pool: somewhere}, {name: b, dependsOn: [zz]}]\n";
  const std::vector<std::string> errors =
      errors_of({{"bad.yaml", "a: [1, 2\n"}, {"good.yaml", good}});
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].rfind("bad.yaml:", 0), 0u) << errors[0];
  // The unknown pool is not reported: bad.yaml might have declared it. The unknown task is.
  // `  tasks: [{name: a, pool: somewhere}, {name: b, dependsOn: [zz]}]`: '[' 10, '{' 11,
  // name: 12-16, a 18, ',' 19, pool: 21-25, somewhere 27-35, '}' 36, ',' 37, '{' 39,
  // name: 40-44, b 46, ',' 47, dependsOn: 49-58, '[' 60, zz 61.
  EXPECT_EQ(errors[1],
            "good.yaml:5:61: spec.tasks[1].dependsOn[0]: unknown task 'zz'; tasks of "
            "this pipeline: a, b");
}

TEST(PipelineLoader, ErrorsLeaveOutOnlyTheBrokenDocuments) {
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: good}
spec:
  tasks: [{name: a}]
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: bad}
spec:
  tasks: [{name: a, priority: high}]
)";
  PipelineDocuments out;
  const std::vector<InputError> errors = validate_pipeline_sources({{"t.yaml", text}}, out);
  ASSERT_EQ(errors.size(), 1u);
  ASSERT_EQ(out.pipelines.size(), 1u);
  EXPECT_EQ(out.pipelines[0].name, "good");
}

TEST(PipelineLoader, GpuSharesAndWholeGpus) {
  const auto gpu_of = [](const std::string& value) {
    const PipelineDocuments docs = load_pipeline_text(
        "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: p1}\nspec:\n"
        "  tasks: [{name: a, resources: {gpu: " +
            value + "}}]\n",
        "g.yaml");
    return docs.pipelines.at(0).tasks.at(0).resources;
  };
  EXPECT_EQ(gpu_of("\"0.5\"").gpu_milli, 500);
  EXPECT_EQ(gpu_of("0.25").gpu_milli, 250);
  EXPECT_EQ(gpu_of("1").gpus, 1);
  EXPECT_EQ(gpu_of("1").gpu_milli, 0);
  EXPECT_EQ(gpu_of("8").gpus, 8);
  EXPECT_EQ(gpu_of("0").needs_gpu(), false);
  EXPECT_THROW(gpu_of("500m"), PipelineErrors);
  EXPECT_THROW(gpu_of("65"), PipelineErrors);
}

TEST(PipelineLoader, LoadedPipelinesMakeValidDags) {
  const PipelineDocuments docs = load_pipeline_files({kData + "full.yaml"});
  const PipelineDag dag(docs.pipelines.at(0));
  EXPECT_EQ(dag.topological_order(), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(dag.leaves(), std::vector<size_t>{2});
}

}  // namespace
}  // namespace gantry
