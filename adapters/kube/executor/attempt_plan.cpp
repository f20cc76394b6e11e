#include "adapters/kube/executor/attempt_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "engine/cluster/job.hpp"
#include "engine/config/units.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

// FNV-1a, 64 bits: a stable hash for cut names (std::hash is not stable across builds).
uint64_t fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hash8(std::string_view text) {
  return fmt::format("{:08x}", static_cast<uint32_t>(fnv1a(text) ^ (fnv1a(text) >> 32)));
}

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Cuts `s` to `max` with '-' and a hash of `whole`, keeping `ok_end` at the end of the kept part.
template <typename OkEnd>
std::string cut(std::string s, size_t max, std::string_view whole, OkEnd ok_end) {
  if (s.size() <= max) return s;
  s.resize(max - 9);
  while (!s.empty() && !ok_end(s.back())) s.pop_back();
  return s + "-" + hash8(whole);
}

// The roles of `start_stage` 0 (engine/cluster/job.hpp) start first: the replica names of the
// operators mapped to the roles the simulator knows (as ClusterTaskExecutor maps them).
RoleKind role_kind(const std::string& name) {
  if (name == "ps") return RoleKind::kPS;
  if (name == "chief") return RoleKind::kChief;
  if (name == "master" || name == "head" || name == "driver") return RoleKind::kMaster;
  if (name == "launcher") return RoleKind::kLauncher;
  if (name == "evaluator") return RoleKind::kEvaluator;
  return RoleKind::kWorker;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

const char* container_name(TaskTemplate t) {
  switch (t) {
    case TaskTemplate::kTFJob:
      return "tensorflow";
    case TaskTemplate::kPyTorchJob:
      return "pytorch";
    case TaskTemplate::kMPIJob:
      return "mpi";
    case TaskTemplate::kXGBoostJob:
      return "xgboost";
    default:
      return "main";
  }
}

const char* template_name(TaskTemplate t) {
  switch (t) {
    case TaskTemplate::kRayJob:
      return "rayjob";
    case TaskTemplate::kSparkJob:
      return "sparkjob";
    default:
      return "?";
  }
}

// "2026-01-01T00:00:00Z" → "20260101T000000Z" (a valid label value).
std::string run_label(Time t) {
  std::string s;
  for (const char c : format_rfc3339(t))
    if (c != '-' && c != ':' && c != '+') s += c;
  return label_value(s);
}

json env_var(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

}  // namespace

std::string dns_label(std::string_view text, size_t max) {
  std::string s;
  for (const char c : text) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      s += l;
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  if (s.empty()) s = "x";
  return cut(std::move(s), max, text, [](char c) { return c != '-'; });
}

std::string label_value(std::string_view text) {
  std::string s;
  for (const char c : text) s += is_alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
  const auto first = std::find_if(s.begin(), s.end(), is_alnum);
  s.erase(s.begin(), first);
  while (!s.empty() && !is_alnum(s.back())) s.pop_back();
  return cut(std::move(s), 63, text, is_alnum);
}

std::string attempt_base_name(std::string_view pipeline, std::string_view task, Time logical_time,
                              AttemptId id) {
  std::string digits;
  for (const char c : format_rfc3339(logical_time))
    if (c >= '0' && c <= '9') digits += c;
  const std::string readable = fmt::format("{}-{}-{}-a{}", pipeline, task, digits, id);
  std::string s = dns_label(readable, 1000);
  if (s[0] >= '0' && s[0] <= '9') s = "g" + s;  // a Service name must start with a letter
  const std::string whole =
      fmt::format("{}\n{}\n{}\n{}", pipeline, task, format_rfc3339(logical_time), id);
  return cut(std::move(s), kMaxBaseName, whole, [](char c) { return c != '-'; });
}

std::string cpu_quantity(int64_t milli) { return format_cpu_milli(milli); }

std::string memory_quantity(int64_t bytes) {
  for (const auto& [suffix, unit] :
       {std::pair{"Gi", int64_t{1} << 30}, std::pair{"Mi", int64_t{1} << 20},
        std::pair{"Ki", int64_t{1} << 10}}) {
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

void set_owner(json& body, const std::string& owner_name, const std::string& owner_uid) {
  body["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", owner_name}, {"uid", owner_uid}}});
}

AttemptPlan plan_attempt(const AttemptRequest& r, const AttemptPlanOptions& o) {
  const PipelineSpec& pipeline = *r.pipeline;
  const TaskSpec& task = *r.task;
  AttemptPlan plan;
  plan.id = r.id;
  plan.namespace_name = o.namespace_name.empty() ? pipeline.namespace_name : o.namespace_name;
  if (plan.namespace_name.empty()) plan.namespace_name = "default";
  plan.base = attempt_base_name(pipeline.name, task.name, r.logical_time, r.id);
  const TaskTemplate kind = task.template_kind;
  const bool distributed = kind != TaskTemplate::kContainer;
  if (kind == TaskTemplate::kRayJob || kind == TaskTemplate::kSparkJob) {
    plan.refused =
        fmt::format("template {} is not supported by the Kubernetes executor", template_name(kind));
    return plan;
  }

  // Pods in start order: roles of stage 0 first, each pass in role-name order.
  struct Slot {
    std::string role;
    int index;
  };
  std::vector<Slot> slots;
  if (!distributed) {
    slots.push_back({"", 0});
  } else {
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& [role, replicas] : task.replicas) {
        if ((start_stage(role_kind(lower(role))) == 0) != (pass == 0)) continue;
        for (int i = 0; i < replicas; ++i) slots.push_back({role, i});
      }
    }
    if (slots.empty()) {
      plan.refused = "a distributed task with no replicas";
      return plan;
    }
  }
  const int n = static_cast<int>(slots.size());
  std::vector<std::string> pod_names;
  for (const Slot& s : slots)
    pod_names.push_back(distributed
                            ? fmt::format("{}-{}-{}", plan.base, dns_label(s.role, 12), s.index)
                            : plan.base);
  if (std::set<std::string>(pod_names.begin(), pod_names.end()).size() != pod_names.size()) {
    plan.refused =
        "two replica names give the same pod names (names differ only in case or "
        "punctuation, or are longer than 12 characters)";
    return plan;
  }
  const std::string& ns = plan.namespace_name;
  const std::string& base = plan.base;

  json labels = {{std::string(kManagedByLabel), std::string(kManagedByGantry)},
                 {std::string(kPipelineLabel), label_value(pipeline.name)},
                 {std::string(kRunLabel), run_label(r.logical_time)},
                 {std::string(kTaskLabel), label_value(task.name)},
                 {std::string(kAttemptIdLabel), std::to_string(r.id)},
                 {std::string(kAttemptLabel), std::to_string(r.attempt_index)},
                 {std::string(kGangLabel), base}};
  const json names = {{std::string(kPipelineNameAnnotation), pipeline.name},
                      {std::string(kTaskNameAnnotation), task.name},
                      {std::string(kLogicalTimeAnnotation), format_rfc3339(r.logical_time)}};

  const auto dns = [&](int i) { return fmt::format("{}.{}.{}.svc", pod_names[i], base, ns); };

  // The framework's port, and the owner's data.
  int port = 0;
  const char* port_name = "";
  if (kind == TaskTemplate::kTFJob) {
    port = o.tf_port;
    port_name = "tfjob-port";
  } else if (kind == TaskTemplate::kPyTorchJob) {
    port = o.pytorch_port;
    port_name = "pytorchjob-port";
  } else if (kind == TaskTemplate::kXGBoostJob) {
    port = o.xgboost_port;
    port_name = "xgboostjob-port";
  }
  json data = json::object();
  {
    std::string list;
    for (const std::string& p : pod_names) list += p + "\n";
    data["pods"] = list;
  }
  if (kind == TaskTemplate::kMPIJob) {
    const int slots_per_host = r.requests.gpus > 0 ? r.requests.gpus : 1;
    std::string hostfile;
    for (int i = 0; i < n; ++i)
      if (lower(slots[i].role) != "launcher")
        hostfile += fmt::format("{} slots={}\n", dns(i), slots_per_host);
    if (hostfile.empty())
      for (int i = 0; i < n; ++i) hostfile += fmt::format("{} slots={}\n", dns(i), slots_per_host);
    data["hostfile"] = hostfile;
  }
  plan.owner = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", {{"name", base}, {"namespace", ns}, {"labels", labels}, {"annotations", names}}},
      {"data", data}};

  if (distributed) {
    json spec = {{"clusterIP", "None"},
                 {"selector", {{std::string(kGangLabel), base}}},
                 {"publishNotReadyAddresses", true}};
    if (port > 0)
      spec["ports"] = json::array({{{"name", port_name}, {"port", port}, {"targetPort", port}}});
    plan.service = {{"apiVersion", "v1"},
                    {"kind", "Service"},
                    {"metadata", {{"name", base}, {"namespace", ns}, {"labels", labels}}},
                    {"spec", spec}};
  }

  // TF_CONFIG's cluster: every role but evaluators, addresses in replica order.
  json tf_cluster = json::object();
  if (kind == TaskTemplate::kTFJob) {
    for (int i = 0; i < n; ++i) {
      const std::string role = lower(slots[i].role);
      if (role == "evaluator") continue;
      tf_cluster[role].push_back(fmt::format("{}:{}", dns(i), port));
    }
  }

  // What every pod shares.
  json requests = json::object();
  json limits = json::object();
  if (r.requests.cpu_milli > 0) requests["cpu"] = cpu_quantity(r.requests.cpu_milli);
  if (r.requests.memory_bytes > 0) requests["memory"] = memory_quantity(r.requests.memory_bytes);
  if (r.requests.gpus > 0) {
    requests[std::string(kGpuResource)] = std::to_string(r.requests.gpus);
    limits[std::string(kGpuResource)] = std::to_string(r.requests.gpus);
  }
  json pod_annotations = names;
  pod_annotations[std::string(kGangSizeAnnotation)] = std::to_string(n);
  if (r.requests.gpu_milli > 0)
    pod_annotations[std::string(kGpuMilliAnnotation)] = std::to_string(r.requests.gpu_milli);
  pod_annotations[std::string(kSimulateDurationAnnotation)] =
      format_duration_exact(task.simulate.duration);
  if (!task.simulate.outcomes.empty())
    pod_annotations[std::string(kSimulateOutcomeAnnotation)] =
        task.simulate.outcomes[std::min(r.attempt_index, task.simulate.outcomes.size() - 1)];

  for (int i = 0; i < n; ++i) {
    const Slot& s = slots[i];
    std::vector<std::pair<std::string, std::string>> framework;
    if (kind == TaskTemplate::kTFJob) {
      const json tf_config = {{"cluster", tf_cluster},
                              {"task", {{"type", lower(s.role)}, {"index", s.index}}},
                              {"environment", "cloud"}};
      framework.emplace_back("TF_CONFIG", tf_config.dump());
    } else if (kind == TaskTemplate::kPyTorchJob || kind == TaskTemplate::kXGBoostJob) {
      framework.emplace_back("MASTER_ADDR", dns(0));
      framework.emplace_back("MASTER_PORT", std::to_string(port));
      framework.emplace_back("WORLD_SIZE", std::to_string(n));
      framework.emplace_back("RANK", std::to_string(i));
    } else if (kind == TaskTemplate::kMPIJob) {
      framework.emplace_back("OMPI_MCA_orte_default_hostfile", o.mpi_hostfile_dir + "/hostfile");
    }
    std::set<std::string> taken;
    json env = json::array();
    const auto add = [&](const std::string& name, const std::string& value) {
      if (taken.insert(name).second) env.push_back(env_var(name, value));
    };
    for (const auto& [name, value] : framework) taken.insert(name);
    add("GANTRY_PIPELINE", pipeline.name);
    add("GANTRY_TASK", task.name);
    add("GANTRY_LOGICAL_TIME", format_rfc3339(r.logical_time));
    add("GANTRY_ATTEMPT", std::to_string(r.attempt_index));
    add("GANTRY_ATTEMPT_ID", std::to_string(r.id));
    for (const auto& [name, value] : pipeline.env) add(name, value);
    for (const auto& [name, value] : param_env(r.params)) add(name, value);
    for (const auto& [name, value] : framework) env.push_back(env_var(name, value));

    json container = {{"name", container_name(kind)},
                      {"image", task.image.empty() ? o.default_image : task.image},
                      {"env", env}};
    if (!task.command.empty()) container["command"] = task.command;
    if (!requests.empty()) {
      container["resources"]["requests"] = requests;
      if (!limits.empty()) container["resources"]["limits"] = limits;
    }
    if (port > 0)
      container["ports"] = json::array({{{"name", port_name}, {"containerPort", port}}});

    json spec = {{"schedulerName", o.scheduler_name}, {"restartPolicy", "Never"}};
    if (distributed) {
      spec["hostname"] = pod_names[i];
      spec["subdomain"] = base;
    }
    if (!task.gpu_type.empty())
      spec["nodeSelector"] = {{std::string(kGpuProductLabel), gpu_product_label(task.gpu_type)}};
    if (kind == TaskTemplate::kMPIJob) {
      container["volumeMounts"] = json::array(
          {{{"name", "mpi-hostfile"}, {"mountPath", o.mpi_hostfile_dir}, {"readOnly", true}}});
      spec["volumes"] = json::array(
          {{{"name", "mpi-hostfile"},
            {"configMap",
             {{"name", base},
              {"items", json::array({{{"key", "hostfile"}, {"path", "hostfile"}}})}}}}});
    }
    spec["containers"] = json::array({container});

    json pod_labels = labels;
    if (!o.queue.empty()) pod_labels[std::string(kQueueLabel)] = o.queue;
    json annotations = pod_annotations;
    annotations[std::string(kGangIndexAnnotation)] = std::to_string(i);
    if (distributed) {
      pod_labels[std::string(kReplicaTypeLabel)] = label_value(lower(s.role));
      pod_labels[std::string(kReplicaIndexLabel)] = std::to_string(s.index);
    }
    PlannedPod pod;
    pod.name = pod_names[i];
    pod.role = s.role;
    pod.replica_index = s.index;
    pod.gang_index = i;
    pod.body = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", pod.name},
                  {"namespace", ns},
                  {"labels", pod_labels},
                  {"annotations", annotations}}},
                {"spec", spec}};
    plan.pods.push_back(std::move(pod));
  }
  return plan;
}

}  // namespace gantry::kube
