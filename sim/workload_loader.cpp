#include "sim/workload_loader.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "engine/config/config_fields.hpp"
#include "engine/config/limits.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/resource_fields.hpp"
#include "sim/placement_constraints_loader.hpp"
#include "sim/scenario_values.hpp"
#include "sim/serving/service_loader.hpp"

namespace gantry {

namespace {

// Typo guards. Each keeps a slip of the keyboard from exhausting memory or overflowing the
// int64 sums in Cluster and JobSpec, while staying far above real systems.
constexpr int64_t kMaxReplicas = 10'000;  // pods of one role
// Jobs of a whole workload, explicit and generated: each costs about 600 bytes while it runs
// plus its rows in results.db, so a million is about 1 GB; scale-100k.yaml has 100,000.
constexpr int64_t kMaxJobs = 1'000'000;
// Steps of one job: 10^12 one-microsecond steps are eleven days; more is surely a typo.
constexpr int64_t kMaxSteps = 1'000'000'000'000;
// Writing a checkpoint takes seconds to minutes (tens of minutes for the largest models); a day
// is surely a typo.
constexpr Duration kMaxCheckpointCost = days(1);

// A span of seconds for messages: "475646 years", "3.2 days".
std::string describe_seconds(double s) {
  char buf[64];
  if (s >= 365.25 * 86400)
    std::snprintf(buf, sizeof buf, "%.0f years", s / (365.25 * 86400));
  else
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

// The fastest relative compute among the node classes a job may use (of `type`, or any with
// GPUs): no placement computes a step faster than step_compute_ref / this.
double fastest_compute(const Topology& topology, GpuTypeId type) {
  double best = 0;
  for (const NodeClass& c : topology.classes)
    if (c.gpu_type >= 0 && (type < 0 || c.gpu_type == type))
      best = std::max(best, topology.gpus.at(c.gpu_type).relative_compute);
  return best > 0 ? best : 1.0;  // CPU-only: the reference speed (sim/step_time.hpp)
}

// A job submitted at `submit` must be able to finish by kLatestTime: its compute alone
// (steps × step time on the fastest GPU it may get, a lower bound of its run time) must fit.
void check_job_ends_in_range(const ConfigNode& steps_node, Time submit, int64_t steps,
                             Duration step_compute, double relative_compute) {
  const double run_s = static_cast<double>(steps) * step_compute.seconds() / relative_compute;
  const double room_s = (kLatestTime - submit).seconds();
  char speed[32];
  std::snprintf(speed, sizeof speed, "%g", relative_compute);
  if (run_s > room_s)
    steps_node.fail("the job would compute for at least " + describe_seconds(run_s) + " (" +
                    std::to_string(steps) + " steps × stepCompute " +
                    format_duration(step_compute) + " on GPUs of relative compute " + speed +
                    ") and end after " + latest_time_text() +
                    ", the latest instant Gantry simulates");
}

// Whether one pod of `request` fits an empty node of some class (of GPU type `type` when the
// pod asks for a GPU and `type` >= 0). A pod that fits nowhere would wait forever.
void check_fits(const ConfigNode& where, const Topology& topology, const Resources& request,
                GpuTypeId type) {
  const bool fits =
      std::any_of(topology.classes.begin(), topology.classes.end(), [&](const NodeClass& c) {
        if (request.needs_gpu() && type >= 0 && c.gpu_type != type) return false;
        return request.fits_in(c.capacity);
      });
  if (fits) return;
  std::string message = "no node class can hold one pod of " + describe_request(request);
  if (type >= 0 && request.needs_gpu()) message += " on GPU type " + topology.gpus.at(type).name;
  where.fail(message);
}

// ---- jobs ----

const std::initializer_list<EnumName<Framework>> kFrameworks = {
    {"PyTorch", Framework::kPyTorch},
    {"TensorFlow", Framework::kTensorFlow},
    {"MPI", Framework::kMPI}};

// The roles each framework's operator knows (Kubeflow PyTorchJob, TFJob, MPIJob).
std::vector<RoleKind> roles_of(Framework f) {
  switch (f) {
    case Framework::kPyTorch:
      return {RoleKind::kMaster, RoleKind::kWorker};
    case Framework::kTensorFlow:
      return {RoleKind::kPS, RoleKind::kChief, RoleKind::kWorker, RoleKind::kEvaluator};
    case Framework::kMPI:
      return {RoleKind::kLauncher, RoleKind::kWorker};
  }
  return {};
}

const char* framework_name(Framework f) {
  for (const auto& e : kFrameworks)
    if (e.value == f) return e.name.data();
  return "?";
}

// Roles the operators allow only once per job.
bool is_singleton(RoleKind r) {
  return r == RoleKind::kMaster || r == RoleKind::kChief || r == RoleKind::kLauncher;
}

// A role, or nullopt when any of its fields had an error. `framework`: nullopt when the job's
// could not be read (the role's kind is then not checked against it).
std::optional<RoleSpec> read_role(const ConfigNode& node, std::optional<Framework> framework,
                                  const WorkloadContext& ctx, GpuTypeId gpu_type,
                                  ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(node, {"kind", "replicas", "resources"}, errors);
  RoleSpec role;
  const bool kind_ok = m.read_required("kind", [&](const ConfigNode& n) {
    role.kind = n.as_enum<RoleKind>({{"PS", RoleKind::kPS},
                                     {"Chief", RoleKind::kChief},
                                     {"Worker", RoleKind::kWorker},
                                     {"Evaluator", RoleKind::kEvaluator},
                                     {"Master", RoleKind::kMaster},
                                     {"Launcher", RoleKind::kLauncher}});
    if (!framework) return;
    const std::vector<RoleKind> allowed = roles_of(*framework);
    if (std::find(allowed.begin(), allowed.end(), role.kind) != allowed.end()) return;
    std::string names;
    for (RoleKind r : allowed) names += (names.empty() ? "" : ", ") + std::string(to_string(r));
    n.fail("role " + std::string(to_string(role.kind)) + " is not used by " +
           framework_name(*framework) + " jobs; expected one of: " + names);
  });
  m.read("replicas", [&](const ConfigNode& n) {
    role.replicas = static_cast<int>(n.as_int(1, kMaxReplicas));
    if (kind_ok && is_singleton(role.kind) && role.replicas != 1)
      n.fail(std::string("a job has exactly one ") + to_string(role.kind) +
             "; expected replicas: 1");
  });
  if (auto resources = m.required("resources")) {
    const ConfigFields r(*resources, {"cpu", "memory", "gpu"}, errors);
    r.read_required("cpu", [&](const ConfigNode& n) { role.per_replica.cpu_milli = read_cpu(n); });
    r.read_required("memory",
                    [&](const ConfigNode& n) { role.per_replica.memory_bytes = read_memory(n); });
    r.read("gpu", [&](const ConfigNode& n) { read_gpu(n, role.per_replica); });
    if (errors.size() == before && ctx.topology_ok)
      errors.attempt([&] { check_fits(*resources, ctx.topology, role.per_replica, gpu_type); });
  }
  if (errors.size() != before) return std::nullopt;
  return role;
}

// The work of a job; `steps` is set to the steps field when it was read.
TrainingWork read_work(const ConfigNode& node, std::optional<ConfigNode>& steps,
                       ConfigErrors& errors) {
  const ConfigFields m(
      node,
      {"steps", "stepCompute", "gradientSize", "inputPerStep", "checkpointEvery", "checkpointCost"},
      errors);
  TrainingWork w;
  if (m.read_required("steps", [&](const ConfigNode& n) { w.steps = n.as_int(1, kMaxSteps); }))
    steps = m.optional("steps");
  m.read_required("stepCompute",
                  [&](const ConfigNode& n) { w.step_compute_ref = n.as_positive_duration(); });
  m.read_required("gradientSize", [&](const ConfigNode& n) { w.gradient_bytes = n.as_bytes(); });
  m.read("inputPerStep", [&](const ConfigNode& n) { w.input_bytes_per_step = n.as_bytes(); });
  m.read("checkpointEvery",
         [&](const ConfigNode& n) { w.checkpoint_every = n.as_positive_duration(); });
  m.read("checkpointCost",
         [&](const ConfigNode& n) { w.checkpoint_cost = n.as_duration(kMaxCheckpointCost); });
  return w;
}

// A `gpuType:` field: the catalog's id, checked to exist on some node. Without a readable
// cluster only the name's shape is checked.
GpuTypeId read_job_gpu_type(const ConfigNode& n, const WorkloadContext& ctx, std::string& name) {
  if (!ctx.topology_ok) {
    name = n.as_name();
    return -1;
  }
  const GpuTypeId id = read_gpu_type(n, ctx.topology.gpus);
  const bool present = std::any_of(ctx.topology.classes.begin(), ctx.topology.classes.end(),
                                   [&](const NodeClass& c) { return c.gpu_type == id; });
  if (!present)
    n.fail("no node class in spec.cluster has GPU type " + ctx.topology.gpus.at(id).name);
  name = ctx.topology.gpus.at(id).name;  // the catalog's spelling, not the file's
  return id;
}

// ---- admission: a job's queue, minReplicas and topology constraint ----

// The declared queue names for messages: the first few, then how many more.
std::string queue_list(const std::vector<std::string>& names) {
  constexpr size_t kShown = 10;
  std::string list;
  for (size_t i = 0; i < names.size() && i < kShown; ++i)
    list += (list.empty() ? "" : ", ") + names[i];
  if (names.size() > kShown) list += " and " + std::to_string(names.size() - kShown) + " more";
  return list;
}

// A `queue:` field of a job (`who_names` = "job names") or a job class ("jobs of this class
// name"): a queue spec.policy.admission declares.
std::string read_queue_name(const ConfigNode& n, const WorkloadContext& ctx,
                            const char* who_names) {
  const std::string queue = n.as_name();
  const DeclaredQueues& declared = ctx.queues;
  if (!declared.known) return queue;
  if (declared.names.empty())
    n.fail(std::string(who_names) + " queue " + quote_for_message(queue) +
           " but spec.policy.admission declares no queues");
  if (std::find(declared.names.begin(), declared.names.end(), queue) == declared.names.end())
    n.fail("unknown queue " + quote_for_message(queue) +
           "; queues declared in spec.policy.admission: " + queue_list(declared.names));
  return queue;
}

// With admission queues, a job (or job class) without `queue` is an error.
void check_queue_given(const ConfigFields& m, const WorkloadContext& ctx) {
  if (!m.valid() || m.has("queue") || !ctx.queues.known || ctx.queues.names.empty()) return;
  m.missing("queue", "; spec.policy.admission declares queues (" + queue_list(ctx.queues.names) +
                         ") and every job waits in one of them");
}

TopologyConstraint read_topology(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields m(node, {"required", "preferred"}, errors);
  TopologyConstraint t;
  if (!m.valid()) return t;
  const auto level = [](const ConfigNode& n) {
    return n.as_enum<TopologyConstraint::Level>({{"island", TopologyConstraint::Level::kIsland},
                                                 {"node", TopologyConstraint::Level::kNode},
                                                 {"rack", TopologyConstraint::Level::kRack}});
  };
  const std::optional<ConfigNode> required = m.optional("required");
  const std::optional<ConfigNode> preferred = m.optional("preferred");
  if (required && preferred) {
    errors.add(*preferred,
               "required and preferred exclude each other; give one of them (required: the "
               "whole gang in one domain or not at all; preferred: there if possible)");
    return t;
  }
  if (!required && !preferred) {
    errors.add(node,
               "expected required or preferred, such as {required: rack} (island, node or rack)");
    return t;
  }
  errors.attempt([&] {
    t.level = level(required ? *required : *preferred);
    t.required = required.has_value();
  });
  return t;
}

// minReplicas: partial admission of the job's last role, which must be a Worker role. `roles_ok`:
// every role was read, so the last one can be checked.
int read_min_replicas(const ConfigNode& n, const std::vector<RoleSpec>& roles, bool roles_ok) {
  const int min = static_cast<int>(n.as_int(1, kMaxReplicas));
  if (!roles_ok || roles.empty()) return min;
  const RoleSpec& last = roles.back();
  if (last.kind != RoleKind::kWorker)
    n.fail(std::string("minReplicas applies to the job's last role, which must be a Worker "
                       "role; the last role here is ") +
           to_string(last.kind));
  if (min > last.replicas)
    n.fail("minReplicas (" + std::to_string(min) +
           ") is more than the replicas of the Worker role (" + std::to_string(last.replicas) +
           ")");
  return min;
}

// ---- elasticity: et-operator's TrainingJob on the job's last role ----

const std::initializer_list<EnumName<RestartPolicy>> kRestartPolicies = {
    {"Never", RestartPolicy::kNever},
    {"OnFailure", RestartPolicy::kOnFailure},
    {"ExitCode", RestartPolicy::kExitCode}};

// A resize's checkpoint and restart take seconds to minutes; a day is surely a typo.
constexpr Duration kMaxResizeCost = days(1);

// `elastic: {minReplicas, maxReplicas, scaleStep, resizeCost}` for a last role (a Worker role)
// of `replicas`; `kind` is that role's kind when known.
ElasticSpec read_elastic(const ConfigNode& node, std::optional<RoleKind> kind,
                         std::optional<int> replicas, ConfigErrors& errors) {
  ElasticSpec e;
  const ConfigFields m(node, {"minReplicas", "maxReplicas", "scaleStep", "resizeCost"}, errors);
  if (!m.valid()) return e;
  const size_t before = errors.size();
  m.read_required("minReplicas", [&](const ConfigNode& n) {
    e.min_replicas = static_cast<int>(n.as_int(1, kMaxReplicas));
  });
  m.read_required("maxReplicas", [&](const ConfigNode& n) {
    e.max_replicas = static_cast<int>(n.as_int(1, kMaxReplicas));
  });
  m.read("scaleStep",
         [&](const ConfigNode& n) { e.scale_step = static_cast<int>(n.as_int(1, kMaxReplicas)); });
  m.read("resizeCost", [&](const ConfigNode& n) { e.resize_cost = n.as_duration(kMaxResizeCost); });
  if (errors.size() != before) return ElasticSpec{};
  errors.attempt([&] {
    if (e.min_replicas > e.max_replicas)
      m.optional("minReplicas")
          ->fail("minReplicas (" + std::to_string(e.min_replicas) + ") is more than maxReplicas (" +
                 std::to_string(e.max_replicas) + ")");
    if (kind && *kind != RoleKind::kWorker)
      node.fail(std::string("elastic applies to the job's last role, which must be a Worker "
                            "role; the last role here is ") +
                to_string(*kind));
    if (replicas && (*replicas < e.min_replicas || *replicas > e.max_replicas))
      node.fail("the Worker role's " + std::to_string(*replicas) +
                " replicas are outside minReplicas..maxReplicas (" +
                std::to_string(e.min_replicas) + ".." + std::to_string(e.max_replicas) + ")");
  });
  return e;
}

// A job (or a generator), with the node of its name when that was read, for the checks across
// jobs (duplicates, clashes with generated names).
template <typename T>
struct Named {
  T value;
  std::optional<ConfigNode> name;
};

std::optional<Named<JobSpec>> read_job(const ConfigNode& node, const WorkloadContext& ctx,
                                       ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(node,
                       {"name", "submit", "framework", "priority", "tenant", "gpuType", "roles",
                        "work", "nodeSelector", "tolerations", "queue", "minReplicas", "topology",
                        "elastic", "restartPolicy"},
                       errors);
  if (!m.valid()) return std::nullopt;
  Named<JobSpec> out;
  JobSpec& job = out.value;
  if (m.read_required("name", [&](const ConfigNode& n) { job.name = n.as_name(); }))
    out.name = m.optional("name");
  m.read_required("submit", [&](const ConfigNode& n) {
    job.submit = offset_time(n, ctx.start, n.as_duration());
  });
  std::optional<Framework> framework;
  m.read_required("framework",
                  [&](const ConfigNode& n) { framework = n.as_enum<Framework>(kFrameworks); });
  if (framework) job.framework = *framework;
  m.read("priority", [&](const ConfigNode& n) {
    job.priority = static_cast<int>(n.as_int(kInt32Min, kInt32Max));
  });
  m.read("tenant", [&](const ConfigNode& n) { job.tenant = n.as_name(); });
  GpuTypeId gpu_type = -1;
  m.read("gpuType",
         [&](const ConfigNode& n) { gpu_type = read_job_gpu_type(n, ctx, job.gpu_type); });
  const std::optional<ConfigNode> roles = m.required("roles");
  const size_t before_roles = errors.size();
  if (roles) {
    errors.attempt([&] {
      const std::vector<ConfigNode> items = roles->as_sequence();
      if (items.empty()) roles->fail("a job needs at least one role");
      std::set<RoleKind> seen;
      for (const ConfigNode& item : items) {
        const std::optional<RoleSpec> role = read_role(item, framework, ctx, gpu_type, errors);
        if (!role) continue;
        if (!seen.insert(role->kind).second)
          errors.add(item, std::string("role ") + to_string(role->kind) +
                               " is listed twice; use replicas for more pods");
        job.roles.push_back(*role);
      }
    });
  }
  const bool roles_ok = roles && errors.size() == before_roles;
  m.read("minReplicas", [&](const ConfigNode& n) {
    job.min_replicas = read_min_replicas(n, job.roles, roles_ok);
  });
  if (auto n = m.optional("nodeSelector")) job.node_selector = read_labels(*n, errors);
  if (auto n = m.optional("tolerations")) job.tolerations = read_tolerations(*n, errors);
  m.read("queue", [&](const ConfigNode& n) { job.queue = read_queue_name(n, ctx, "job names"); });
  check_queue_given(m, ctx);
  if (auto n = m.optional("topology")) job.topology = read_topology(*n, errors);
  if (auto n = m.optional("elastic")) {
    const bool known = roles_ok && !job.roles.empty();
    job.elastic =
        read_elastic(*n, known ? std::optional(job.roles.back().kind) : std::nullopt,
                     known ? std::optional(job.roles.back().replicas) : std::nullopt, errors);
  }
  m.read("restartPolicy", [&](const ConfigNode& n) {
    job.restart_policy = n.as_enum<RestartPolicy>(kRestartPolicies);
  });
  std::optional<ConfigNode> steps;
  if (auto n = m.required("work")) job.work = read_work(*n, steps, errors);

  // Checks of the whole job, on values that were all read.
  if (errors.size() != before || !ctx.topology_ok) return out;
  errors.attempt([&] {
    check_some_node_admits(m.optional("nodeSelector").value_or(*out.name), ctx.topology,
                           job.node_selector, job.tolerations);
  });
  errors.attempt([&] {
    // With partial admission the job starts with as few as min_replicas of its last role.
    std::vector<RoleSpec> smallest = job.roles;
    if (job.min_replicas > 0) smallest.back().replicas = job.min_replicas;
    const std::string misfit = gang_misfit(ctx.topology, ctx.nodes_of, smallest, gpu_type);
    if (!misfit.empty())
      roles->fail("job " + quote_for_message(job.name) + " can never start: it needs " + misfit);
  });
  errors.attempt([&] {
    check_job_ends_in_range(*steps, job.submit, job.work.steps, job.work.step_compute_ref,
                            fastest_compute(ctx.topology, gpu_type));
  });
  return out;
}

// ---- generators ----

IntRange read_steps(const ConfigNode& node, ConfigErrors& errors) {
  if (!node.is_map()) {
    if (!node.is_scalar())
      node.fail("expected " + describe_integer(1, kMaxSteps) +
                ", {min: ..., max: ...} or {mean: ...} (exponential)");
    const int64_t v = node.as_int(1, kMaxSteps);
    return IntRange{v, v};
  }
  if (node.is_map() && node.yaml()["mean"]) {
    // Exponential steps (a queueing model's service time): {mean: N} alone.
    const ConfigFields m(node, {"mean"}, errors);
    IntRange r;
    m.read_required("mean", [&](const ConfigNode& n) {
      r.mean = n.as_int(1, kMaxSteps / 50);
      r.min = 1;
      r.max = 50 * r.mean;
    });
    return r;
  }
  const ConfigFields m(node, {"min", "max"}, errors);
  IntRange r;
  const bool min_ok =
      m.read_required("min", [&](const ConfigNode& n) { r.min = n.as_int(1, kMaxSteps); });
  m.read_required("max", [&](const ConfigNode& n) {
    r.max = n.as_int(1, kMaxSteps);
    if (min_ok && r.max < r.min)
      n.fail("max (" + std::to_string(r.max) + ") is below min (" + std::to_string(r.min) + ")");
  });
  return r;
}

// `last_arrival`: an estimate of the generator's last submit time, for the duration check
// (nullopt when the generator's own fields could not be read).
JobClass read_job_class(const ConfigNode& node, const WorkloadContext& ctx,
                        std::optional<Time> last_arrival, ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(
      node,
      {"weight", "gpus", "gpusPerPod", "framework", "steps", "stepCompute", "gradientSize",
       "inputPerStep", "cpuPerGpu", "memoryPerGpu", "priority", "tenant", "gpuType", "queue",
       "checkpointEvery", "checkpointCost", "elastic", "restartPolicy"},
      errors);
  JobClass c;
  m.read_required("weight", [&](const ConfigNode& n) {
    c.weight = n.as_double(0, 1e12);
    if (!(c.weight > 0)) n.fail("a weight must be greater than zero");
  });
  const bool gpus_ok = m.read_required("gpus", [&](const ConfigNode& n) {
    c.gpus = static_cast<int>(n.as_int(1, kMaxGpusPerNode * kMaxReplicas));
    if (!m.has("gpusPerPod") && c.gpus > kMaxReplicas)
      n.fail("with one GPU per pod that is more than " + std::to_string(kMaxReplicas) +
             " pods; set gpusPerPod");
  });
  m.read("gpusPerPod", [&](const ConfigNode& n) {
    c.gpus_per_pod = static_cast<int>(n.as_int(1, kMaxGpusPerNode));
    if (gpus_ok && c.gpus % c.gpus_per_pod != 0)
      n.fail("gpus (" + std::to_string(c.gpus) + ") must be a multiple of gpusPerPod (" +
             std::to_string(c.gpus_per_pod) + ")");
  });
  m.read("framework",
         [&](const ConfigNode& n) { c.framework = n.as_enum<Framework>(kFrameworks); });
  const std::optional<ConfigNode> steps = m.required("steps");
  if (steps) errors.attempt([&] { c.steps = read_steps(*steps, errors); });
  m.read_required("stepCompute",
                  [&](const ConfigNode& n) { c.step_compute_ref = n.as_positive_duration(); });
  m.read_required("gradientSize", [&](const ConfigNode& n) { c.gradient_bytes = n.as_bytes(); });
  m.read("inputPerStep", [&](const ConfigNode& n) { c.input_bytes_per_step = n.as_bytes(); });
  m.read("cpuPerGpu", [&](const ConfigNode& n) { c.cpu_milli_per_gpu = read_cpu(n); });
  m.read("memoryPerGpu", [&](const ConfigNode& n) { c.memory_bytes_per_gpu = read_memory(n); });
  m.read("priority", [&](const ConfigNode& n) {
    c.priority = static_cast<int>(n.as_int(kInt32Min, kInt32Max));
  });
  m.read("tenant", [&](const ConfigNode& n) { c.tenant = n.as_name(); });
  GpuTypeId gpu_type = -1;
  m.read("gpuType", [&](const ConfigNode& n) { gpu_type = read_job_gpu_type(n, ctx, c.gpu_type); });
  m.read("queue", [&](const ConfigNode& n) {
    c.queue = read_queue_name(n, ctx, "jobs of this class name");
  });
  m.read("checkpointEvery",
         [&](const ConfigNode& n) { c.checkpoint_every = n.as_positive_duration(); });
  m.read("checkpointCost",
         [&](const ConfigNode& n) { c.checkpoint_cost = n.as_duration(kMaxCheckpointCost); });
  if (auto n = m.optional("elastic")) {
    // The class's Worker role: its GPU pods after a PyTorch master; every GPU pod otherwise.
    std::optional<int> workers;
    if (gpus_ok) {
      const int pods = c.gpus / std::max(1, c.gpus_per_pod);
      workers = c.framework == Framework::kPyTorch ? pods - 1 : pods;
    }
    if (workers && *workers < 1) {
      errors.add(*n, "a PyTorch job class of one pod has only a Master: nothing to scale");
    } else {
      c.elastic = read_elastic(*n, RoleKind::kWorker, workers, errors);
    }
  }
  m.read("restartPolicy", [&](const ConfigNode& n) {
    c.restart_policy = n.as_enum<RestartPolicy>(kRestartPolicies);
  });
  check_queue_given(m, ctx);

  if (errors.size() != before || !ctx.topology_ok) return c;
  // Both factors are capped (kMaxCpuMilli, kMaxMemory, 64 GPUs), so the products fit int64.
  const Resources pod{c.cpu_milli_per_gpu * c.gpus_per_pod, c.memory_bytes_per_gpu * c.gpus_per_pod,
                      c.gpus_per_pod};
  if (!errors.attempt([&] { check_fits(node, ctx.topology, pod, gpu_type); })) return c;
  errors.attempt([&] {
    const std::vector<RoleSpec> roles{RoleSpec{RoleKind::kWorker, c.gpus / c.gpus_per_pod, pod}};
    const std::string misfit = gang_misfit(ctx.topology, ctx.nodes_of, roles, gpu_type);
    if (!misfit.empty())
      m.optional("gpus")->fail("jobs of this class can never start: they need " + misfit);
  });
  if (last_arrival)
    errors.attempt([&] {
      check_job_ends_in_range(*steps, *last_arrival, c.steps.max, c.step_compute_ref,
                              fastest_compute(ctx.topology, gpu_type));
    });
  return c;
}

std::optional<Named<PoissonGeneratorSpec>> read_generator(const ConfigNode& node,
                                                          const WorkloadContext& ctx,
                                                          ConfigErrors& errors) {
  const ConfigFields m(node, {"kind", "name", "count", "meanInterarrival", "start", "mix"}, errors);
  if (!m.valid()) return std::nullopt;
  enum class GeneratorKind { kPoisson };
  m.read_required("kind", [](const ConfigNode& n) {
    n.as_enum<GeneratorKind>({{"Poisson", GeneratorKind::kPoisson}});
  });
  Named<PoissonGeneratorSpec> out;
  PoissonGeneratorSpec& g = out.value;
  if (m.read_required("name", [&](const ConfigNode& n) { g.name = n.as_name(); }))
    out.name = m.optional("name");
  const bool count_ok =
      m.read_required("count", [&](const ConfigNode& n) { g.count = n.as_int(1, kMaxJobs); });
  const bool mean_ok = m.read_required("meanInterarrival", [&](const ConfigNode& n) {
    g.mean_interarrival = n.as_positive_duration();
  });
  Time first = ctx.start;
  const bool start_ok = !m.has("start") || m.read("start", [&](const ConfigNode& n) {
    g.start = n.as_duration();
    first = offset_time(n, ctx.start, g.start);
  });
  // Arrivals are random; their expected span is count × mean. Asking for it to end before
  // kLatestTime keeps almost every draw in range; a later draw is clamped there by the
  // generator and the job reported as never started (workload_generator.hpp).
  std::optional<Time> last_arrival;
  if (count_ok && mean_ok && start_ok)
    errors.attempt([&] {
      const double span_s = static_cast<double>(g.count) * g.mean_interarrival.seconds();
      if (span_s > (kLatestTime - first).seconds())
        m.optional("meanInterarrival")
            ->fail("the " + std::to_string(g.count) + " arrivals would span about " +
                   describe_seconds(span_s) + " (count × meanInterarrival) and go past " +
                   latest_time_text() + ", the latest instant Gantry simulates");
      last_arrival = first + Duration::from_seconds(span_s);
    });
  if (auto mix = m.required("mix"))
    errors.attempt([&] {
      const std::vector<ConfigNode> items = mix->as_sequence();
      if (items.empty()) mix->fail("a generator needs at least one entry in its mix");
      for (const ConfigNode& item : items)
        g.mix.push_back(read_job_class(item, ctx, last_arrival, errors));
    });
  return out;
}

// Generated jobs are named "<generator>-<index>"; an explicit job named like that would make
// two jobs share a name.
bool looks_generated_by(const std::string& job, const std::string& generator) {
  if (job.size() <= generator.size() + 1 || job.compare(0, generator.size(), generator) != 0 ||
      job[generator.size()] != '-')
    return false;
  return std::all_of(job.begin() + static_cast<std::ptrdiff_t>(generator.size()) + 1, job.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// Reads the list `key` of `m` (jobs or generators): each entry with `read`, a duplicate name
// recorded at the later one ("duplicate job name 'j' (first used at line 14)"), every entry
// read handed to `keep`. Returns the number of entries written, readable or not.
template <typename T, typename Read, typename Keep>
size_t read_named_list(const ConfigFields& m, std::string_view key, const char* what, Read&& read,
                       Keep&& keep) {
  size_t given = 0;
  m.read(key, [&](const ConfigNode& list) {
    std::map<std::string, int, std::less<>> lines;
    const std::vector<ConfigNode> items = list.as_sequence();
    given = items.size();
    for (const ConfigNode& item : items) {
      std::optional<Named<T>> entry = read(item);
      if (!entry) continue;
      if (entry->name) {
        const auto [it, inserted] = lines.emplace(entry->value.name, entry->name->location().line);
        if (!inserted)
          m.errors().add(*entry->name, std::string("duplicate ") + what + " name " +
                                           quote_for_message(entry->value.name) +
                                           " (first used at line " + std::to_string(it->second) +
                                           ")");
      }
      keep(*entry);
    }
  });
  return given;
}

}  // namespace

WorkloadSpec read_workload(const ConfigNode& node, const WorkloadContext& ctx,
                           ConfigErrors& errors) {
  const ConfigFields m(node, {"jobs", "generators", "services"}, errors);
  WorkloadSpec w;
  size_t given = 0;                                  // entries written, readable or not
  std::vector<std::optional<ConfigNode>> job_names;  // parallel to w.jobs
  given += read_named_list<JobSpec>(
      m, "jobs", "job", [&](const ConfigNode& item) { return read_job(item, ctx, errors); },
      [&](Named<JobSpec>& job) {
        job_names.push_back(job.name);
        w.jobs.push_back(std::move(job.value));
      });
  given += read_named_list<PoissonGeneratorSpec>(
      m, "generators", "generator",
      [&](const ConfigNode& item) { return read_generator(item, ctx, errors); },
      [&](Named<PoissonGeneratorSpec>& g) { w.generators.push_back(std::move(g.value)); });
  std::set<std::string, std::less<>> generator_names;
  for (const PoissonGeneratorSpec& g : w.generators)
    if (!g.name.empty()) generator_names.insert(g.name);
  // Each job name is split once at its last '-' and looked up among the generators, so a file
  // of many jobs and many generators costs O(jobs · log generators), not their product.
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    const std::string& job = w.jobs[j].name;
    // Only the last '-' can be followed by digits alone.
    const size_t dash = job.rfind('-');
    if (!job_names[j] || dash == std::string::npos) continue;
    const auto g = generator_names.find(std::string_view(job).substr(0, dash));
    if (g == generator_names.end() || !looks_generated_by(job, *g)) continue;
    errors.add(*job_names[j], "job name " + quote_for_message(job) +
                                  " clashes with the jobs of generator " + quote_for_message(*g) +
                                  ", named " + *g + "-<index>");
  }
  if (const std::optional<ConfigNode> list = m.optional("services")) {
    const ServiceContext sctx{ctx.topology_ok ? &ctx.topology : nullptr, ctx.start};
    w.services = read_services(*list, sctx, errors);
    given += w.services.size();
  }
  // A list that is not a list is its own error; only written empty lists, or none, are this.
  const auto unreadable = [&](std::string_view key) {
    return m.has(key) && !m.optional(key)->is_sequence();
  };
  if (m.valid() && given == 0 && !unreadable("jobs") && !unreadable("generators") &&
      !unreadable("services"))
    errors.add(node, "the workload has no jobs, no generators and no services");
  int64_t total = static_cast<int64_t>(w.jobs.size());
  for (const PoissonGeneratorSpec& g : w.generators) total += g.count;
  if (total > kMaxJobs)
    errors.add(node, "the workload has " + std::to_string(total) +
                         " jobs (explicit and generated); at most " + std::to_string(kMaxJobs) +
                         " are simulated at once");
  return w;
}

}  // namespace gantry
