#include "adapters/kube/serving/serving_objects.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/model/object_fields.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"
#include "engine/policy/serving/traffic_split.hpp"

namespace gantry::kube {

namespace {

using json = nlohmann::json;

// The executor's too (executor/attempt_plan.hpp, kManagedByLabel), which this does not depend on.
constexpr std::string_view kManagedBy = "app.kubernetes.io/managed-by";

// RFC 1035 label: what a Service's name must be.
bool is_dns_1035_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  if (s.front() < 'a' || s.front() > 'z') return false;
  if (s.back() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::string memory_quantity(int64_t bytes) {
  for (const auto& [suffix, unit] :
       {std::pair{"Gi", int64_t{1} << 30}, std::pair{"Mi", int64_t{1} << 20},
        std::pair{"Ki", int64_t{1} << 10}}) {
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

json object_labels(const ServiceSpec& service, const PredictorSpec& predictor) {
  return {{std::string(kManagedBy), "gantry"},
          {std::string(kComponentLabel), std::string(kServingComponent)},
          {std::string(kServiceLabel), service.name},
          {std::string(kPredictorLabel), predictor.name}};
}

json selector_labels(const ServiceSpec& service, const PredictorSpec& predictor) {
  return {{std::string(kServiceLabel), service.name},
          {std::string(kPredictorLabel), predictor.name}};
}

std::string image_of(const PredictorSpec& p) {
  return p.image.empty() ? p.model + "-server" : p.image;
}

Duration download_time(const ModelDownloadSpec& d) {
  if (d.size_bytes <= 0 || d.bandwidth_bytes_per_second <= 0) return Duration(0);
  return Duration(static_cast<int64_t>(
      std::llround(1e6 * static_cast<double>(d.size_bytes) / d.bandwidth_bytes_per_second)));
}

}  // namespace

std::string predictor_object_name(const ServiceSpec& service, const PredictorSpec& predictor) {
  const std::string name = service.name + "-" + predictor.name;
  if (!is_dns_1035_label(name))
    throw std::invalid_argument("service " + service.name + ", predictor " + predictor.name +
                                ": '" + name +
                                "' is not a DNS-1035 label (lower-case letters, digits and '-', "
                                "starting with a letter, at most 63 characters), which a "
                                "Kubernetes Service name must be");
  return name;
}

std::vector<int> traffic_percents(const ServiceSpec& service) {
  const int n = static_cast<int>(service.predictors.size());
  if (n == 0) return {};
  if (service.canary_percent && n >= 2) return canary_split(n, *service.canary_percent);
  std::vector<double> weights;
  double total = 0;
  for (const PredictorSpec& p : service.predictors) {
    weights.push_back(p.traffic);
    total += p.traffic;
  }
  // A service of one predictor written without a weight takes all the traffic.
  if (total <= 0) weights.assign(weights.size(), 1.0);
  return split_traffic(weights);
}

int initial_replicas(const AutoscalerSpec& a) {
  const int initial = a.kind == AutoscalerKind::kKpa ? std::max(a.min_replicas, 1) : a.min_replicas;
  return std::min(initial, a.max_replicas);
}

nlohmann::json deployment_body(const ServiceSpec& service, const PredictorSpec& predictor,
                               int replicas, const ServingObjectOptions& o) {
  const std::string name = predictor_object_name(service, predictor);
  int traffic = 0;
  const std::vector<int> percents = traffic_percents(service);
  for (size_t i = 0; i < service.predictors.size(); ++i)
    if (&service.predictors[i] == &predictor || service.predictors[i].name == predictor.name)
      traffic = percents[i];

  const Resources& r = predictor.resources;
  json requests = json::object();
  json limits = json::object();
  if (r.cpu_milli > 0) requests["cpu"] = format_cpu_quantity(r.cpu_milli);
  if (r.memory_bytes > 0) requests["memory"] = memory_quantity(r.memory_bytes);
  if (r.gpus > 0) {
    // Extended resources need the limit too (and equal to the request).
    requests[std::string(kGpuResource)] = std::to_string(r.gpus);
    limits[std::string(kGpuResource)] = std::to_string(r.gpus);
  }
  json container = {
      {"name", "server"},
      {"image", image_of(predictor)},
      {"ports", json::array({{{"name", "http"}, {"containerPort", o.http_port}},
                             {{"name", "metrics"}, {"containerPort", o.metrics_port}}})},
      {"readinessProbe", {{"httpGet", {{"path", o.readiness_path}, {"port", "http"}}}}}};
  if (!requests.empty()) container["resources"]["requests"] = requests;
  if (!limits.empty()) container["resources"]["limits"] = limits;
  json pod_spec = {{"schedulerName", o.scheduler_name}, {"containers", json::array({container})}};
  if (o.termination_grace_seconds)
    pod_spec["terminationGracePeriodSeconds"] = *o.termination_grace_seconds;
  if (!predictor.gpu_type.empty())
    pod_spec["nodeSelector"] = {
        {std::string(kGpuProductLabel), gpu_product_label(predictor.gpu_type)}};

  const ColdStartSpec& cs = service.cold_start;
  json annotations = {
      {"prometheus.io/scrape", "true"},
      {"prometheus.io/port", std::to_string(o.metrics_port)},
      {"prometheus.io/path", o.metrics_path},
      {std::string(kImagePullAnnotation), format_duration_exact(cs.image_pull)},
      {std::string(kModelAnnotation), predictor.model},
      {std::string(kModelDownloadAnnotation),
       format_duration_exact(download_time(cs.model_download))},
      {std::string(kModelCacheAnnotation), cs.model_download.cache ? "true" : "false"},
      {std::string(kModelLoadAnnotation), format_duration_exact(cs.load)}};
  if (r.gpu_milli > 0) annotations[std::string(kGpuMilliAnnotation)] = std::to_string(r.gpu_milli);
  if (const ReplicaCapacity* c = service.capacity_for(predictor))
    annotations[std::string(kMaxBatchAnnotation)] = std::to_string(std::max(1, c->max_batch));

  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata",
           {{"name", name},
            {"namespace", o.namespace_name},
            {"labels", object_labels(service, predictor)},
            {"annotations", {{std::string(kTrafficAnnotation), std::to_string(traffic)}}}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", selector_labels(service, predictor)}}},
            {"template",
             {{"metadata",
               {{"labels", object_labels(service, predictor)}, {"annotations", annotations}}},
              {"spec", pod_spec}}}}}};
}

nlohmann::json service_body(const ServiceSpec& service, const PredictorSpec& predictor,
                            const ServingObjectOptions& o) {
  const std::string name = predictor_object_name(service, predictor);
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", name},
            {"namespace", o.namespace_name},
            {"labels", object_labels(service, predictor)}}},
          {"spec",
           {{"selector", selector_labels(service, predictor)},
            {"ports",
             json::array(
                 {{{"name", "http"}, {"port", 80}, {"targetPort", "http"}},
                  {{"name", "metrics"}, {"port", o.metrics_port}, {"targetPort", "metrics"}}})}}}};
}

nlohmann::json replicas_patch(int replicas) { return {{"spec", {{"replicas", replicas}}}}; }

// ---- reading back ----

ServingColdStart parse_cold_start(const Labels& annotations, const std::string& image,
                                  const std::string& object_label, bool* has) {
  ServingColdStart out;
  out.image = image;
  bool any = false;
  const auto duration = [&](std::string_view key) -> Duration {
    const auto it = annotations.find(std::string(key));
    if (it == annotations.end()) return Duration(0);
    any = true;
    const Result<Duration> d = parse_duration(it->second, days(1));
    if (!d.is_ok() || d.value() < Duration(0))
      throw InputError(SourceLocation{object_label}, "metadata.annotations." + std::string(key),
                       d.is_ok() ? "a negative duration" : d.error());
    return d.value();
  };
  out.image_pull = duration(kImagePullAnnotation);
  out.model_download = duration(kModelDownloadAnnotation);
  out.load = duration(kModelLoadAnnotation);
  if (const auto it = annotations.find(std::string(kModelAnnotation)); it != annotations.end()) {
    any = true;
    out.model = it->second;
  }
  if (const auto it = annotations.find(std::string(kModelCacheAnnotation));
      it != annotations.end()) {
    any = true;
    if (it->second != "true" && it->second != "false")
      throw InputError(SourceLocation{object_label},
                       "metadata.annotations." + std::string(kModelCacheAnnotation),
                       "'" + it->second + "': expected true or false");
    out.model_cache = it->second == "true";
  }
  if (has != nullptr) *has = any;
  return out;
}

namespace {

// What serving pods and Deployments share: name, namespace (default "default"), uid, and the
// service and predictor labels. Returns the annotations.
template <typename Object>
Labels read_serving_metadata(ObjectFields& f, Object& out) {
  out.name = f.name();
  out.namespace_name = f.string("metadata.namespace");
  if (out.namespace_name.empty()) out.namespace_name = "default";
  out.uid = f.string("metadata.uid");
  const Labels labels = f.string_map("metadata.labels");
  if (const auto it = labels.find(std::string(kServiceLabel)); it != labels.end())
    out.service = it->second;
  if (const auto it = labels.find(std::string(kPredictorLabel)); it != labels.end())
    out.predictor = it->second;
  return f.string_map("metadata.annotations");
}

}  // namespace

ServingPod parse_serving_pod(const nlohmann::json& pod) {
  ObjectFields f(pod, "Pod");
  ServingPod out;
  const Labels annotations = read_serving_metadata(f, out);
  out.node_name = f.string("spec.nodeName");
  out.phase = f.string("status.phase");
  out.pod_ip = f.string("status.podIP");
  out.deleting = !f.at("metadata.deletionTimestamp").is_null();
  const nlohmann::json& conditions = f.array("status.conditions");
  for (size_t i = 0; i < conditions.size(); ++i) {
    const std::string field = "status.conditions[" + std::to_string(i) + "]";
    if (!conditions[i].is_object()) f.fail(field, "expected a condition");
    if (f.member(conditions[i], "type", field) == "Ready")
      out.ready = f.member(conditions[i], "status", field) == "True";
  }
  if (const auto it = annotations.find(std::string(kMaxBatchAnnotation)); it != annotations.end()) {
    const Result<int64_t> v = parse_integer(it->second, 1, 1'000'000);
    if (!v.is_ok()) f.fail("metadata.annotations." + std::string(kMaxBatchAnnotation), v.error());
    out.max_batch = static_cast<int>(v.value());
  }
  const nlohmann::json& containers = f.array("spec.containers");
  std::string image;
  if (!containers.empty() && containers[0].is_object())
    image = f.member(containers[0], "image", "spec.containers[0]");
  out.cold_start = parse_cold_start(annotations, image, f.label(), &out.has_cold_start);
  return out;
}

ServingDeployment parse_serving_deployment(const nlohmann::json& deployment) {
  ObjectFields f(deployment, "Deployment");
  ServingDeployment out;
  const Labels annotations = read_serving_metadata(f, out);
  if (const std::optional<int64_t> r = f.integer("spec.replicas")) {
    if (*r < 0 || *r > 100'000) f.fail("spec.replicas", "expected 0 to 100000");
    out.replicas = static_cast<int>(*r);
  }
  out.generation = f.integer("metadata.generation").value_or(0);
  if (const auto it = annotations.find(std::string(kTrafficAnnotation)); it != annotations.end()) {
    const Result<double> v = parse_number(it->second, 0, 100);
    if (!v.is_ok()) f.fail("metadata.annotations." + std::string(kTrafficAnnotation), v.error());
    out.traffic = v.value();
  }
  const nlohmann::json& t = f.at("spec.template");
  if (!t.is_null() && !t.is_object()) f.fail("spec.template", "expected a pod template");
  out.pod_template = t.is_null() ? nlohmann::json::object() : t;
  return out;
}

bool json_contains(const nlohmann::json& whole, const nlohmann::json& part) {
  if (part.is_object()) {
    if (!whole.is_object()) return false;
    for (const auto& [k, v] : part.items()) {
      const auto it = whole.find(k);
      if (it == whole.end() || !json_contains(*it, v)) return false;
    }
    return true;
  }
  if (part.is_array()) {
    if (!whole.is_array() || whole.size() != part.size()) return false;
    for (size_t i = 0; i < part.size(); ++i)
      if (!json_contains(whole[i], part[i])) return false;
    return true;
  }
  return whole == part;
}

}  // namespace gantry::kube
