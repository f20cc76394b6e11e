// The objects of a service in the live world (adapters/kube/serving/serving_objects.hpp): each
// field of the Deployment and the Service, what the live scheduler and kubelet-sim read back
// from a pod made from the template, and the bodies against the v1.32 OpenAPI schemas.

#include "adapters/kube/serving/serving_objects.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "adapters/kube/model/kube_pod.hpp"
#include "engine/core/errors.hpp"
#include "tests/adapters/kube/serving/serving_test_support.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace {

using nlohmann::json;
using testing::chat_service;

// A pod as a controller makes it from the Deployment's template.
json pod_from(const json& deployment, const std::string& name) {
  const json& t = deployment["spec"]["template"];
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", deployment["metadata"]["namespace"]},
            {"uid", "uid-1"},
            {"labels", t["metadata"]["labels"]},
            {"annotations", t["metadata"]["annotations"]}}},
          {"spec", t["spec"]}};
}

TEST(ServingObjects, ADeploymentPerPredictorWithTheTrainingPodsSpellings) {
  const ServiceSpec s = chat_service();
  ServingObjectOptions o;
  o.namespace_name = "ml";
  const json d = deployment_body(s, s.predictors[0], 1, o);
  EXPECT_EQ(d["apiVersion"], "apps/v1");
  EXPECT_EQ(d["kind"], "Deployment");
  EXPECT_EQ(d["metadata"]["name"], "chat-v1");
  EXPECT_EQ(d["metadata"]["namespace"], "ml");
  const json labels = {{"app.kubernetes.io/managed-by", "gantry"},
                       {"app.kubernetes.io/component", "serving"},
                       {"gantry.dev/service", "chat"},
                       {"gantry.dev/predictor", "v1"}};
  EXPECT_EQ(d["metadata"]["labels"], labels);
  EXPECT_EQ(d["metadata"]["annotations"]["gantry.dev/traffic"], "90");
  EXPECT_EQ(d["spec"]["replicas"], 1);
  EXPECT_EQ(d["spec"]["selector"]["matchLabels"],
            (json{{"gantry.dev/service", "chat"}, {"gantry.dev/predictor", "v1"}}));
  const json& t = d["spec"]["template"];
  EXPECT_EQ(t["metadata"]["labels"], labels);
  const json& a = t["metadata"]["annotations"];
  EXPECT_EQ(a["gantry.dev/image-pull"], "40s");
  EXPECT_EQ(a["gantry.dev/model"], "llama-13b");
  EXPECT_EQ(a["gantry.dev/model-download"], "26s");  // 26 GB at the default 1 GB/s
  EXPECT_EQ(a["gantry.dev/model-cache"], "true");
  EXPECT_EQ(a["gantry.dev/model-load"], "25s");
  EXPECT_EQ(a["gantry.dev/max-batch"], "16");  // capacity A10
  EXPECT_EQ(a["prometheus.io/scrape"], "true");
  EXPECT_EQ(a["prometheus.io/port"], "9090");
  EXPECT_EQ(a["prometheus.io/path"], "/metrics");
  EXPECT_FALSE(a.contains("gantry.dev/gpu-milli"));
  const json& spec = t["spec"];
  EXPECT_EQ(spec["schedulerName"], "gantry");
  EXPECT_EQ(spec["nodeSelector"], (json{{"nvidia.com/gpu.product", "NVIDIA-A10"}}));
  ASSERT_EQ(spec["containers"].size(), 1u);
  const json& c = spec["containers"][0];
  EXPECT_EQ(c["name"], "server");
  EXPECT_EQ(c["image"], "llama-13b-server");  // no image: "<model>-server"
  EXPECT_EQ(c["resources"]["requests"],
            (json{{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(c["resources"]["limits"], (json{{"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(c["ports"], json::parse(R"([{"name":"http","containerPort":8080},
                                        {"name":"metrics","containerPort":9090}])"));
  EXPECT_EQ(c["readinessProbe"], json::parse(R"({"httpGet":{"path":"/health","port":"http"}})"));

  // The share: an annotation instead of nvidia.com/gpu, its own image and batch.
  const json d2 = deployment_body(s, s.predictors[1], 0, o);
  EXPECT_EQ(d2["metadata"]["name"], "chat-v2");
  EXPECT_EQ(d2["metadata"]["annotations"]["gantry.dev/traffic"], "10");
  EXPECT_EQ(d2["spec"]["replicas"], 0);
  const json& t2 = d2["spec"]["template"];
  EXPECT_EQ(t2["metadata"]["annotations"]["gantry.dev/gpu-milli"], "500");
  EXPECT_EQ(t2["metadata"]["annotations"]["gantry.dev/max-batch"], "8");  // A10@0.5
  EXPECT_EQ(t2["spec"]["containers"][0]["image"], "registry.example/llama-q:1");
  EXPECT_EQ(t2["spec"]["containers"][0]["resources"]["requests"],
            (json{{"cpu", "2"}, {"memory", "8Gi"}}));
  EXPECT_FALSE(t2["spec"]["containers"][0]["resources"].contains("limits"));
}

TEST(ServingObjects, AServiceSelectsThePredictorsPods) {
  const ServiceSpec s = chat_service();
  const json svc = service_body(s, s.predictors[1], ServingObjectOptions{});
  EXPECT_EQ(svc["apiVersion"], "v1");
  EXPECT_EQ(svc["kind"], "Service");
  EXPECT_EQ(svc["metadata"]["name"], "chat-v2");
  EXPECT_EQ(svc["metadata"]["namespace"], "default");
  EXPECT_EQ(svc["spec"]["selector"],
            (json{{"gantry.dev/service", "chat"}, {"gantry.dev/predictor", "v2"}}));
  EXPECT_EQ(svc["spec"]["ports"], json::parse(R"([{"name":"http","port":80,"targetPort":"http"},
      {"name":"metrics","port":9090,"targetPort":"metrics"}])"));
  EXPECT_EQ(replicas_patch(3), json::parse(R"({"spec":{"replicas":3}})"));
}

TEST(ServingObjects, APodOfTheTemplateReadsAsTheLiveWorldExpects) {
  const ServiceSpec s = chat_service();
  const json d = deployment_body(s, s.predictors[0], 1, ServingObjectOptions{});
  // What the live scheduler reads (model/kube_pod.hpp): a gang of one, one whole A10.
  const KubePod p = parse_pod(pod_from(d, "chat-v1-0"));
  EXPECT_EQ(p.scheduler_name, "gantry");
  EXPECT_EQ(p.request.gpus, 1);
  EXPECT_EQ(p.request.cpu_milli, 4000);
  EXPECT_EQ(p.request.memory_bytes, 16 * testing::kGi);
  EXPECT_EQ(p.node_selector.at("nvidia.com/gpu.product"), "NVIDIA-A10");
  EXPECT_EQ(p.gang, "");
  EXPECT_EQ(p.gang_size, 1);
  const KubePod half = parse_pod(pod_from(deployment_body(s, s.predictors[1], 1, {}), "x"));
  EXPECT_EQ(half.request.gpus, 0);
  EXPECT_EQ(half.request.gpu_milli, 500);
  // What kubelet-sim and LiveServing read.
  json object = pod_from(d, "chat-v1-0");
  object["status"] = json::parse(R"({"phase":"Running","podIP":"10.0.0.7",
      "conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]})");
  const ServingPod sp = parse_serving_pod(object);
  EXPECT_EQ(sp.service, "chat");
  EXPECT_EQ(sp.predictor, "v1");
  EXPECT_TRUE(sp.ready);
  EXPECT_TRUE(sp.live());
  EXPECT_EQ(sp.pod_ip, "10.0.0.7");
  EXPECT_EQ(sp.max_batch, 16);
  EXPECT_TRUE(sp.has_cold_start);
  EXPECT_EQ(sp.cold_start.image, "llama-13b-server");
  EXPECT_EQ(sp.cold_start.image_pull, seconds(40));
  EXPECT_EQ(sp.cold_start.model, "llama-13b");
  EXPECT_EQ(sp.cold_start.model_download, seconds(26));
  EXPECT_TRUE(sp.cold_start.model_cache);
  EXPECT_EQ(sp.cold_start.load, seconds(25));
  EXPECT_EQ(sp.cold_start.total(), seconds(91));
  object["status"]["conditions"][1]["status"] = "False";
  EXPECT_FALSE(parse_serving_pod(object).ready);
  object["status"]["phase"] = "Failed";
  EXPECT_FALSE(parse_serving_pod(object).live());

  const ServingDeployment sd = parse_serving_deployment(d);
  EXPECT_EQ(sd.key(), "default/chat-v1");
  EXPECT_EQ(sd.service, "chat");
  EXPECT_EQ(sd.predictor, "v1");
  EXPECT_EQ(sd.replicas, 1);
  EXPECT_EQ(sd.traffic, 90);
  EXPECT_EQ(sd.pod_template, d["spec"]["template"]);
}

TEST(ServingObjects, RefusesWhatItCannotRead) {
  const ServiceSpec s = chat_service();
  json object = pod_from(deployment_body(s, s.predictors[0], 1, {}), "chat-v1-0");
  object["metadata"]["annotations"]["gantry.dev/model-load"] = "soon";
  try {
    parse_serving_pod(object);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "Pod default/chat-v1-0");
    EXPECT_EQ(e.field(), "metadata.annotations.gantry.dev/model-load");
  }
  object = pod_from(deployment_body(s, s.predictors[0], 1, {}), "chat-v1-0");
  object["metadata"]["annotations"]["gantry.dev/max-batch"] = "0";
  EXPECT_THROW(parse_serving_pod(object), InputError);
  json d = deployment_body(s, s.predictors[0], 1, {});
  d["spec"]["replicas"] = -1;
  EXPECT_THROW(parse_serving_deployment(d), InputError);
  // A name that cannot be a Service's.
  ServiceSpec bad = s;
  bad.name = "Chat_Service";
  EXPECT_THROW(deployment_body(bad, bad.predictors[0], 1, {}), std::invalid_argument);
  bad.name = std::string(61, 'c');
  EXPECT_THROW(predictor_object_name(bad, bad.predictors[0]), std::invalid_argument);
}

TEST(ServingObjects, TrafficInitialReplicasAndContainment) {
  ServiceSpec s = chat_service();
  EXPECT_EQ(traffic_percents(s), (std::vector<int>{90, 10}));
  s.predictors[0].traffic = 1;
  s.predictors[1].traffic = 2;
  EXPECT_EQ(traffic_percents(s), (std::vector<int>{33, 67}));
  s.canary_percent = 12.5;  // KServe's canary: the last predictor, rounded half away → 13
  EXPECT_EQ(traffic_percents(s), (std::vector<int>{87, 13}));

  AutoscalerSpec a;
  a.kind = AutoscalerKind::kKpa;
  a.min_replicas = 0;
  a.max_replicas = 5;
  EXPECT_EQ(initial_replicas(a), 1);  // Knative's initial-scale 1
  a.min_replicas = 3;
  EXPECT_EQ(initial_replicas(a), 3);
  a.kind = AutoscalerKind::kHpa;
  a.min_replicas = 2;
  EXPECT_EQ(initial_replicas(a), 2);
  a.kind = AutoscalerKind::kNone;
  a.min_replicas = 0;
  EXPECT_EQ(initial_replicas(a), 0);

  // What the API server adds (defaults) is no difference; a changed or missing value is.
  const json ours = json::parse(R"({"spec":{"ports":[{"name":"http","port":80}],"x":1}})");
  const json stored = json::parse(
      R"({"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP"}],"x":1,"clusterIP":"10.0.0.1"}})");
  EXPECT_TRUE(json_contains(stored, ours));
  EXPECT_FALSE(json_contains(ours, stored));
  json changed = stored;
  changed["spec"]["x"] = 2;
  EXPECT_FALSE(json_contains(changed, ours));
  changed = stored;
  changed["spec"]["ports"].push_back(json{{"name", "extra"}});
  EXPECT_FALSE(json_contains(changed, ours));
}

// The bodies against the v1.32 OpenAPI schemas (tests/adapters/kube/validate_bodies.py). apps/v1
// is not among the documents (tests/data/k8s-openapi), so the Deployment is checked in parts:
// its pod template as a core/v1 PodTemplateSpec, its metadata as an ObjectMeta, its selector as a
// LabelSelector; the Service and the pod kubelet-sim makes from the template as they are.
TEST(ServingObjects, BodiesAreValidAgainstTheOpenApiSchemas) {
  testing::TempDir dir;
  const auto add = [&](const std::string& file, const std::string& schema, const json& body) {
    dir.write(file + ".json", json{{"schema", schema}, {"body", body}}.dump(2));
  };
  const ServiceSpec s = chat_service();
  for (size_t i = 0; i < s.predictors.size(); ++i) {
    const std::string n = std::to_string(i);
    const json d = deployment_body(s, s.predictors[i], 1, {});
    add("template-" + n, "io.k8s.api.core.v1.PodTemplateSpec", d["spec"]["template"]);
    add("metadata-" + n, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", d["metadata"]);
    add("selector-" + n, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        d["spec"]["selector"]);
    add("service-" + n, "io.k8s.api.core.v1.Service", service_body(s, s.predictors[i], {}));
    json pod = pod_from(d, "chat-v1-0");
    pod["metadata"].erase("uid");
    pod["metadata"]["ownerReferences"] = json::parse(
        R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"chat-v1","uid":"uid-3"}])");
    add("pod-" + n, "io.k8s.api.core.v1.Pod", pod);
  }
  const std::string out = dir.file("validator.out");
  const std::string command = "python3 " + std::string(GANTRY_SOURCE_DIR) +
                              "/tests/adapters/kube/validate_bodies.py " + testing::openapi_dir() +
                              " " + dir.path().string() + " > " + out + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string output = testing::read_text(out);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << output;
  for (const char* file : {"template-0", "template-1", "metadata-0", "selector-1", "service-0",
                           "service-1", "pod-0", "pod-1"})
    EXPECT_NE(output.find(std::string(file) + ".json: valid"), std::string::npos) << file << "\n"
                                                                                  << output;
}

}  // namespace
}  // namespace gantry::kube
