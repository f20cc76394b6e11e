// Inference services (sim/serving/service_loader.hpp): parsed values, defaults, and every
// check's message with its line and column counted in the text below.

#include "sim/serving/service_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The file name errors carry; its folder (scenarios/) is where trace files are resolved from, so
// `data/azure-llm/code.csv` is the shipped trace.
const std::string kFile = std::string(GANTRY_SOURCE_DIR) + "/scenarios/service-test.yaml";
const std::string kCodeTrace =
    std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm/code.csv";

// Class a10x4 (4 A10 GPUs, 64 cores, 512 GiB) and cpu; the default catalog (A10, H100-80G...).
Topology make_topology() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass a10;
  a10.name = "a10x4";
  a10.capacity = Resources{64'000, 512ll << 30, 4};
  a10.gpu_type = t.gpus.find("A10");
  a10.island_size = 4;
  NodeClass cpu;
  cpu.name = "cpu";
  cpu.capacity = Resources{64'000, 256ll << 30, 0};
  t.classes = {a10, cpu};
  t.racks = {"r0"};
  return t;
}

// Tests replace one line by one line, so the line numbers hold.
// clang-format off
const std::string kBase =
    "spec:\n"                                                                          // 1
    "  workload:\n"                                                                    // 2
    "    services:\n"                                                                  // 3
    "    - name: chat\n"                                                               // 4
    "      start: 10m\n"                                                               // 5
    "      predictors:\n"                                                              // 6
    "      - name: v1\n"                                                               // 7
    "        model: llama-13b\n"                                                       // 8
    "        traffic: 90\n"                                                            // 9
    "        resources: {gpu: 1, gpuType: A10, cpu: \"8\", memory: 32Gi}\n"            // 10
    "        image: vllm/vllm-openai:v0.6\n"                                           // 11
    "      - name: v2\n"                                                               // 12
    "        model: llama-13b-q\n"                                                     // 13
    "        traffic: 10\n"                                                            // 14
    "        resources: {gpu: \"0.5\", gpuType: a10}\n"                                // 15
    "      capacity:\n"                                                                // 16
    "        A10: {tokensPerSecond: 2400, maxBatch: 16, prefillTokensPerSecond: 30000}\n"  // 17
    "        \"A10@0.50\": {tokensPerSecond: 1100, maxBatch: 8}\n"                     // 18
    "      coldStart:\n"                                                               // 19
    "        imagePull: 40s\n"                                                         // 20
    "        modelDownload: {size: 26GB, cache: true, bandwidth: 10Gbps}\n"            // 21
    "        load: 25s\n"                                                              // 22
    "        prefetch: 2\n"                                                            // 23
    "      autoscaler:\n"                                                              // 24
    "        kind: KPA\n"                                                              // 25
    "        minReplicas: 0\n"                                                         // 26
    "        maxReplicas: 40\n"                                                        // 27
    "        target: {concurrency: 70, utilization: \"70%\"}\n"                        // 28
    "        stableWindow: 120s\n"                                                     // 29
    "        panicThresholdPercentage: 300\n"                                          // 30
    "        maxScaleDownRate: 4\n"                                                    // 31
    "        maxScaleUpRate: 10\n"                                                     // 32
    "        scaleToZeroGracePeriod: 45s\n"                                            // 33
    "      slo: {p99Latency: 2s}\n"                                                    // 34
    "      load:\n"                                                                    // 35
    "        trace: {format: azure-llm-2023, file: data/azure-llm/code.csv, loop: false, speedup: 2}\n"  // 36
    "    - name: batch\n"                                                              // 37
    "      predictors:\n"                                                              // 38
    "      - {name: main, model: llama-70b, resources: {gpu: 2}}\n"                    // 39
    "      capacity: {H100-80Gx2: {tokensPerSecond: 5000, maxBatch: 32}}\n"            // 40
    "      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, averageValue: \"500m\"}}\n"  // 41
    "      load: {poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}\n"       // 42
    "      slo: {p99Latency: 5s}\n";                                                   // 43
// clang-format on

std::string with(const std::string& from, const std::string& to) {
  return testing::replace_first(kBase, from, to);
}

struct Loaded {
  std::vector<ServiceSpec> services;
  std::vector<std::string> errors;  // "file:line:col: path: message", the file name cut off
};

Loaded load(const std::string& text, bool with_cluster = true) {
  const Topology topology = make_topology();
  const ConfigNode root = parse_yaml_document(text, kFile);
  const ConfigNode spec = ConfigMap(root, {"spec"}).required("spec");
  const ConfigNode workload = ConfigMap(spec, {"workload"}).required("workload");
  const ConfigNode list = ConfigMap(workload, {"services"}).required("services");
  ConfigErrors errors;
  Loaded out;
  const ServiceContext ctx{with_cluster ? &topology : nullptr, Time()};
  out.services = read_services(list, ctx, errors);
  for (const InputError& e : errors.take()) {
    std::string what = e.what();
    EXPECT_THAT(what, StartsWith(kFile + ":"));
    out.errors.push_back(what.substr(std::min(what.size(), kFile.size() + 1)));
  }
  return out;
}

// The one error of `text`, without the file name: "line:col: path: message".
std::string error_of(const std::string& text, bool with_cluster = true) {
  const Loaded l = load(text, with_cluster);
  EXPECT_EQ(l.errors.size(), 1u) << ::testing::PrintToString(l.errors);
  return l.errors.empty() ? "" : l.errors[0];
}

// ---- values ----

TEST(ServiceLoader, ReadsEveryKey) {
  const Loaded l = load(kBase);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  ASSERT_EQ(l.services.size(), 2u);
  const ServiceSpec& s = l.services[0];
  EXPECT_EQ(s.name, "chat");
  EXPECT_EQ(s.start, minutes(10));
  ASSERT_EQ(s.predictors.size(), 2u);
  const PredictorSpec& v1 = s.predictors[0];
  EXPECT_EQ(v1.name, "v1");
  EXPECT_EQ(v1.model, "llama-13b");
  EXPECT_EQ(v1.traffic, 90);
  EXPECT_EQ(v1.resources.gpus, 1);
  EXPECT_EQ(v1.resources.gpu_milli, 0);
  EXPECT_EQ(v1.resources.cpu_milli, 8000);
  EXPECT_EQ(v1.resources.memory_bytes, 32ll << 30);
  EXPECT_EQ(v1.gpu_type, "A10");
  EXPECT_EQ(v1.image, "vllm/vllm-openai:v0.6");
  const PredictorSpec& v2 = s.predictors[1];
  EXPECT_EQ(v2.traffic, 10);
  EXPECT_EQ(v2.resources.gpus, 0);
  EXPECT_EQ(v2.resources.gpu_milli, 500);  // "0.5"
  EXPECT_EQ(v2.gpu_type, "A10");           // written a10: the catalog's spelling
  EXPECT_EQ(v2.image, "");
  ASSERT_EQ(s.capacity.size(), 2u);
  EXPECT_EQ(s.capacity[0].key, "A10");
  EXPECT_EQ(s.capacity[0].tokens_per_second, 2400);
  EXPECT_EQ(s.capacity[0].max_batch, 16);
  EXPECT_EQ(s.capacity[0].prefill_tokens_per_second, 30000);
  EXPECT_EQ(s.capacity[1].key, "A10@0.5");  // written "A10@0.50"
  EXPECT_EQ(s.capacity[1].tokens_per_second, 1100);
  EXPECT_EQ(s.capacity[1].max_batch, 8);
  EXPECT_EQ(s.capacity[1].prefill_tokens_per_second, 0);  // the default, 10 × decode
  EXPECT_EQ(s.cold_start.image_pull, seconds(40));
  EXPECT_EQ(s.cold_start.model_download.size_bytes, 26'000'000'000);  // 26GB, decimal
  EXPECT_TRUE(s.cold_start.model_download.cache);
  EXPECT_EQ(s.cold_start.model_download.bandwidth_bytes_per_second, 1.25e9);  // 10 Gbit/s / 8
  EXPECT_EQ(s.cold_start.load, seconds(25));
  EXPECT_EQ(s.cold_start.prefetch_nodes, 2);
  const AutoscalerSpec& a = s.autoscaler;
  EXPECT_EQ(a.kind, AutoscalerKind::kKpa);
  EXPECT_EQ(a.min_replicas, 0);
  EXPECT_EQ(a.max_replicas, 40);
  EXPECT_EQ(a.target_concurrency, 70);
  EXPECT_EQ(a.target_utilization_percent, 70);
  EXPECT_EQ(a.stable_window, seconds(120));
  EXPECT_EQ(a.panic_window, seconds(12));  // Knative's 10 % of the stable window
  EXPECT_EQ(a.panic_threshold, 3.0);       // 300 %
  EXPECT_EQ(a.max_scale_down_rate, 4);
  EXPECT_EQ(a.max_scale_up_rate, 10);
  EXPECT_EQ(a.scale_to_zero_grace, seconds(45));
  EXPECT_EQ(s.slo.p99_latency, seconds(2));
  EXPECT_EQ(s.load.kind, LoadKind::kTrace);
  EXPECT_EQ(s.load.trace_format, "azure-llm-2023");
  EXPECT_EQ(s.load.trace_file, kCodeTrace);
  EXPECT_FALSE(s.load.loop);
  EXPECT_EQ(s.load.speedup, 2);
  EXPECT_FALSE(s.canary_percent.has_value());

  const ServiceSpec& b = l.services[1];
  EXPECT_EQ(b.name, "batch");
  ASSERT_EQ(b.predictors.size(), 1u);
  EXPECT_EQ(b.predictors[0].traffic, 100);  // the one predictor takes every request
  EXPECT_EQ(b.predictors[0].resources.gpus, 2);
  EXPECT_EQ(b.predictors[0].gpu_type, "");
  ASSERT_EQ(b.capacity.size(), 1u);
  EXPECT_EQ(b.capacity[0].key, "H100-80Gx2");  // a replica on 2 whole GPUs
  EXPECT_EQ(b.autoscaler.kind, AutoscalerKind::kHpa);
  EXPECT_EQ(b.autoscaler.min_replicas, 1);  // KServe's default
  EXPECT_EQ(b.autoscaler.max_replicas, 8);
  EXPECT_EQ(b.autoscaler.hpa_metric, HpaMetric::kQps);
  EXPECT_EQ(b.autoscaler.target_qps, 0.5);  // "500m"
  EXPECT_EQ(b.load.kind, LoadKind::kPoisson);
  EXPECT_EQ(b.load.qps, 50);
  EXPECT_EQ(b.load.prefill_tokens, 1024);
  EXPECT_EQ(b.load.decode_tokens, 256);
  EXPECT_EQ(b.slo.p99_latency, seconds(5));
}

TEST(ServiceLoader, Defaults) {
  const std::string text =
      "spec:\n"
      "  workload:\n"
      "    services:\n"
      "    - name: small\n"
      "      predictors: [{name: v1, model: m, resources: {gpu: 1}}]\n"
      "      capacity: {T4: {tokensPerSecond: 500, maxBatch: 4}}\n"
      "      autoscaler: {kind: KPA, maxReplicas: 3}\n"
      "      load: {poisson: {qps: 5}}\n";
  const Loaded l = load(text, false);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  const ServiceSpec& s = l.services.at(0);
  EXPECT_EQ(s.start, Duration(0));
  EXPECT_EQ(s.predictors[0].traffic, 100);
  EXPECT_EQ(s.predictors[0].resources.cpu_milli, 0);
  EXPECT_EQ(s.predictors[0].resources.memory_bytes, 0);
  // Cold start: nothing to pull, download or load.
  EXPECT_EQ(s.cold_start.image_pull, Duration(0));
  EXPECT_EQ(s.cold_start.model_download.size_bytes, 0);
  EXPECT_FALSE(s.cold_start.model_download.cache);
  EXPECT_EQ(s.cold_start.model_download.bandwidth_bytes_per_second, 1e9);
  EXPECT_EQ(s.cold_start.load, Duration(0));
  EXPECT_EQ(s.cold_start.prefetch_nodes, 0);
  // Knative's defaults (config-autoscaler), Gantry's utilization of 100 %.
  const AutoscalerSpec& a = s.autoscaler;
  EXPECT_EQ(a.min_replicas, 1);
  EXPECT_EQ(a.target_concurrency, 100);
  EXPECT_EQ(a.target_utilization_percent, 100);
  EXPECT_EQ(a.stable_window, seconds(60));
  EXPECT_EQ(a.panic_window, seconds(6));
  EXPECT_EQ(a.panic_threshold, 2.0);
  EXPECT_EQ(a.max_scale_down_rate, 2.0);
  EXPECT_EQ(a.max_scale_up_rate, 1000.0);
  EXPECT_EQ(a.scale_to_zero_grace, seconds(30));
  EXPECT_EQ(a.scale_down_delay, Duration(0));  // Knative's default
  // Kubernetes' HPA defaults stay as they were.
  EXPECT_EQ(a.tolerance, 0.1);
  EXPECT_EQ(a.scale_down_stabilization, seconds(300));
  EXPECT_EQ(s.slo.p99_latency, Duration(0));
  EXPECT_EQ(s.load.prefill_tokens, 512);
  EXPECT_EQ(s.load.decode_tokens, 128);
  EXPECT_FALSE(s.canary_percent.has_value());
}

TEST(ServiceLoader, CurveAndItsDefaults) {
  Loaded l = load(with("      load: {poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}",
                       "      load: {curve: {kind: diurnal, peakQps: 300, troughQps: 20}}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  const LoadSpec& c = l.services[1].load;
  EXPECT_EQ(c.kind, LoadKind::kCurve);
  EXPECT_EQ(c.peak_qps, 300);
  EXPECT_EQ(c.trough_qps, 20);
  EXPECT_EQ(c.period, hours(24));
  EXPECT_EQ(c.peak_at, hours(14));
  // A period of 1h peaks at the same phase: 14/24 of 60 min = 35 min.
  l = load(with("      load: {poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}",
                "      load: {curve: {kind: diurnal, peakQps: 3, troughQps: 0, period: 1h}}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[1].load.peak_at, minutes(35));
  l = load(with("      load: {poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}",
                "      load: {curve: {kind: diurnal, peakQps: 3, troughQps: 3, peakAt: 20h}}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[1].load.peak_at, hours(20));
}

TEST(ServiceLoader, FixedReplicas) {
  const Loaded l =
      load(with("      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, "
                "averageValue: \"500m\"}}",
                "      autoscaler: {kind: none, replicas: 3}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[1].autoscaler.kind, AutoscalerKind::kNone);
  EXPECT_EQ(l.services[1].autoscaler.min_replicas, 3);
  EXPECT_EQ(l.services[1].autoscaler.max_replicas, 3);
}

TEST(ServiceLoader, HpaOnGpuUtilizationAndItsKeys) {
  const Loaded l =
      load(with("      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, "
                "averageValue: \"500m\"}}",
                "      autoscaler: {kind: hpa.autoscaling.knative.dev, maxReplicas: "
                "8, target: {metric: gpu, utilization: 60}, tolerance: 0.2, "
                "scaleDownStabilization: 2m}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  const AutoscalerSpec& a = l.services[1].autoscaler;
  EXPECT_EQ(a.kind, AutoscalerKind::kHpa);
  EXPECT_EQ(a.hpa_metric, HpaMetric::kGpu);
  EXPECT_EQ(a.target_utilization, 60);
  EXPECT_EQ(a.tolerance, 0.2);
  EXPECT_EQ(a.scale_down_stabilization, minutes(2));
}

TEST(ServiceLoader, UtilizationWrittenWithAPercentSign) {
  const Loaded l = load(with("target: {metric: qps, averageValue: \"500m\"}",
                             "target: {metric: cpu, utilization: \"75%\"}"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[1].autoscaler.hpa_metric, HpaMetric::kCpu);
  EXPECT_EQ(l.services[1].autoscaler.target_utilization, 75);
}

TEST(ServiceLoader, KnativeSpellingsAndWindows) {
  // panicWindowPercentage 20 of a 120 s stable window: 24 s. panicThreshold "250%": 2.5.
  Loaded l =
      load(with("        panicThresholdPercentage: 300", "        panicThreshold: \"250%\""));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].autoscaler.panic_threshold, 2.5);
  l = load(with("        maxScaleDownRate: 4", "        panicWindowPercentage: 20"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].autoscaler.panic_window, seconds(24));
  l = load(with("        maxScaleDownRate: 4", "        panicWindow: 30s"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].autoscaler.panic_window, seconds(30));
  l = load(with("        panicThresholdPercentage: 300", "        panicThreshold: 1.5"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].autoscaler.panic_threshold, 1.5);
  l = load(with("        kind: KPA", "        kind: kpa.autoscaling.knative.dev"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].autoscaler.kind, AutoscalerKind::kKpa);
}

TEST(ServiceLoader, GpuTypeBesideResources) {
  const std::string text = testing::replace_first(
      with("        resources: {gpu: 1, gpuType: A10, cpu: \"8\", memory: 32Gi}",
           "        resources: {gpu: 1, cpu: \"8\", memory: 32Gi}"),
      "        image: vllm/vllm-openai:v0.6", "        gpuType: a10");
  const Loaded l = load(text);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].predictors[0].gpu_type, "A10");
}

TEST(ServiceLoader, CanaryOverridesTraffic) {
  // With a canary the predictors need no traffic.
  const Loaded l =
      load(testing::replace_first(with("      start: 10m", "      canaryTrafficPercent: 10"),
                                  "        traffic: 10\n", "        # none\n"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].canary_percent, 10.0);
}

TEST(ServiceLoader, WithoutAClusterNamesAreOnlyShaped) {
  const Loaded l = load(testing::replace_first(with("gpuType: A10, cpu", "gpuType: B300, cpu"),
                                               "        A10: {", "        B300: {"),
                        false);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].predictors[0].gpu_type, "B300");
  EXPECT_EQ(l.services[0].predictors[1].gpu_type, "A10");  // the default catalog's spelling
  EXPECT_EQ(l.services[0].capacity[0].key, "B300");
}

// ---- predictors and traffic ----

TEST(ServiceLoader, DuplicatePredictorName) {
  // Line 12 "      - name: v1": the value starts at column 15.
  EXPECT_EQ(error_of(with("      - name: v2", "      - name: v1")),
            "12:15: spec.workload.services[0].predictors[1].name: duplicate predictor name 'v1' "
            "(first used at line 7)");
}

TEST(ServiceLoader, NegativeTraffic) {
  EXPECT_EQ(error_of(with("        traffic: 90", "        traffic: -5")),
            "9:18: spec.workload.services[0].predictors[0].traffic: expected a number from 0 to "
            "100, got '-5'");
}

TEST(ServiceLoader, AllTrafficZero) {
  // Reported at the list (line 7, column 7: its first "-").
  EXPECT_EQ(error_of(testing::replace_first(with("        traffic: 90", "        traffic: 0"),
                                            "        traffic: 10\n", "        traffic: 0\n")),
            "7:7: spec.workload.services[0].predictors: every predictor's traffic is 0: no "
            "request would be served; give at least one a share above 0");
}

TEST(ServiceLoader, TrafficRequiredWithSeveralPredictors) {
  // Predictor v2's map starts at line 12, column 9.
  EXPECT_EQ(error_of(with("        traffic: 10\n", "        # none\n")),
            "12:9: spec.workload.services[0].predictors[1].traffic: missing required field "
            "'traffic': with several predictors each says its share of the requests in percent "
            "(or set canaryTrafficPercent)");
}

TEST(ServiceLoader, PredictorNeedsAGpu) {
  // Line 39: "      - {name: main, model: llama-70b, resources: {gpu: 0}}"; "{" at column 9,
  // resources' "{" at 9 + 42 = 51, gpu's value at 51 + 6 = 57.
  EXPECT_EQ(error_of(with("resources: {gpu: 2}", "resources: {gpu: 0}")),
            "39:57: spec.workload.services[1].predictors[0].resources.gpu: a replica needs a GPU "
            "or a share of one (capacity is given per GPU model), got '0'");
}

TEST(ServiceLoader, ReplicaMustFitANode) {
  // 500 cores on nodes of 64.
  const std::string e = error_of(with("cpu: \"8\"", "cpu: \"500\""));
  EXPECT_THAT(e, StartsWith("10:20: spec.workload.services[0].predictors[0].resources: no node "
                            "class can hold one replica of cpu 500000m"));
  EXPECT_THAT(e, HasSubstr("on GPU type A10"));
}

TEST(ServiceLoader, UnknownGpuType) {
  const std::string e = error_of(with("gpuType: A10, cpu", "gpuType: B300, cpu"));
  // "        resources: {gpu: 1, gpuType: " is 37 bytes: the value at column 38.
  EXPECT_THAT(e, StartsWith("10:38: spec.workload.services[0].predictors[0].resources.gpuType: "
                            "unknown GPU type 'B300'; known types: A100-80G, "));
}

TEST(ServiceLoader, GpuTypeNotInTheCluster) {
  EXPECT_EQ(error_of(with("gpuType: A10, cpu", "gpuType: H100-80G, cpu")),
            "10:38: spec.workload.services[0].predictors[0].resources.gpuType: no node class in "
            "spec.cluster has GPU type H100-80G");
}

TEST(ServiceLoader, GpuTypeGivenTwice) {
  EXPECT_EQ(error_of(with("        image: vllm/vllm-openai:v0.6", "        gpuType: A10")),
            "11:18: spec.workload.services[0].predictors[0].gpuType: gpuType is given both here "
            "and in resources; they are one setting, give one of them");
}

// ---- capacity ----

TEST(ServiceLoader, MissingCapacityEntry) {
  // Predictor v2 asks for 0.5 of an A10; "        resources: " is 19 bytes, so column 20.
  EXPECT_EQ(error_of(with("\"A10@0.50\"", "\"A10@0.25\"")),
            "15:20: spec.workload.services[0].predictors[1].resources: no capacity entry "
            "'A10@0.5' for this predictor (gpu 0.5 on A10); capacity has: A10, A10@0.25");
}

TEST(ServiceLoader, MissingCapacityEntryWithoutGpuType) {
  // Predictor main asks for 2 whole GPUs of any model; resources' "{" at column 51. One GPU's
  // key does not stand for two.
  EXPECT_EQ(error_of(with("capacity: {H100-80Gx2: {", "capacity: {H100-80G: {")),
            "39:51: spec.workload.services[1].predictors[0].resources: no capacity entry for gpu "
            "2 of any GPU model (a key such as 'A10x2'; or set gpuType); capacity has: H100-80G");
}

TEST(ServiceLoader, MissingCapacityEntryForSeveralGpus) {
  // Predictor v1 on 2 A10s: "A10" is a replica on one.
  EXPECT_EQ(error_of(with("resources: {gpu: 1, gpuType: A10", "resources: {gpu: 2, gpuType: A10")),
            "10:20: spec.workload.services[0].predictors[0].resources: no capacity entry 'A10x2' "
            "for this predictor (gpu 2 on A10); capacity has: A10, A10@0.5");
}

TEST(ServiceLoader, CapacityKeyOfAWholeShare) {
  EXPECT_EQ(error_of(with("\"A10@0.50\"", "\"A10@1.0\"")),
            "18:9: spec.workload.services[0].capacity.A10@1.0: a share is below 1 GPU; a replica "
            "of whole "
            "GPUs uses the key 'A10'");
}

TEST(ServiceLoader, CapacityKeyOfOneGpuWithACount) {
  EXPECT_EQ(error_of(with("        A10: {tokensPerSecond: 2400",
                          "        A10x1: {tokensPerSecond: 2400")),
            "17:9: spec.workload.services[0].capacity.A10x1: a replica of one whole GPU uses the "
            "key 'A10', not 'A10x1'");
  EXPECT_EQ(error_of(with("capacity: {H100-80Gx2: {", "capacity: {H100-80Gx65: {")),
            "40:18: spec.workload.services[1].capacity.H100-80Gx65: expected 2 to 64 GPUs after "
            "'x', such as 'H100-80Gx2', got 'H100-80Gx65'");
}

TEST(ServiceLoader, CapacityKeyOfSeveralGpusIsCanonical) {
  const Loaded l = load(with("capacity: {H100-80Gx2: {", "capacity: {h100-80gx02: {"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[1].capacity[0].key, "H100-80Gx2");
}

TEST(ServiceLoader, CapacityKeyWithABadShare) {
  EXPECT_EQ(
      error_of(with("\"A10@0.50\"", "\"A10@half\"")),
      "18:9: spec.workload.services[0].capacity.A10@half: expected a share of one GPU above 0 "
      "and "
      "below 1 after '@', with at most three decimals, such as A10@0.5, got 'A10@half'");
}

TEST(ServiceLoader, CapacityKeysThatAreOne) {
  // "A10@0.5" and "A10@0.50" name the same share: the later key is the error.
  EXPECT_EQ(
      error_of(with("        A10: {tokensPerSecond: 2400",
                    "        \"A10@0.5\": {tokensPerSecond: 2400")),
      "18:9: spec.workload.services[0].capacity.A10@0.50: capacity key 'A10@0.50' is the same as "
      "'A10@0.5' (line 17)");
}

TEST(ServiceLoader, CapacityOfAnUnknownModel) {
  EXPECT_THAT(
      error_of(with("capacity: {H100-80Gx2: {", "capacity: {H100x2: {")),
      StartsWith("40:18: spec.workload.services[1].capacity.H100x2: unknown GPU type 'H100'; "
                 "known types: A100-80G, H100-80G"));
}

TEST(ServiceLoader, CapacityValues) {
  EXPECT_EQ(
      error_of(with("{tokensPerSecond: 5000, maxBatch: 32}", "{tokensPerSecond: 0, maxBatch: 32}")),
      "40:48: spec.workload.services[1].capacity.H100-80Gx2.tokensPerSecond: expected a number "
      "greater than 0, got '0'");
  EXPECT_EQ(error_of(with("{tokensPerSecond: 5000, maxBatch: 32}", "{tokensPerSecond: 5000}")),
            "40:30: spec.workload.services[1].capacity.H100-80Gx2.maxBatch: missing required field "
            "'maxBatch'");
}

TEST(ServiceLoader, EmptyCapacity) {
  EXPECT_EQ(error_of(with("capacity: {H100-80Gx2: {tokensPerSecond: 5000, maxBatch: 32}}",
                          "capacity: {}")),
            "40:17: spec.workload.services[1].capacity: expected at least one entry, such as A10: "
            "{tokensPerSecond: 2400, maxBatch: 16}");
}

// ---- cold start ----

TEST(ServiceLoader, PrefetchNeedsACache) {
  EXPECT_EQ(error_of(with("cache: true", "cache: false")),
            "23:19: spec.workload.services[0].coldStart.prefetch: prefetch warms the model cache "
            "of nodes; it needs modelDownload with cache: true");
}

TEST(ServiceLoader, ModelDownloadNeedsASize) {
  // "        modelDownload: " is 23 bytes: the map at column 24.
  EXPECT_EQ(error_of(with("{size: 26GB, cache: true, bandwidth: 10Gbps}",
                          "{cache: true, bandwidth: 10Gbps}")),
            "21:24: spec.workload.services[0].coldStart.modelDownload.size: missing required "
            "field 'size'");
}

TEST(ServiceLoader, SizesInBinaryUnits) {
  const Loaded l = load(with("size: 26GB", "size: 26Gi"));
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  EXPECT_EQ(l.services[0].cold_start.model_download.size_bytes, 26ll << 30);
}

// ---- autoscaler ----

TEST(ServiceLoader, MinAboveMax) {
  EXPECT_EQ(error_of(with("        minReplicas: 0", "        minReplicas: 50")),
            "26:22: spec.workload.services[0].autoscaler.minReplicas: minReplicas (50) is above "
            "maxReplicas (40)");
}

TEST(ServiceLoader, MaxOfZero) {
  EXPECT_EQ(error_of(with("        maxReplicas: 40", "        maxReplicas: 0")),
            "27:22: spec.workload.services[0].autoscaler.maxReplicas: expected at least 1; "
            "Knative's 0 (no upper bound) is not simulated: give the most replicas the service "
            "may have");
}

TEST(ServiceLoader, MaxRequired) {
  // autoscaler's map: "      autoscaler: " is 18 bytes, so column 19.
  EXPECT_EQ(error_of(with("{kind: HPA, maxReplicas: 8, ", "{kind: HPA, ")),
            "41:19: spec.workload.services[1].autoscaler.maxReplicas: missing required field "
            "'maxReplicas': the most replicas the autoscaler may run, at least 1");
}

TEST(ServiceLoader, HpaCannotScaleToZero) {
  // "      autoscaler: {kind: HPA, minReplicas: " is 43 bytes: the 0 at column 44.
  EXPECT_EQ(error_of(with("{kind: HPA, maxReplicas: 8, ",
                          "{kind: HPA, minReplicas: 0, maxReplicas: 8, ")),
            "41:44: spec.workload.services[1].autoscaler.minReplicas: Kubernetes disables an HPA "
            "whose target has 0 replicas; use KPA for scale to zero or minReplicas >= 1");
}

TEST(ServiceLoader, QpsNeedsAverageValue) {
  // "      autoscaler: {kind: HPA, maxReplicas: 8, target: " is 54 bytes: target at column 55.
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}", "{metric: qps}")),
            "41:55: spec.workload.services[1].autoscaler.target.averageValue: missing required "
            "field 'averageValue': metric qps scales on requests per second per replica, such as "
            "averageValue: 50");
}

TEST(ServiceLoader, QpsTakesNoUtilization) {
  // utilization's value: 55 + "{metric: qps, averageValue: 5, utilization: " (44) = 99.
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}",
                          "{metric: qps, averageValue: 5, utilization: 60}")),
            "41:99: spec.workload.services[1].autoscaler.target.utilization: metric qps takes "
            "averageValue (requests per second per replica), not utilization");
}

TEST(ServiceLoader, GpuNeedsUtilization) {
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}", "{metric: gpu}")),
            "41:55: spec.workload.services[1].autoscaler.target.utilization: missing required "
            "field 'utilization' (percent): metric gpu scales on utilization, such as "
            "utilization: 60");
}

TEST(ServiceLoader, UtilizationRange) {
  // The value: 55 + "{metric: gpu, utilization: " (27) = 82.
  EXPECT_EQ(
      error_of(with("{metric: qps, averageValue: \"500m\"}", "{metric: gpu, utilization: 0}")),
      "41:82: spec.workload.services[1].autoscaler.target.utilization: expected a "
      "percentage above 0 and at most 100, such as 60 or \"60%\", got '0'");
  EXPECT_EQ(
      error_of(with("{metric: qps, averageValue: \"500m\"}", "{metric: gpu, utilization: 150}")),
      "41:82: spec.workload.services[1].autoscaler.target.utilization: expected a number "
      "from 0 to 100, got '150'");
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}",
                          "{metric: cpu, utilization: \"150%\"}")),
            "41:82: spec.workload.services[1].autoscaler.target.utilization: expected a "
            "percentage above 0 and at most 100, such as 60 or \"60%\", got '150%'");
}

TEST(ServiceLoader, GpuTakesNoAverageValue) {
  // averageValue's value: 55 + "{metric: gpu, utilization: 60, averageValue: " (45) = 100.
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}",
                          "{metric: gpu, utilization: 60, averageValue: 5}")),
            "41:100: spec.workload.services[1].autoscaler.target.averageValue: averageValue goes "
            "with metric qps; metric gpu takes utilization (percent)");
}

TEST(ServiceLoader, HpaNeedsATarget) {
  EXPECT_EQ(error_of(with(", target: {metric: qps, averageValue: \"500m\"}}", "}")),
            "41:19: spec.workload.services[1].autoscaler.target: missing required field "
            "'target': an HPA scales on {metric: gpu|cpu, utilization} or {metric: qps, "
            "averageValue}");
}

TEST(ServiceLoader, KpaTargetIsConcurrency) {
  // "        target: {concurrency: 70, utilization: \"70%\", metric: " is 62 bytes.
  EXPECT_EQ(error_of(with("{concurrency: 70, utilization: \"70%\"}",
                          "{concurrency: 70, utilization: \"70%\", metric: qps}")),
            "28:63: spec.workload.services[0].autoscaler.target.metric: metric is an HPA target; "
            "a KPA's target is {concurrency, utilization}");
  // "      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, averageValue: \"500m\",
  // concurrency: " is 103 bytes.
  EXPECT_EQ(error_of(with("{metric: qps, averageValue: \"500m\"}",
                          "{metric: qps, averageValue: \"500m\", concurrency: 10}")),
            "41:104: spec.workload.services[1].autoscaler.target.concurrency: concurrency is a KPA "
            "target; an HPA's target is {metric: gpu|cpu, utilization} or {metric: qps, "
            "averageValue}");
}

TEST(ServiceLoader, ScaleDownDelayIsAKpaSetting) {
  // Line 33 is "        scaleToZeroGracePeriod: 45s" under the first service's KPA.
  const std::string text = with("        scaleToZeroGracePeriod: 45s",
                                "        scaleToZeroGracePeriod: 45s\n        scaleDownDelay: 5m");
  const Loaded l = load(text);
  ASSERT_TRUE(l.errors.empty()) << ::testing::PrintToString(l.errors);
  EXPECT_EQ(l.services[0].autoscaler.scale_down_delay, minutes(5));
  EXPECT_EQ(error_of(with("        scaleToZeroGracePeriod: 45s", "        scaleDownDelay: 2h")),
            "33:25: spec.workload.services[0].autoscaler.scaleDownDelay: expected a duration "
            "from 0s to 1h, got '2h' (value out of range)");
}

TEST(ServiceLoader, KeysOfTheOtherKind) {
  EXPECT_EQ(error_of(with("        scaleToZeroGracePeriod: 45s", "        tolerance: 0.1")),
            "33:20: spec.workload.services[0].autoscaler.tolerance: tolerance is a setting of the "
            "HPA (Kubernetes); this autoscaler's kind is KPA");
  // "      autoscaler: {kind: HPA, stableWindow: " is 44 bytes.
  EXPECT_EQ(
      error_of(
          with("{kind: HPA, maxReplicas: 8, ", "{kind: HPA, stableWindow: 60s, maxReplicas: 8, ")),
      "41:45: spec.workload.services[1].autoscaler.stableWindow: stableWindow is a setting of "
      "the KPA (Knative); this autoscaler's kind is HPA");
}

TEST(ServiceLoader, KindNone) {
  // "      autoscaler: {kind: none, maxReplicas: " is 44 bytes.
  EXPECT_EQ(error_of(with("      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, "
                          "averageValue: \"500m\"}}",
                          "      autoscaler: {kind: none, maxReplicas: 8, replicas: 2}")),
            "41:45: spec.workload.services[1].autoscaler.maxReplicas: maxReplicas applies to kinds "
            "KPA and HPA; kind none keeps `replicas` replicas");
  EXPECT_EQ(error_of(with("      autoscaler: {kind: HPA, maxReplicas: 8, target: {metric: qps, "
                          "averageValue: \"500m\"}}",
                          "      autoscaler: {kind: none}")),
            "41:19: spec.workload.services[1].autoscaler.replicas: missing required field "
            "'replicas': kind none runs a fixed number of replicas");
  EXPECT_EQ(error_of(with("        minReplicas: 0", "        replicas: 3")),
            "26:19: spec.workload.services[0].autoscaler.replicas: replicas is the fixed count of "
            "kind none; a KPA scales between minReplicas and maxReplicas");
}

TEST(ServiceLoader, UnknownKind) {
  EXPECT_EQ(error_of(with("        kind: KPA", "        kind: VPA")),
            "25:15: spec.workload.services[0].autoscaler.kind: unknown value 'VPA'; expected one "
            "of: KPA, HPA, none, kpa.autoscaling.knative.dev, hpa.autoscaling.knative.dev");
}

TEST(ServiceLoader, PanicThresholdIsARatio) {
  EXPECT_EQ(error_of(with("        panicThresholdPercentage: 300", "        panicThreshold: 200")),
            "30:25: spec.workload.services[0].autoscaler.panicThreshold: expected a ratio from 1.1 "
            "to 10 (2 = panic at twice the ready pods' capacity), got '200'; for a percentage "
            "write \"200%\" or Knative's panicThresholdPercentage: 200");
  EXPECT_EQ(error_of(with("        panicThresholdPercentage: 300",
                          "        panicThresholdPercentage: 100")),
            "30:35: spec.workload.services[0].autoscaler.panicThresholdPercentage: expected a "
            "number from 110 to 1000, got '100'");
}

TEST(ServiceLoader, PanicThresholdGivenTwice) {
  EXPECT_EQ(error_of(with("        maxScaleDownRate: 4", "        panicThreshold: 2")),
            "30:35: spec.workload.services[0].autoscaler.panicThresholdPercentage: panicThreshold "
            "and panicThresholdPercentage (Knative's spelling) are one setting; give one of them");
}

TEST(ServiceLoader, PanicWindowGivenTwice) {
  // Lines 31 and 32 replaced: the second spelling is blamed.
  EXPECT_EQ(error_of(testing::replace_first(
                with("        maxScaleDownRate: 4", "        panicWindow: 6s"),
                "        maxScaleUpRate: 10", "        panicWindowPercentage: 5")),
            "32:32: spec.workload.services[0].autoscaler.panicWindowPercentage: panicWindow and "
            "panicWindowPercentage (Knative's spelling) are one setting; give one of them");
}

TEST(ServiceLoader, ScaleToZeroGracePeriodAboveZero) {
  EXPECT_EQ(
      error_of(with("        scaleToZeroGracePeriod: 45s", "        scaleToZeroGracePeriod: 0s")),
      "33:33: spec.workload.services[0].autoscaler.scaleToZeroGracePeriod: expected a "
      "duration greater than zero, got '0s'");
}

TEST(ServiceLoader, StableWindowRange) {
  EXPECT_EQ(error_of(with("        stableWindow: 120s", "        stableWindow: 3s")),
            "29:23: spec.workload.services[0].autoscaler.stableWindow: expected 6s to 1h "
            "(Knative's range), got '3s'");
  EXPECT_EQ(error_of(with("        stableWindow: 120s", "        stableWindow: 90500ms")),
            "29:23: spec.workload.services[0].autoscaler.stableWindow: expected whole seconds "
            "(Knative's rule), got '90500ms'");
}

TEST(ServiceLoader, PanicWindowWithinTheStableWindow) {
  EXPECT_EQ(error_of(with("        maxScaleDownRate: 4", "        panicWindow: 3m")),
            "31:22: spec.workload.services[0].autoscaler.panicWindow: panicWindow (3m) is longer "
            "than the stable window (2m00s)");
}

TEST(ServiceLoader, ScaleRates) {
  EXPECT_EQ(error_of(with("        maxScaleDownRate: 4", "        maxScaleDownRate: 1")),
            "31:27: spec.workload.services[0].autoscaler.maxScaleDownRate: expected a rate greater "
            "than 1 (Knative's rule), got '1'");
}

TEST(ServiceLoader, Tolerance) {
  // "      autoscaler: {kind: HPA, maxReplicas: 8, tolerance: " is 57 bytes.
  EXPECT_EQ(
      error_of(with("{kind: HPA, maxReplicas: 8, ", "{kind: HPA, maxReplicas: 8, tolerance: 1, ")),
      "41:58: spec.workload.services[1].autoscaler.tolerance: expected a fraction from 0 to "
      "below 1, such as 0.1, got '1'");
}

// ---- canary, SLO, load, start ----

TEST(ServiceLoader, CanaryNeedsTwoPredictors) {
  EXPECT_EQ(error_of(with("      slo: {p99Latency: 5s}", "      canaryTrafficPercent: 10")),
            "43:29: spec.workload.services[1].canaryTrafficPercent: a canary splits the traffic "
            "between the last two predictors (the previous revision and the canary); this "
            "service has 1");
}

TEST(ServiceLoader, CanaryPercentRange) {
  EXPECT_EQ(error_of(with("      start: 10m", "      canaryTrafficPercent: 150")),
            "5:29: spec.workload.services[0].canaryTrafficPercent: expected a number from 0 to "
            "100, got '150'");
}

TEST(ServiceLoader, SloAboveZero) {
  EXPECT_EQ(error_of(with("      slo: {p99Latency: 5s}", "      slo: {p99Latency: 0s}")),
            "43:25: spec.workload.services[1].slo.p99Latency: expected a duration greater than "
            "zero, got '0s'");
}

TEST(ServiceLoader, LoadHasOneSource) {
  // "      load: {poisson: {qps: 50}, curve: " is 40 bytes; the later of the two is blamed.
  EXPECT_EQ(
      error_of(with(
          "{poisson: {qps: 50}, prefillTokens",
          "{poisson: {qps: 50}, curve: {kind: diurnal, peakQps: 1, troughQps: 0}, prefillTokens")),
      "42:41: spec.workload.services[1].load.curve: a load has one source; poisson and "
      "curve are both given, keep one of them");
  EXPECT_EQ(error_of(with("{poisson: {qps: 50}, prefillTokens", "{prefillTokens")),
            "42:13: spec.workload.services[1].load: expected one source of requests: trace, curve "
            "or poisson, such as poisson: {qps: 50}");
}

TEST(ServiceLoader, TraceFileMustExist) {
  EXPECT_EQ(error_of(with("data/azure-llm/code.csv", "data/azure-llm/chat.csv")),
            "36:47: spec.workload.services[0].load.trace.file: no such file: " +
                std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm/chat.csv");
  // A folder is not a trace.
  EXPECT_EQ(error_of(with("data/azure-llm/code.csv", "data/azure-llm")),
            "36:47: spec.workload.services[0].load.trace.file: no such file: " +
                std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/azure-llm");
}

TEST(ServiceLoader, TraceFileMustBeReadable) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gantry-service-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "locked.csv";
  { std::ofstream(file) << "arrived_at,num_prefill_tokens,num_decode_tokens\n"; }
  std::filesystem::permissions(file, std::filesystem::perms::none);
  const std::string e = error_of(with("data/azure-llm/code.csv", file.string()));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(e, "36:47: spec.workload.services[0].load.trace.file: cannot read " + file.string() +
                   ": Permission denied");
}

TEST(ServiceLoader, TraceSpeedupAboveZero) {
  // "        trace: {format: azure-llm-2023, file: data/azure-llm/code.csv, loop: false, speedup: "
  // is 93 bytes.
  EXPECT_EQ(error_of(with("speedup: 2}", "speedup: 0}")),
            "36:94: spec.workload.services[0].load.trace.speedup: expected a number greater than "
            "0, got '0'");
}

TEST(ServiceLoader, StartPastTheLatestInstant) {
  // A scenario starting a day before kLatestTime: a service 2 days in would start after it.
  const Topology topology = make_topology();
  const ConfigNode root = parse_yaml_document(with("      start: 10m", "      start: 2d"), kFile);
  const ConfigNode list =
      ConfigMap(
          ConfigMap(ConfigMap(root, {"spec"}).required("spec"), {"workload"}).required("workload"),
          {"services"})
          .required("services");
  ConfigErrors errors;
  read_services(list, ServiceContext{&topology, kLatestTime - days(1)}, errors);
  const std::vector<InputError> e = errors.take();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_THAT(std::string(e[0].what()),
              StartsWith(kFile + ":5:14: spec.workload.services[0].start: the offset puts the "
                                 "instant past 9999-12-31T23:59:59.999999Z"));
}

TEST(ServiceLoader, TraceFormat) {
  EXPECT_EQ(error_of(with("format: azure-llm-2023", "format: azure-llm-2024")),
            "36:25: spec.workload.services[0].load.trace.format: unknown value 'azure-llm-2024'; "
            "expected one of: azure-llm-2023");
}

TEST(ServiceLoader, TokensOnlyForGeneratedLoads) {
  // "      load: {trace: {format: azure-llm-2023, file: data/azure-llm/code.csv}, " is 77 bytes:
  // prefillTokens' value at 77 + 15 + 1 = 93; "prefillTokens: 1024, decodeTokens: " is 35
  // bytes, so decodeTokens' value at 78 + 35 = 113.
  const Loaded l = load(with("{poisson: {qps: 50}, prefillTokens",
                             "{trace: {format: azure-llm-2023, file: data/azure-llm/code.csv}, "
                             "prefillTokens"));
  ASSERT_EQ(l.errors.size(), 2u) << ::testing::PrintToString(l.errors);
  EXPECT_EQ(l.errors[0],
            "42:93: spec.workload.services[1].load.prefillTokens: prefillTokens applies to "
            "generated loads (curve, poisson); a trace gives each request's tokens");
  EXPECT_EQ(l.errors[1],
            "42:113: spec.workload.services[1].load.decodeTokens: decodeTokens applies to "
            "generated loads (curve, poisson); a trace gives each request's tokens");
}

TEST(ServiceLoader, CurveTroughAbovePeak) {
  EXPECT_EQ(error_of(with("{poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}",
                          "{curve: {kind: diurnal, peakQps: 10, troughQps: 20}}")),
            "42:61: spec.workload.services[1].load.curve.troughQps: troughQps (20) is above "
            "peakQps (10)");
}

TEST(ServiceLoader, CurvePeakWithinThePeriod) {
  // "      load: {curve: {kind: diurnal, peakQps: 10, troughQps: 1, period: 1h, peakAt: " is 83.
  EXPECT_EQ(
      error_of(with("{poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: 256}",
                    "{curve: {kind: diurnal, peakQps: 10, troughQps: 1, period: 1h, peakAt: 1h}}")),
      "42:84: spec.workload.services[1].load.curve.peakAt: peakAt (1h) must be within the "
      "period (1h00m): an offset from its start");
}

TEST(ServiceLoader, DecodeTokensAtLeastOne) {
  // "      load: {poisson: {qps: 50}, prefillTokens: 1024, decodeTokens: " is 68 bytes.
  EXPECT_EQ(error_of(with("decodeTokens: 256", "decodeTokens: 0")),
            "42:69: spec.workload.services[1].load.decodeTokens: expected an integer from 1 to "
            "10000000, got '0'");
}

TEST(ServiceLoader, PoissonQpsAboveZero) {
  EXPECT_EQ(error_of(with("{qps: 50}", "{qps: 0}")),
            "42:29: spec.workload.services[1].load.poisson.qps: expected a number greater than 0, "
            "got '0'");
}

TEST(ServiceLoader, DuplicateServiceName) {
  EXPECT_EQ(error_of(with("    - name: batch", "    - name: chat")),
            "37:13: spec.workload.services[1].name: duplicate service name 'chat' (first used at "
            "line 4)");
}

TEST(ServiceLoader, ErrorsAreCollected) {
  // Three mistakes in two services: all reported, in file order.
  std::string text = with("        traffic: 90", "        traffic: -5");
  text = testing::replace_first(text, "        kind: KPA", "        kind: VPA");
  text = testing::replace_first(text, "{qps: 50}", "{qps: 0}");
  const Loaded l = load(text);
  ASSERT_EQ(l.errors.size(), 3u) << ::testing::PrintToString(l.errors);
  EXPECT_THAT(l.errors[0], StartsWith("9:18: "));
  EXPECT_THAT(l.errors[1], StartsWith("25:15: "));
  EXPECT_THAT(l.errors[2], StartsWith("42:29: "));
}

}  // namespace
}  // namespace gantry
