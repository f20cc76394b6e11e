#include "adapters/kube/model/kube_pod.hpp"

#include <algorithm>
#include <charconv>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/object_fields.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "engine/config/units.hpp"

namespace gantry::kube {

namespace {

// What one container asks for: requests, or limits where a request is missing.
Resources container_request(const ObjectFields& f, const nlohmann::json& c,
                            const std::string& field) {
  Resources r;
  if (!c.is_object()) f.fail(field, "expected a container");
  const auto value = [&](const char* key, int64_t scale) -> int64_t {
    const std::string base = field + ".resources";
    for (const char* kind : {"requests", "limits"}) {
      const auto res = c.find("resources");
      if (res == c.end() || !res->is_object()) return 0;
      const auto list = res->find(kind);
      if (list == res->end() || list->is_null()) continue;
      if (!list->is_object()) f.fail(base + "." + kind, "expected a map of quantities");
      const auto q = list->find(key);
      if (q != list->end()) return f.quantity_of(*q, base + "." + kind + "." + key, scale);
    }
    return 0;
  };
  r.cpu_milli = value("cpu", 1000);
  r.memory_bytes = value("memory", 1);
  const int64_t gpus = value(std::string(kGpuResource).c_str(), 1);
  if (gpus > 64) f.fail(field + ".resources", "more than 64 GPUs");
  r.gpus = static_cast<int32_t>(gpus);
  return r;
}

Resources max_of(const Resources& a, const Resources& b) {
  return Resources{std::max(a.cpu_milli, b.cpu_milli), std::max(a.memory_bytes, b.memory_bytes),
                   std::max(a.gpus, b.gpus), 0};
}

int64_t parse_count(const ObjectFields& f, const std::string& text, const std::string& field,
                    int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    f.fail(field, "'" + text + "': expected a whole number from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
  return v;
}

constexpr int64_t kMaxReplicas = 100'000;
constexpr Duration kMaxResizeCost = days(1);

template <typename Annotation>
void read_elastic(const ObjectFields& f, KubePod& out, const Annotation& annotation) {
  const std::string prefix = "metadata.annotations.";
  const auto field = [&](std::string_view key) { return prefix + std::string(key); };
  const std::string min = annotation(kElasticMinAnnotation);
  const std::string max = annotation(kElasticMaxAnnotation);
  const std::string step = annotation(kElasticStepAnnotation);
  const std::string cost = annotation(kResizeCostAnnotation);
  if (!min.empty() || !max.empty()) {
    if (max.empty())
      f.fail(field(kElasticMaxAnnotation),
             "missing: " + std::string(kElasticMinAnnotation) + " needs it");
    if (min.empty())
      f.fail(field(kElasticMinAnnotation),
             "missing: " + std::string(kElasticMaxAnnotation) + " needs it");
    out.elastic.min_replicas =
        static_cast<int>(parse_count(f, min, field(kElasticMinAnnotation), 1, kMaxReplicas));
    out.elastic.max_replicas =
        static_cast<int>(parse_count(f, max, field(kElasticMaxAnnotation), 1, kMaxReplicas));
    if (out.elastic.min_replicas > out.elastic.max_replicas)
      f.fail(field(kElasticMinAnnotation),
             "'" + min + "' is more than " + std::string(kElasticMaxAnnotation) + " '" + max + "'");
  } else if (!step.empty() || !cost.empty()) {
    f.fail(field(step.empty() ? kResizeCostAnnotation : kElasticStepAnnotation),
           "applies to an elastic gang: set " + std::string(kElasticMinAnnotation) + " and " +
               std::string(kElasticMaxAnnotation) + " too");
  }
  if (!step.empty())
    out.elastic.scale_step =
        static_cast<int>(parse_count(f, step, field(kElasticStepAnnotation), 1, kMaxReplicas));
  if (!cost.empty()) {
    const Result<Duration> d = parse_duration(cost);
    if (!d.is_ok()) f.fail(field(kResizeCostAnnotation), d.error());
    if (d.value() < Duration(0) || d.value() > kMaxResizeCost)
      f.fail(field(kResizeCostAnnotation), "'" + cost + "': expected 0s to 1d");
    out.elastic.resize_cost = d.value();
  }
  if (const std::string p = annotation(kRestartPolicyAnnotation); !p.empty()) {
    if (p == "Never") {
      out.restart_policy = RestartPolicy::kNever;
    } else if (p == "OnFailure") {
      out.restart_policy = RestartPolicy::kOnFailure;
    } else if (p == "ExitCode") {
      out.restart_policy = RestartPolicy::kExitCode;
    } else {
      f.fail(field(kRestartPolicyAnnotation), "'" + p + "': expected Never, OnFailure or ExitCode");
    }
  }
}

}  // namespace

KubePod parse_pod(const nlohmann::json& pod) {
  ObjectFields f(pod, "Pod");
  KubePod out;
  out.name = f.name();
  out.namespace_name = f.string("metadata.namespace");
  if (out.namespace_name.empty()) out.namespace_name = "default";
  out.uid = f.string("metadata.uid");
  out.resource_version = f.string("metadata.resourceVersion");
  out.labels = f.string_map("metadata.labels");
  out.annotations = f.string_map("metadata.annotations");
  out.deleting = !f.at("metadata.deletionTimestamp").is_null();
  out.deletion_grace_seconds = f.integer("metadata.deletionGracePeriodSeconds");
  out.termination_grace_seconds = f.integer("spec.terminationGracePeriodSeconds");
  out.scheduler_name = f.string("spec.schedulerName");
  if (out.scheduler_name.empty()) out.scheduler_name = std::string(kDefaultScheduler);
  out.node_name = f.string("spec.nodeName");
  out.phase = f.string("status.phase");
  out.status_reason = f.string("status.reason");
  if (const std::optional<int64_t> p = f.integer("spec.priority")) {
    if (*p < INT32_MIN || *p > INT32_MAX) f.fail("spec.priority", "out of the int32 range");
    out.priority = static_cast<int32_t>(*p);
  }
  out.node_selector = f.string_map("spec.nodeSelector");
  out.tolerations = f.tolerations("spec.tolerations");

  // Effective request: max(sum of containers, largest init container) + overhead.
  Resources sum;
  const nlohmann::json& containers = f.array("spec.containers");
  for (size_t i = 0; i < containers.size(); ++i)
    sum += container_request(f, containers[i], "spec.containers[" + std::to_string(i) + "]");
  Resources init;
  const nlohmann::json& inits = f.array("spec.initContainers");
  for (size_t i = 0; i < inits.size(); ++i)
    init = max_of(init,
                  container_request(f, inits[i], "spec.initContainers[" + std::to_string(i) + "]"));
  out.request = max_of(sum, init);
  out.request.cpu_milli += f.quantity("spec.overhead", "cpu", 1000);
  out.request.memory_bytes += f.quantity("spec.overhead", "memory", 1);

  const auto annotation = [&](std::string_view key) -> std::string {
    const auto it = out.annotations.find(std::string(key));
    return it == out.annotations.end() ? std::string() : it->second;
  };
  const std::string field_prefix = "metadata.annotations.";
  if (const std::string milli = annotation(kGpuMilliAnnotation); !milli.empty()) {
    const std::string field = field_prefix + std::string(kGpuMilliAnnotation);
    if (out.request.gpus > 0)
      f.fail(field, "a GPU share and nvidia.com/gpu in one pod: ask for one or the other");
    const int64_t m = parse_count(f, milli, field, 1, kMilliPerGpu);
    // A share of 1000 is a whole GPU: one spelling per request (resources.hpp).
    if (m == kMilliPerGpu) {
      out.request.gpus = 1;
    } else {
      out.request.gpu_milli = static_cast<int32_t>(m);
    }
  }
  if (const std::string mem = annotation(kGpuMemAnnotation); !mem.empty()) {
    const std::optional<int64_t> bytes = parse_bytes(mem);
    if (!bytes)
      f.fail(field_prefix + std::string(kGpuMemAnnotation), "'" + mem + "' is not a quantity");
    out.gpu_memory_bytes = *bytes;
  }
  if (const std::string index = annotation(kGpuIndexAnnotation); !index.empty()) {
    const std::string field = field_prefix + std::string(kGpuIndexAnnotation);
    size_t start = 0;
    while (start <= index.size()) {
      const size_t comma = std::min(index.find(',', start), index.size());
      out.gpu_index.push_back(
          static_cast<int>(parse_count(f, index.substr(start, comma - start), field, 0, 63)));
      start = comma + 1;
    }
  }
  if (const std::string d = annotation(kSimulateDurationAnnotation); !d.empty()) {
    const Result<Duration> duration = parse_duration(d);
    if (!duration.is_ok())
      f.fail(field_prefix + std::string(kSimulateDurationAnnotation), duration.error());
    out.simulate_duration = duration.value();
  }

  read_elastic(f, out, annotation);

  const nlohmann::json& owners = f.array("metadata.ownerReferences");
  for (size_t i = 0; i < owners.size(); ++i) {
    const std::string field = "metadata.ownerReferences[" + std::to_string(i) + "]";
    if (!owners[i].is_object()) f.fail(field, "expected an owner reference");
    const auto controller = owners[i].find("controller");
    if (controller == owners[i].end() || !controller->is_boolean() || !controller->get<bool>())
      continue;
    out.controller =
        OwnerReference{f.member(owners[i], "kind", field), f.member(owners[i], "name", field),
                       f.member(owners[i], "uid", field)};
  }
  if (const auto it = out.labels.find(std::string(kGangLabel)); it != out.labels.end()) {
    out.gang = it->second;
    const std::string size = annotation(kGangSizeAnnotation);
    out.gang_size =
        size.empty() ? 0
                     : static_cast<int32_t>(parse_count(
                           f, size, field_prefix + std::string(kGangSizeAnnotation), 1, 100'000));
  } else if (out.controller && !out.labels.contains(std::string(kServiceLabel))) {
    out.gang = "owner:" + out.controller->uid;
    out.gang_size = 0;
  }

  if (const auto it = out.labels.find(std::string(kQueueLabel)); it != out.labels.end())
    out.queue = it->second;

  const nlohmann::json& statuses = f.array("status.containerStatuses");
  for (size_t i = 0; i < statuses.size() && !out.exit_code; ++i) {
    const std::string field = "status.containerStatuses[" + std::to_string(i) + "]";
    const nlohmann::json& terminated = f.member_object(statuses[i], "state", field);
    const nlohmann::json& t = f.member_object(terminated, "terminated", field + ".state");
    if (t.is_null()) continue;
    const std::string tfield = field + ".state.terminated";
    const auto code = t.find("exitCode");
    if (code == t.end() || !code->is_number_integer() || *code < INT32_MIN || *code > INT32_MAX)
      f.fail(tfield + ".exitCode", "expected an integer exit code");
    out.exit_code = code->get<int32_t>();
    out.termination_reason = f.member(t, "reason", tfield);
  }
  return out;
}

}  // namespace gantry::kube
