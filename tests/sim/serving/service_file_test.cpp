// kind: InferenceService files (sim/serving/service_file.hpp) and services inside a Scenario
// (spec.workload.services, sim/workload_loader.hpp).

#include "sim/serving/service_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/config/config_errors.hpp"
#include "sim/scenario_loader.hpp"

namespace gantry {
namespace {

using ::testing::ElementsAre;

const std::string kSource = GANTRY_SOURCE_DIR;

// The messages of the InputErrors loading `text` as an InferenceService throws.
std::vector<std::string> service_errors(const std::string& text) {
  try {
    load_service_text(text, "svc.yaml");
  } catch (const InputErrors& e) {
    std::vector<std::string> out;
    for (const InputError& one : e.errors()) out.push_back(one.what());
    return out;
  } catch (const InputError& e) {
    return {e.what()};
  }
  ADD_FAILURE() << "expected an InputError for:\n" << text;
  return {};
}

TEST(ServiceFile, LoadsTheIssueExample) {
  const ServiceSpec s = load_service_file(kSource + "/tests/data/serving/chat.yaml");
  EXPECT_EQ(s.name, "chat");  // metadata.name
  ASSERT_EQ(s.predictors.size(), 2u);
  EXPECT_EQ(s.predictors[0].traffic, 90);
  EXPECT_EQ(s.predictors[1].resources.gpu_milli, 500);
  ASSERT_EQ(s.capacity.size(), 2u);
  EXPECT_EQ(s.capacity[1].key, "A10@0.5");
  EXPECT_EQ(s.cold_start.model_download.size_bytes, 26'000'000'000);
  EXPECT_EQ(s.autoscaler.kind, AutoscalerKind::kKpa);
  EXPECT_EQ(s.autoscaler.min_replicas, 0);
  EXPECT_EQ(s.autoscaler.max_replicas, 40);
  EXPECT_EQ(s.autoscaler.target_concurrency, 70);
  EXPECT_EQ(s.slo.p99_latency, seconds(2));
  // Resolved against the file's folder, tests/data/serving/.
  EXPECT_EQ(s.load.trace_file, kSource + "/scenarios/data/azure-llm/code.csv");
  EXPECT_TRUE(s.load.loop);
}

// clang-format off
const std::string kService =
    "apiVersion: gantry.dev/v1\n"                                                    // 1
    "kind: InferenceService\n"                                                       // 2
    "metadata: {name: tiny}\n"                                                       // 3
    "spec:\n"                                                                        // 4
    "  predictors: [{name: v1, model: m, resources: {gpu: 1, gpuType: B300}}]\n"     // 5
    "  capacity: {B300: {tokensPerSecond: 9000, maxBatch: 64}}\n"                    // 6
    "  autoscaler: {kind: HPA, minReplicas: 1, maxReplicas: 2, target: {metric: cpu, utilization: 80}}\n"  // 7
    "  load: {poisson: {qps: 1}}\n";                                                 // 8
// clang-format on

TEST(ServiceFile, NoClusterNoGpuTypeCheck) {
  // No cluster is known: a model the default catalog lacks is taken as written.
  const ServiceSpec s = load_service_text(kService, "svc.yaml");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.predictors[0].gpu_type, "B300");
  EXPECT_EQ(s.autoscaler.hpa_metric, HpaMetric::kCpu);
  EXPECT_EQ(s.autoscaler.target_utilization, 80);
}

TEST(ServiceFile, NameIsMetadataName) {
  std::string text = kService;
  text.replace(text.find("  predictors"), 0, "  name: tiny\n");
  EXPECT_THAT(service_errors(text),
              ElementsAre("svc.yaml:5:3: spec.name: unknown field 'name'; expected one of: start, "
                          "predictors, canaryTrafficPercent, capacity, coldStart, autoscaler, "
                          "slo, load"));
}

TEST(ServiceFile, EveryErrorIsListed) {
  std::string text = kService;
  text.replace(text.find("minReplicas: 1"), 14, "minReplicas: 0");  // line 7, column 40
  text.replace(text.find("{qps: 1}"), 8, "{qps: 0}");               // line 8, column 25
  // "  autoscaler: {kind: HPA, minReplicas: " is 39 bytes; "  load: {poisson: {qps: " 24.
  EXPECT_THAT(service_errors(text),
              ElementsAre("svc.yaml:7:40: spec.autoscaler.minReplicas: Kubernetes disables an HPA "
                          "whose target has 0 replicas; use KPA for scale to zero or minReplicas "
                          ">= 1",
                          "svc.yaml:8:25: spec.load.poisson.qps: expected a number greater than "
                          "0, got '0'"));
}

TEST(ServiceFile, WrongKind) {
  std::string text = kService;
  text.replace(text.find("InferenceService"), 16, "Scenario");
  EXPECT_THAT(service_errors(text),
              ElementsAre("svc.yaml:2:7: kind: expected kind InferenceService, got 'Scenario'"));
}

TEST(ServiceFile, MissingFileIsAFileError) {
  EXPECT_THROW(load_service_file(kSource + "/tests/data/serving/none.yaml"), FileError);
}

// ---- in a Scenario ----

// clang-format off
const std::string kScenario =
    "apiVersion: gantry.dev/v1\n"                                                      // 1
    "kind: Scenario\n"                                                                 // 2
    "metadata: {name: serving}\n"                                                      // 3
    "spec:\n"                                                                          // 4
    "  cluster:\n"                                                                     // 5
    "    fabric: {kind: InfiniBand}\n"                                                 // 6
    "    storage: {bandwidth: 10GB/s}\n"                                               // 7
    "    nodeClasses:\n"                                                               // 8
    "    - {name: a10, cpu: 32, memory: 256Gi, gpu: {type: A10, count: 4}, nic: 100Gbps}\n"  // 9
    "    racks:\n"                                                                     // 10
    "    - {name: r1, class: a10, nodes: 2}\n"                                         // 11
    "  workload:\n"                                                                    // 12
    "    services:\n"                                                                  // 13
    "    - name: chat\n"                                                               // 14
    "      predictors: [{name: v1, model: m, resources: {gpu: \"0.5\", gpuType: A10}}]\n"  // 15
    "      capacity: {\"A10@0.5\": {tokensPerSecond: 1100, maxBatch: 8}}\n"            // 16
    "      autoscaler: {kind: KPA, minReplicas: 0, maxReplicas: 8}\n"                   // 17
    "      load: {trace: {format: azure-llm-2023, file: data/azure-llm/code.csv}}\n"    // 18
    "  horizon: 1h\n";                                                                 // 19
// clang-format on

// The scenario as if it sat in scenarios/, where data/azure-llm/ is.
const std::string kScenarioFile = kSource + "/scenarios/serving-test.yaml";

// A request trace reader standing in for adapters/traces': two rows, and what it was asked.
struct FakeRequests {
  std::vector<LoadSpec> asked;
  RequestTrace rows = std::make_shared<const std::vector<TraceRequest>>(
      std::vector<TraceRequest>{{0, 100, 10}, {1'000'000, 200, 20}});
  TraceLoaders loaders() {
    return {.requests = [this](const LoadSpec& load) {
      asked.push_back(load);
      return rows;
    }};
  }
};

TEST(ServiceFile, AScenarioOfServicesOnly) {
  FakeRequests reader;
  const ScenarioSpec s = load_scenario_text(kScenario, kScenarioFile, reader.loaders());
  EXPECT_TRUE(s.workload.jobs.empty());
  EXPECT_TRUE(s.workload.generators.empty());
  ASSERT_EQ(s.workload.services.size(), 1u);
  EXPECT_EQ(s.workload.services[0].name, "chat");
  EXPECT_EQ(s.workload.services[0].capacity[0].key, "A10@0.5");
  EXPECT_EQ(s.workload.services[0].load.trace_file, kSource + "/scenarios/data/azure-llm/code.csv");
  // The trace is read with the scenario, once, by the reader the caller passed.
  ASSERT_EQ(reader.asked.size(), 1u);
  EXPECT_EQ(reader.asked[0].trace_file, kSource + "/scenarios/data/azure-llm/code.csv");
  ASSERT_EQ(s.service_traces.size(), 1u);
  EXPECT_EQ(s.service_traces[0], reader.rows);
}

// Without a reader (sim/ reads no trace format itself), the trace is an error at its file.
TEST(ServiceFile, AServiceTraceWithoutAReaderIsAnErrorAtItsFile) {
  try {
    load_scenario_text(kScenario, kScenarioFile);
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    // Line 18: "      load: {trace: {format: azure-llm-2023, file: " is 51 bytes.
    EXPECT_EQ(std::string(e.what()),
              kScenarioFile +
                  ":18:52: spec.workload.services[0].load.trace.file: this program cannot read "
                  "request traces");
  }
}

// A service's load has no end, so neither would the run: the horizon is required.
TEST(ServiceFile, AScenarioWithServicesNeedsAHorizon) {
  std::string text = kScenario;
  text.erase(text.find("  horizon: 1h\n"));
  try {
    FakeRequests reader;
    load_scenario_text(text, kScenarioFile, reader.loaders());
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              kScenarioFile +
                  ":13:5: spec.workload: a scenario with services needs spec.horizon: a "
                  "service's load has no end, so the run would not either (add e.g. horizon: "
                  "24h)");
  }
}

TEST(ServiceFile, AScenarioChecksServicesAgainstItsCluster) {
  std::string text = kScenario;
  text.replace(text.find("gpuType: A10"), 12, "gpuType: T4 ");
  // "      predictors: [{name: v1, model: m, resources: {gpu: \"0.5\", gpuType: " is 73 bytes.
  try {
    FakeRequests reader;
    load_scenario_text(text, kScenarioFile, reader.loaders());
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              kScenarioFile +
                  ":15:74: spec.workload.services[0].predictors[0].resources.gpuType: no node "
                  "class in spec.cluster has GPU type T4");
  }
}

}  // namespace
}  // namespace gantry
