#pragma once
// The Kubernetes objects of an inference service in the live world (issue #14, "Live mode"),
// and what Gantry reads back from them. One Deployment (apps/v1) and one Service (v1) per
// predictor, both named `<service>-<predictor>`, in the live namespace:
//
//   Deployment  labels      app.kubernetes.io/managed-by=gantry, app.kubernetes.io/component=
//                           serving, gantry.dev/service, gantry.dev/predictor
//               annotation  gantry.dev/traffic: the predictor's share of the service's requests,
//                           whole percent (traffic_split.hpp: split_traffic or canary_split)
//               spec        replicas (the autoscaler's; see apply_deployment for updates),
//                           selector {gantry.dev/service, gantry.dev/predictor}, template:
//   pod template labels     the Deployment's four
//               annotations gantry.dev/gpu-milli (a share of one GPU: kube_pod.hpp),
//                           the cold start for kubelet-sim (below), gantry.dev/max-batch,
//                           prometheus.io/scrape "true", prometheus.io/port, prometheus.io/path
//               spec        schedulerName (the live scheduler's, "gantry"), nodeSelector
//                           nvidia.com/gpu.product when the predictor names a GPU type
//                           (gpu_product_label()), one container "server": the image
//                           (predictor.image, else "<model>-server"), requests cpu/memory and
//                           nvidia.com/gpu (requests and limits) for whole GPUs, ports
//                           http 8080 (readinessProbe GET /health) and metrics 9090
//   Service     the same labels; selector {gantry.dev/service, gantry.dev/predictor}; ports
//               http 80 → "http", metrics 9090 → "metrics"
//
// These are the spellings the training pods of the live adapter use (executor/attempt_plan.hpp,
// model/kube_pod.hpp), so the live scheduler places a serving pod like any other gang of one.
//
// Cold start (ColdStartSpec): kubelet-sim makes a serving pod Ready only after
//   gantry.dev/image-pull       the image pull ("40s"), skipped on a node that has the image
//   gantry.dev/model            the model's cache key (PredictorSpec::model)
//   gantry.dev/model-download   size / bandwidth ("26s"), skipped on a node that has the model
//   gantry.dev/model-cache      "true": the node keeps the model after the download
//   gantry.dev/model-load       loading into GPU memory ("25s")
// A real serving container ignores them: its readiness probe says when it is ready.
//
// Errors: the body builders throw std::invalid_argument when a name is not a DNS-1035 label
// (Service names must be); the readers throw InputError naming the object and the field
// (object_fields.hpp), and callers skip such objects.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/kube/model/kube_pod.hpp"
#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/service_spec.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

inline constexpr std::string_view kPredictorLabel = "gantry.dev/predictor";
inline constexpr std::string_view kComponentLabel = "app.kubernetes.io/component";
inline constexpr std::string_view kServingComponent = "serving";
// What the informers of serving objects select on (the fake API server and kube-apiserver both
// take an equality selector; an existence selector on gantry.dev/service would need more).
inline constexpr std::string_view kServingSelector = "app.kubernetes.io/component=serving";
inline constexpr std::string_view kTrafficAnnotation = "gantry.dev/traffic";
inline constexpr std::string_view kMaxBatchAnnotation = "gantry.dev/max-batch";
inline constexpr std::string_view kImagePullAnnotation = "gantry.dev/image-pull";
inline constexpr std::string_view kModelAnnotation = "gantry.dev/model";
inline constexpr std::string_view kModelDownloadAnnotation = "gantry.dev/model-download";
inline constexpr std::string_view kModelCacheAnnotation = "gantry.dev/model-cache";
inline constexpr std::string_view kModelLoadAnnotation = "gantry.dev/model-load";

struct ServingObjectOptions {
  std::string namespace_name = "default";
  std::string scheduler_name = "gantry";
  int http_port = 8080;     // the server's port; its readiness probe
  int metrics_port = 9090;  // where the pod serves Prometheus text (serving_metric_names.hpp)
  std::string readiness_path = "/health";
  std::string metrics_path = "/metrics";
  // The pods' terminationGracePeriodSeconds: how long a replica scaled in keeps its GPU while
  // it stops. Unset: the API server's default, 30 s.
  std::optional<int64_t> termination_grace_seconds;
};

// "<service>-<predictor>": the Deployment's and the Service's name.
std::string predictor_object_name(const ServiceSpec& service, const PredictorSpec& predictor);

// The predictor's traffic share in whole percent, in the order of service.predictors
// (canary_split when canary_percent is set, else split_traffic of the written weights).
std::vector<int> traffic_percents(const ServiceSpec& service);

// The Deployment of `predictor` (one of service.predictors) with `replicas`.
nlohmann::json deployment_body(const ServiceSpec& service, const PredictorSpec& predictor,
                               int replicas, const ServingObjectOptions& options);
// The Service in front of it.
nlohmann::json service_body(const ServiceSpec& service, const PredictorSpec& predictor,
                            const ServingObjectOptions& options);
// {"spec":{"replicas":n}}: the merge patch that scales a Deployment (see live_serving.hpp for
// why not the scale subresource).
nlohmann::json replicas_patch(int replicas);

// The initial replica count of a predictor's Deployment, as the simulator starts a service
// (sim/serving/service_run.hpp): KPA max(minReplicas, 1) (Knative's initial-scale 1), HPA and
// none minReplicas; at most maxReplicas.
int initial_replicas(const AutoscalerSpec& autoscaler);

// ---- reading back ----

// What a serving pod's annotations say about its cold start (above); zero durations when absent.
struct ServingColdStart {
  Duration image_pull;
  std::string image;  // the container's image (the image cache key)
  std::string model;
  Duration model_download;
  bool model_cache = false;
  Duration load;
  Duration total() const { return image_pull + model_download + load; }
};

// A pod of a serving Deployment.
struct ServingPod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string service;    // label gantry.dev/service
  std::string predictor;  // label gantry.dev/predictor
  std::string node_name;
  std::string phase;
  std::string pod_ip;  // status.podIP
  bool ready = false;  // status.conditions Ready True
  bool deleting = false;
  int max_batch = 1;  // gantry.dev/max-batch
  ServingColdStart cold_start;
  bool has_cold_start = false;  // any of the cold-start annotations is present
  std::string key() const { return namespace_name + "/" + name; }
  // Not ended and not being deleted: counts as a replica.
  bool live() const { return !deleting && phase != "Succeeded" && phase != "Failed"; }
};
// Throws InputError ("Pod ns/name", the field) for a malformed label, annotation or condition.
ServingPod parse_serving_pod(const nlohmann::json& pod);

// The cold-start annotations of a pod (above). `has` is set when any is present. Throws
// InputError naming `object_label` and the annotation for a malformed value.
ServingColdStart parse_cold_start(const Labels& annotations, const std::string& image,
                                  const std::string& object_label, bool* has = nullptr);

struct ServingDeployment {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string service;
  std::string predictor;
  int replicas = 1;  // spec.replicas (1 when absent, as the API server defaults it)
  int64_t generation = 0;
  double traffic = 0;           // gantry.dev/traffic, percent (0 when absent)
  nlohmann::json pod_template;  // spec.template
  std::string key() const { return namespace_name + "/" + name; }
};
ServingDeployment parse_serving_deployment(const nlohmann::json& deployment);

// Whether every field of `part` is in `whole` with the same value (objects: each member of
// `part` contained in the member of `whole`; arrays: the same length, element by element;
// other values: equal). How an update decides that the server's object, with its defaults
// filled in (protocol: TCP, imagePullPolicy, ...), already says what Gantry wants.
bool json_contains(const nlohmann::json& whole, const nlohmann::json& part);

}  // namespace gantry::kube
