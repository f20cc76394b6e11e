#include "workflow/pipeline/pipeline_loader.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "engine/config/config_fields.hpp"
#include "engine/config/envelope.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/reader.hpp"
#include "engine/config/resource_fields.hpp"
#include "engine/config/units.hpp"
#include "workflow/cron/cron.hpp"
#include "workflow/pipeline/dag.hpp"
#include "workflow/pipeline/pipeline_params.hpp"

namespace gantry {

namespace {

constexpr size_t kMaxMetadataName =
    54;                               // issue #4; leaves room for run suffixes in a 63-char label
constexpr size_t kMaxNamespace = 63;  // a Kubernetes namespace is a DNS label
constexpr size_t kMaxTaskName = 63;   // tasks become pods' container names (DNS labels)

// Typo guards: far above real pipelines, low enough that a slip cannot exhaust memory or
// overflow sums.
constexpr int64_t kMaxTasks = 10'000;
constexpr int64_t kMaxReplicas = 10'000;  // pods of one role
constexpr int64_t kMaxSlots = 1'000'000;  // a pool's slots
constexpr int64_t kMaxRetries = 10'000;
constexpr int64_t kMaxActiveRuns = 1'000'000;
// Counting missed ticks costs up to maxMissedRuns + 1 cron steps (tick_planner.hpp).
constexpr int64_t kMaxMissedRuns = 1'000'000;
constexpr double kMaxFactor = 1e6;
constexpr size_t kMaxListedNames = 20;  // in "tasks of this pipeline: ..." messages

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// ---- names ----

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// ^[a-z][a-z0-9-]*[a-z0-9]$, at most kMaxMetadataName.
std::string read_metadata_name(const ConfigNode& n, std::string_view what) {
  const std::string name = n.as_string();
  const bool shape =
      name.size() >= 2 && name.front() >= 'a' && name.front() <= 'z' &&
      is_lower_alnum(name.back()) &&
      std::all_of(name.begin(), name.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
  if (!shape)
    n.fail("expected a " + std::string(what) +
           " name of lower-case letters, digits and '-', starting with a letter and ending with "
           "a letter or digit (^[a-z][a-z0-9-]*[a-z0-9]$), got " +
           quote_for_message(name));
  if (name.size() > kMaxMetadataName)
    n.fail("a " + std::string(what) + " name is at most " + std::to_string(kMaxMetadataName) +
           " characters long, got " + std::to_string(name.size()));
  return name;
}

// A DNS label: ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$, at most 63.
std::string read_namespace(const ConfigNode& n) {
  const std::string name = n.as_string();
  const bool shape =
      !name.empty() && name.size() <= kMaxNamespace && is_lower_alnum(name.front()) &&
      is_lower_alnum(name.back()) &&
      std::all_of(name.begin(), name.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
  if (!shape)
    n.fail(
        "expected a namespace of at most 63 lower-case letters, digits and '-', starting and "
        "ending with a letter or digit, got " +
        quote_for_message(name));
  return name;
}

// Letters, digits, '-' and '_', starting and ending with a letter or digit, at most 63.
std::string read_task_name(const ConfigNode& n) {
  const std::string name = n.as_string();
  const bool shape = !name.empty() && name.size() <= kMaxTaskName && is_alnum(name.front()) &&
                     is_alnum(name.back()) && std::all_of(name.begin(), name.end(), [](char c) {
                       return is_alnum(c) || c == '-' || c == '_';
                     });
  if (!shape)
    n.fail(
        "expected a task name of at most 63 letters, digits, '-' and '_', starting and "
        "ending with a letter or digit, got " +
        quote_for_message(name));
  return name;
}

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxListedNames; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > kMaxListedNames)
    out += ", ... (" + std::to_string(names.size() - kMaxListedNames) + " more)";
  return out;
}

// ---- values ----

bool is_distributed(TaskTemplate t) { return t != TaskTemplate::kContainer; }

// ---- what the checks after reading need to point at ----

struct TaskSite {
  std::optional<ConfigNode> name;
  std::optional<ConfigNode> pool;
  std::optional<ConfigNode> pool_slots;
  std::vector<ConfigNode> depends_on;  // parallel to TaskSpec::depends_on
};

struct PipelineRecord {
  PipelineSpec spec;
  size_t source = 0;
  std::optional<ConfigNode> name;
  std::vector<TaskSite> sites;  // parallel to spec.tasks
  bool ok = true;
};

struct PoolRecord {
  PoolSpec spec;
  size_t source = 0;
  std::optional<ConfigNode> name;
  bool slots_known = false;
  bool ok = true;
};

class Loader {
 public:
  explicit Loader(const std::vector<PipelineSource>& sources) : sources_(sources) {}

  std::vector<InputError> run(PipelineDocuments& out);

 private:
  void read_document(const ConfigNode& doc, size_t source);
  void read_pipeline(const ConfigFields& top, size_t source);
  void read_pool(const ConfigFields& top, size_t source);
  std::optional<ScheduleSpec> read_schedule(const ConfigNode& node, size_t source);
  ConcurrencySpec read_concurrency(const ConfigNode& node);
  TaskSpec read_task(const ConfigNode& item, TaskSite& site);
  void read_resources(const ConfigNode& node, TaskSpec& task);
  void read_retry(const ConfigNode& node, RetrySpec& retry);
  void read_simulate(const ConfigNode& node, SimulateSpec& sim);
  void check_dependencies(PipelineRecord& p);
  void check_across_files();
  SourceLocation expression_start(const ConfigNode& n, size_t source) const;

  const std::vector<PipelineSource>& sources_;
  ConfigErrors errors_;
  std::vector<PipelineRecord> pipelines_;
  std::vector<PoolRecord> pools_;
  bool all_parsed_ = true;
};

std::vector<InputError> Loader::run(PipelineDocuments& out) {
  for (size_t i = 0; i < sources_.size(); ++i) {
    std::vector<ConfigNode> docs;
    if (!errors_.attempt(
            [&] { docs = parse_yaml_documents(sources_[i].text, sources_[i].file_name); })) {
      all_parsed_ = false;
      continue;
    }
    for (const ConfigNode& doc : docs) read_document(doc, i);
  }
  check_across_files();

  // File order (as given), then position.
  std::vector<std::string> file_order;
  for (const PipelineSource& source : sources_) file_order.push_back(source.file_name);
  std::vector<InputError> list = errors_.take(file_order);

  for (PipelineRecord& p : pipelines_)
    if (p.ok) out.pipelines.push_back(std::move(p.spec));
  for (PoolRecord& p : pools_)
    if (p.ok) out.pools.push_back(std::move(p.spec));
  return list;
}

void Loader::read_document(const ConfigNode& doc, size_t source) {
  const ConfigFields top(doc, {"apiVersion", "kind", "metadata", "spec"}, errors_);
  if (!top.valid()) return;
  const std::optional<std::string> kind = read_kind(top, {"Pipeline", "Pool"});
  if (!kind) return;
  if (*kind == "Pipeline")
    read_pipeline(top, source);
  else
    read_pool(top, source);
}

void Loader::read_pipeline(const ConfigFields& top, size_t source) {
  const size_t errors_before = errors_.size();
  PipelineRecord p;
  p.source = source;
  p.spec.file = sources_[source].file_name;
  p.spec.where = top.node().location();
  if (auto meta = top.required("metadata")) {
    const ConfigFields m(*meta, {"name", "namespace", "description", "labels", "tags", "owner"},
                         errors_);
    if (auto n = m.required("name"))
      if (errors_.attempt([&] { p.spec.name = read_metadata_name(*n, "pipeline"); })) p.name = n;
    m.read("namespace", [&](const ConfigNode& n) { p.spec.namespace_name = read_namespace(n); });
    m.read("description", [&](const ConfigNode& n) { p.spec.description = n.as_string(); });
    m.read("owner", [&](const ConfigNode& n) { p.spec.owner = n.as_name(); });
    m.read("tags", [&](const ConfigNode& n) {
      for (const ConfigNode& tag : n.as_sequence())
        errors_.attempt([&] { p.spec.tags.push_back(tag.as_name()); });
    });
    m.read("labels", [&](const ConfigNode& n) {
      for (const ConfigEntry& e : n.as_entries()) errors_.attempt([&] { e.value.as_string(); });
    });
  }

  if (auto spec_node = top.required("spec")) {
    const ConfigFields s(*spec_node,
                         {"schedule", "concurrency", "dependsOnPast", "parallelism", "timeout",
                          "env", "params", "tasks"},
                         errors_);
    if (auto n = s.optional("schedule")) p.spec.schedule = read_schedule(*n, source);
    if (auto n = s.optional("concurrency")) p.spec.concurrency = read_concurrency(*n);
    s.read("dependsOnPast", [&](const ConfigNode& n) { p.spec.depends_on_past = n.as_bool(); });
    s.read("parallelism", [&](const ConfigNode& n) {
      p.spec.parallelism = static_cast<int>(n.as_int(0, kInt32Max));
    });
    s.read("timeout", [&](const ConfigNode& n) { p.spec.timeout = n.as_positive_duration(); });
    s.read("env", [&](const ConfigNode& n) {
      for (const ConfigEntry& e : n.as_entries()) {
        const bool shape = !e.name.empty() && (e.name.front() < '0' || e.name.front() > '9') &&
                           std::all_of(e.name.begin(), e.name.end(),
                                       [](char c) { return is_alnum(c) || c == '_'; });
        if (!shape) {
          errors_.add(e.key,
                      "expected an environment variable name of letters, digits and '_', "
                      "not starting with a digit, got " +
                          quote_for_message(e.name));
          continue;
        }
        errors_.attempt([&] { p.spec.env[e.name] = e.value.as_string(); });
      }
    });
    if (auto n = s.optional("params")) p.spec.params = read_params(*n, errors_, s.has("schedule"));
    if (auto tasks = s.required("tasks")) {
      errors_.attempt([&] {
        const std::vector<ConfigNode> items = tasks->as_sequence();
        if (items.empty()) tasks->fail("a pipeline needs at least one task");
        if (static_cast<int64_t>(items.size()) > kMaxTasks)
          tasks->fail("more than " + std::to_string(kMaxTasks) + " tasks is surely a mistake");
        for (const ConfigNode& item : items) {
          p.sites.emplace_back();
          p.spec.tasks.push_back(read_task(item, p.sites.back()));
        }
      });
      check_dependencies(p);
    }
  }
  p.ok = errors_.size() == errors_before;
  pipelines_.push_back(std::move(p));
}

void Loader::read_pool(const ConfigFields& top, size_t source) {
  const size_t errors_before = errors_.size();
  PoolRecord p;
  p.source = source;
  p.spec.where = top.node().location();
  if (auto meta = top.required("metadata")) {
    const ConfigFields m(*meta, {"name", "description", "labels"}, errors_);
    if (auto n = m.required("name"))
      if (errors_.attempt([&] { p.spec.name = read_metadata_name(*n, "pool"); })) p.name = n;
    m.read("description", [](const ConfigNode& n) { n.as_string(); });
    m.read("labels", [&](const ConfigNode& n) {
      for (const ConfigEntry& e : n.as_entries()) errors_.attempt([&] { e.value.as_string(); });
    });
  }
  if (auto spec_node = top.required("spec")) {
    const ConfigFields s(*spec_node, {"slots", "maxWait"}, errors_);
    if (auto n = s.required("slots"))
      p.slots_known =
          errors_.attempt([&] { p.spec.slots = static_cast<int>(n->as_int(1, kMaxSlots)); });
    s.read("maxWait", [&](const ConfigNode& n) { p.spec.max_wait = n.as_duration(); });
  }
  p.ok = errors_.size() == errors_before;
  pools_.push_back(std::move(p));
}

// Where the expression's first character is, so CronError::to_input_error can point inside it.
SourceLocation Loader::expression_start(const ConfigNode& n, size_t source) const {
  SourceLocation where = n.location();
  const YAML::Mark mark = n.yaml().Mark();
  const std::string& text = sources_[source].text;
  if (mark.pos >= 0 && static_cast<size_t>(mark.pos) < text.size()) {
    const char c = text[static_cast<size_t>(mark.pos)];
    if (c == '"' || c == '\'') ++where.column;
    // A block scalar's text starts on a later line: no column inside it can be given.
    if (c == '|' || c == '>') where.column = 0;
  }
  return where;
}

std::optional<ScheduleSpec> Loader::read_schedule(const ConfigNode& node, size_t source) {
  const ConfigFields f(node,
                       {"cron", "timezone", "start", "end", "semantics", "catchup",
                        "startingDeadline", "maxMissedRuns"},
                       errors_);
  if (!f.valid()) return std::nullopt;
  ScheduleSpec s;
  std::optional<CronExpression> expression;
  std::optional<TimeZone> zone = TimeZone();
  bool start_ok = false;

  std::optional<ConfigNode> cron_node = f.required("cron");
  if (cron_node) {
    errors_.attempt([&] {
      s.cron = cron_node->as_string();
      s.cron_where = expression_start(*cron_node, source);
      CronSyntaxError error;
      expression = CronExpression::parse(s.cron, error);
      if (!expression) {
        const CronError e(s.cron, std::move(error));
        if (s.cron_where.column == 0)  // block scalar: point at the value, not inside it
          throw InputError(cron_node->location(), cron_node->path(), e.what());
        throw e.to_input_error(s.cron_where, cron_node->path());
      }
    });
  }
  f.read("timezone", [&](const ConfigNode& n) {
    s.timezone = n.as_string();
    // An empty name is not a zone; without the check TimeZone::locate("") quietly gave UTC.
    if (s.timezone.empty()) {
      zone.reset();
      n.fail(
          "expected an IANA time zone name such as Europe/Paris or UTC, got an empty string "
          "(leave timezone out for UTC)");
    }
    Result<TimeZone> tz = TimeZone::locate(s.timezone);
    if (!tz) {
      zone.reset();
      n.fail(tz.error());
    }
    zone = std::move(tz).value();
  });
  if (auto n = f.required("start")) {
    s.start_where = n->location();
    start_ok = errors_.attempt([&] { s.start = n->as_time(); });
  }
  const bool end_ok = f.read("end", [&](const ConfigNode& n) {
    s.end = n.as_time();
    if (start_ok && *s.end < s.start)
      n.fail("end " + format_rfc3339(*s.end) + " is before start " + format_rfc3339(s.start));
  });
  f.read("semantics", [&](const ConfigNode& n) {
    s.semantics = n.as_enum<ScheduleSemantics>(
        {{"trigger", ScheduleSemantics::kTrigger}, {"interval", ScheduleSemantics::kInterval}});
  });
  f.read("catchup", [&](const ConfigNode& n) { s.catchup = n.as_bool(); });
  f.read("startingDeadline",
         [&](const ConfigNode& n) { s.starting_deadline = n.as_positive_duration(); });
  f.read("maxMissedRuns",
         [&](const ConfigNode& n) { s.max_missed_runs = n.as_int(0, kMaxMissedRuns); });

  // A schedule that can never fire is a mistake the runner would only show as silence.
  if (expression && zone && start_ok && cron_node && (!s.end || end_ok)) {
    const CronSchedule schedule(*expression, *zone);
    const std::optional<Time> first = schedule.next_after(s.start - microseconds(1));
    if (!first)
      errors_.add(*cron_node, "the expression " + quote_for_message(s.cron) +
                                  " never fires on or after start " + format_rfc3339(s.start));
    else if (s.end && *first > *s.end)
      errors_.add(*f.optional("end"),
                  "no tick between start and end: the first tick on or after start is " +
                      format_rfc3339(*first));
  }
  return s;
}

ConcurrencySpec Loader::read_concurrency(const ConfigNode& node) {
  const ConfigFields f(node, {"maxActiveRuns", "policy", "keepLatest"}, errors_);
  ConcurrencySpec c;
  f.read("maxActiveRuns", [&](const ConfigNode& n) {
    c.max_active_runs = static_cast<int>(n.as_int(1, kMaxActiveRuns));
  });
  f.read("policy", [&](const ConfigNode& n) {
    c.policy = n.as_enum<ConcurrencyPolicy>({{"Allow", ConcurrencyPolicy::kAllow},
                                             {"Forbid", ConcurrencyPolicy::kForbid},
                                             {"Replace", ConcurrencyPolicy::kReplace}});
  });
  f.read("keepLatest", [&](const ConfigNode& n) {
    c.keep_latest = static_cast<int>(n.as_int(0, kMaxActiveRuns));
  });
  return c;
}

TaskSpec Loader::read_task(const ConfigNode& item, TaskSite& site) {
  TaskSpec t;
  t.where = item.location();
  const ConfigFields f(item,
                       {"name", "template", "image", "command", "resources", "replicas",
                        "dependsOn", "triggerRule", "dependsOnPast", "pool", "poolSlots",
                        "priority", "timeout", "retry", "skip", "autosize", "simulate"},
                       errors_);
  if (!f.valid()) return t;
  if (auto n = f.required("name"))
    if (errors_.attempt([&] { t.name = read_task_name(*n); })) site.name = n;

  const bool template_ok = f.read("template", [&](const ConfigNode& n) {
    t.template_kind = n.as_enum<TaskTemplate>({{"container", TaskTemplate::kContainer},
                                               {"tfjob", TaskTemplate::kTFJob},
                                               {"pytorchjob", TaskTemplate::kPyTorchJob},
                                               {"mpijob", TaskTemplate::kMPIJob},
                                               {"xgboostjob", TaskTemplate::kXGBoostJob},
                                               {"rayjob", TaskTemplate::kRayJob},
                                               {"sparkjob", TaskTemplate::kSparkJob}});
  }) || !f.optional("template");
  f.read("image", [&](const ConfigNode& n) { t.image = n.as_name(); });
  f.read("command", [&](const ConfigNode& n) {
    for (const ConfigNode& arg : n.as_sequence())
      errors_.attempt([&] { t.command.push_back(arg.as_string()); });
  });
  if (auto n = f.optional("resources")) read_resources(*n, t);

  const std::optional<ConfigNode> replicas = f.optional("replicas");
  if (replicas) {
    errors_.attempt([&] {
      const std::vector<ConfigEntry> roles = replicas->as_entries();
      if (roles.empty())
        replicas->fail("expected at least one role with its count, such as {worker: 4}");
      for (const ConfigEntry& e : roles)
        errors_.attempt([&] {
          if (e.name.empty()) e.key.fail("expected a role name such as master or worker");
          t.replicas[e.name] = static_cast<int>(e.value.as_int(1, kMaxReplicas));
        });
    });
  }
  if (template_ok) {
    if (is_distributed(t.template_kind) && !replicas)
      f.missing("replicas",
                " (a distributed template needs the count of each role, such as "
                "{master: 1, worker: 4})");
    if (!is_distributed(t.template_kind) && replicas)
      errors_.add(*replicas,
                  "replicas applies to the distributed templates (tfjob, pytorchjob, "
                  "mpijob, xgboostjob, rayjob, sparkjob); a container task is one pod");
  }

  f.read("dependsOn", [&](const ConfigNode& n) {
    for (const ConfigNode& dep : n.as_sequence()) {
      errors_.attempt([&] {
        const std::string name = dep.as_name();
        for (size_t i = 0; i < t.depends_on.size(); ++i)
          if (t.depends_on[i] == name)
            dep.fail("task " + quote_for_message(name) + " is listed twice (first at " +
                     site.depends_on[i].path() + ")");
        t.depends_on.push_back(name);
        t.depends_on_where.push_back(dep.location());
        site.depends_on.push_back(dep);
      });
    }
  });
  f.read("triggerRule", [&](const ConfigNode& n) {
    t.trigger_rule = n.as_enum<TriggerRule>({{"all_success", TriggerRule::kAllSuccess},
                                             {"all_failed", TriggerRule::kAllFailed},
                                             {"all_done", TriggerRule::kAllDone},
                                             {"one_success", TriggerRule::kOneSuccess},
                                             {"one_failed", TriggerRule::kOneFailed},
                                             {"none_failed", TriggerRule::kNoneFailed},
                                             {"always", TriggerRule::kAlways}});
  });
  f.read("dependsOnPast", [&](const ConfigNode& n) { t.depends_on_past = n.as_bool(); });
  if (f.read("pool", [&](const ConfigNode& n) { t.pool = n.as_name(); }))
    site.pool = f.optional("pool");
  if (f.read("poolSlots", [&](const ConfigNode& n) {
        t.pool_slots = static_cast<int>(n.as_int(1, kMaxSlots));
        if (!f.optional("pool"))
          n.fail("poolSlots applies to tasks with a pool; add pool: NAME or remove poolSlots");
      }))
    site.pool_slots = f.optional("poolSlots");
  f.read("priority", [&](const ConfigNode& n) {
    t.priority = static_cast<int>(n.as_int(kInt32Min, kInt32Max));
  });
  f.read("timeout", [&](const ConfigNode& n) { t.timeout = n.as_positive_duration(); });
  if (auto n = f.optional("retry")) read_retry(*n, t.retry);
  f.read("skip", [&](const ConfigNode& n) { t.skip = n.as_bool(); });
  f.read("autosize", [&](const ConfigNode& n) { t.autosize = n.as_bool(); });
  if (auto n = f.optional("simulate")) read_simulate(*n, t.simulate);
  return t;
}

void Loader::read_resources(const ConfigNode& node, TaskSpec& t) {
  const ConfigFields f(node, {"cpu", "memory", "gpu", "gpuType"}, errors_);
  f.read("cpu", [&](const ConfigNode& n) { t.resources.cpu_milli = read_cpu(n); });
  f.read("memory", [&](const ConfigNode& n) { t.resources.memory_bytes = read_memory(n); });
  const bool gpu_ok = f.read("gpu", [&](const ConfigNode& n) { read_gpu(n, t.resources); });
  f.read("gpuType", [&](const ConfigNode& n) {
    t.gpu_type = n.as_name();
    if (gpu_ok && !t.resources.needs_gpu())
      n.fail("gpuType applies to tasks that request a GPU; add gpu: N or remove gpuType");
    if (!f.optional("gpu"))
      n.fail("gpuType applies to tasks that request a GPU; add gpu: N or remove gpuType");
  });
}

void Loader::read_retry(const ConfigNode& node, RetrySpec& r) {
  const ConfigFields f(node, {"limit", "policy", "delay", "factor", "cap", "maxDuration"}, errors_);
  f.read("limit",
         [&](const ConfigNode& n) { r.limit = static_cast<int>(n.as_int(0, kMaxRetries)); });
  f.read("policy", [&](const ConfigNode& n) {
    r.policy = n.as_enum<RetryPolicy>({{"OnFailure", RetryPolicy::kOnFailure},
                                       {"OnError", RetryPolicy::kOnError},
                                       {"Always", RetryPolicy::kAlways}});
  });
  f.read("delay", [&](const ConfigNode& n) { r.delay = n.as_duration(); });
  f.read("factor", [&](const ConfigNode& n) {
    r.factor = n.as_double(0, kMaxFactor);
    if (r.factor < 1)
      n.fail("the backoff factor must be at least 1 (waits never shrink), got " + n.as_string());
  });
  f.read("cap", [&](const ConfigNode& n) { r.cap = n.as_duration(); });
  f.read("maxDuration", [&](const ConfigNode& n) { r.max_duration = n.as_positive_duration(); });
}

void Loader::read_simulate(const ConfigNode& node, SimulateSpec& sim) {
  const ConfigFields f(node, {"duration", "outcomes", "failureProbability", "used"}, errors_);
  f.read("duration", [&](const ConfigNode& n) {
    if (!n.is_map()) {
      sim.duration = n.as_duration();
      return;
    }
    const ConfigFields d(n, {"distribution", "median", "p90"}, errors_);
    enum class Distribution { kLognormal };
    d.read("distribution", [](const ConfigNode& k) {
      k.as_enum<Distribution>({{"lognormal", Distribution::kLognormal}});
    });
    if (!d.optional("distribution") && d.valid()) d.missing("distribution", "");
    std::optional<Duration> median;
    if (auto m = d.required("median")) errors_.attempt([&] { median = m->as_positive_duration(); });
    if (median) sim.duration = *median;
    if (auto p = d.required("p90"))
      errors_.attempt([&] {
        sim.p90 = p->as_duration();
        if (median && *sim.p90 < *median)
          p->fail("p90 " + format_duration(*sim.p90) + " is below the median " +
                  format_duration(*median));
      });
  });
  f.read("outcomes", [&](const ConfigNode& n) {
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one outcome (succeeded, failed or error)");
    for (const ConfigNode& o : items)
      errors_.attempt([&] {
        constexpr std::string_view kNames[] = {"succeeded", "failed", "error"};
        sim.outcomes.emplace_back(kNames[o.as_choice({kNames[0], kNames[1], kNames[2]})]);
      });
  });
  f.read("failureProbability", [&](const ConfigNode& n) {
    sim.failure_probability = n.as_double(0, 1);
    if (f.optional("outcomes")) n.fail("give outcomes or failureProbability, not both");
  });
  f.read("used", [&](const ConfigNode& n) {
    const ConfigFields u(n, {"cpu", "memory"}, errors_);
    u.read("cpu", [&](const ConfigNode& c) { sim.used_cpu_milli = read_cpu(c); });
    u.read("memory", [&](const ConfigNode& m) { sim.used_memory_bytes = read_memory(m); });
  });
}

void Loader::check_dependencies(PipelineRecord& p) {
  std::vector<TaskSpec>& tasks = p.spec.tasks;
  std::vector<std::string> names;
  std::map<std::string, size_t, std::less<>> index;
  for (size_t i = 0; i < tasks.size(); ++i) {
    names.push_back(tasks[i].name);
    if (!p.sites[i].name) continue;  // unnamed: its own error was reported
    const auto [it, inserted] = index.emplace(tasks[i].name, i);
    if (!inserted)
      errors_.add(*p.sites[i].name, "duplicate task name " + quote_for_message(tasks[i].name) +
                                        " (first used at line " +
                                        std::to_string(p.sites[it->second].name->location().line) +
                                        ")");
  }
  std::vector<std::string> declared;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (p.sites[i].name) declared.push_back(tasks[i].name);

  std::vector<std::vector<size_t>> upstream(tasks.size());
  for (size_t v = 0; v < tasks.size(); ++v) {
    const TaskSite& site = p.sites[v];
    for (size_t j = 0; j < site.depends_on.size(); ++j) {
      const std::string& dep = tasks[v].depends_on[j];
      const auto it = index.find(dep);
      if (it == index.end())
        errors_.add(site.depends_on[j], "unknown task " + quote_for_message(dep) +
                                            "; tasks of this pipeline: " + list_names(declared));
      else if (it->second == v)
        errors_.add(site.depends_on[j], "task " + quote_for_message(dep) + " depends on itself");
      else
        upstream[v].push_back(it->second);
    }
  }
  for (const DagCycle& cycle : find_cycles(upstream)) {
    // The closing edge cycle.back() -> cycle.front(): the entry of the first task naming the last.
    const size_t v = cycle.front();
    const std::string& closing = tasks[cycle.back()].name;
    for (size_t j = 0; j < tasks[v].depends_on.size(); ++j) {
      if (tasks[v].depends_on[j] != closing) continue;
      errors_.add(p.sites[v].depends_on[j], "cycle: " + describe_cycle(cycle, names));
      break;
    }
  }
}

void Loader::check_across_files() {
  // Pipelines: unique per namespace.
  std::map<std::pair<std::string, std::string>, size_t> pipeline_index;
  for (size_t i = 0; i < pipelines_.size(); ++i) {
    PipelineRecord& p = pipelines_[i];
    if (!p.name) continue;
    const auto [it, inserted] =
        pipeline_index.emplace(std::pair(p.spec.namespace_name, p.spec.name), i);
    if (inserted) continue;
    errors_.add(*p.name, "duplicate pipeline " + quote_for_message(p.spec.name) + " in namespace " +
                             quote_for_message(p.spec.namespace_name) + " (first declared at " +
                             pipelines_[it->second].name->location().to_string() + ")");
    p.ok = false;
  }
  // Pools: global.
  std::map<std::string, size_t, std::less<>> pool_index;
  std::vector<std::string> pool_names;
  for (size_t i = 0; i < pools_.size(); ++i) {
    PoolRecord& p = pools_[i];
    if (!p.name) continue;
    const auto [it, inserted] = pool_index.emplace(p.spec.name, i);
    if (inserted) {
      pool_names.push_back(p.spec.name);
      continue;
    }
    errors_.add(*p.name, "duplicate pool " + quote_for_message(p.spec.name) +
                             " (first declared at " +
                             pools_[it->second].name->location().to_string() + ")");
    p.ok = false;
  }
  // References from tasks.
  for (PipelineRecord& p : pipelines_) {
    for (size_t i = 0; i < p.spec.tasks.size(); ++i) {
      const TaskSite& site = p.sites[i];
      const TaskSpec& t = p.spec.tasks[i];
      if (!site.pool) continue;
      const auto it = pool_index.find(t.pool);
      if (it == pool_index.end()) {
        if (!all_parsed_) continue;  // it may be declared in the file that could not be read
        errors_.add(*site.pool,
                    "unknown pool " + quote_for_message(t.pool) + "; " +
                        (pool_names.empty() ? std::string("no pool is declared in the files given")
                                            : "declared pools: " + list_names(pool_names)) +
                        " (declare pools with kind: Pool)");
        p.ok = false;
        continue;
      }
      const PoolRecord& pool = pools_[it->second];
      if (pool.slots_known && t.pool_slots > pool.spec.slots) {
        const ConfigNode& at = site.pool_slots ? *site.pool_slots : *site.pool;
        errors_.add(at, "poolSlots " + std::to_string(t.pool_slots) + " is more than the " +
                            std::to_string(pool.spec.slots) + " slots of pool " +
                            quote_for_message(t.pool) + ": the task could never start");
        p.ok = false;
      }
    }
  }
}

}  // namespace

std::vector<InputError> validate_pipeline_sources(const std::vector<PipelineSource>& sources,
                                                  PipelineDocuments& out) {
  return Loader(sources).run(out);
}

PipelineDocuments load_pipeline_files(const std::vector<std::string>& paths) {
  std::vector<PipelineSource> sources;
  for (const std::string& path : paths) sources.push_back({path, read_text_file(path)});
  PipelineDocuments out;
  std::vector<InputError> errors = validate_pipeline_sources(sources, out);
  if (!errors.empty()) throw PipelineErrors(std::move(errors));
  return out;
}

PipelineDocuments load_pipeline_text(const std::string& text, const std::string& file_name) {
  PipelineDocuments out;
  std::vector<InputError> errors = validate_pipeline_sources({{file_name, text}}, out);
  if (!errors.empty()) throw PipelineErrors(std::move(errors));
  return out;
}

}  // namespace gantry
