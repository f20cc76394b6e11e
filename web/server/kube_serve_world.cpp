// --world kube: a live Kubernetes cluster (serve_world.hpp).

#include "web/server/kube_serve_world.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "adapters/kube/executor/kube_task_executor.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_config.hpp"
#include "adapters/kube/serving/live_serving.hpp"
#include "adapters/kube/world/kube_world.hpp"
#include "adapters/kube/world/live_maintenance.hpp"
#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "sim/admission_file.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/step_time_throughput.hpp"
#include "web/server/serve_world.hpp"

namespace gantry::web {

namespace {

std::string kubeconfig_path(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') return env;
  if (const char* home = std::getenv("HOME"); home != nullptr)
    return std::string(home) + "/.kube/config";
  throw GantryError("--kubeconfig: none given, no $KUBECONFIG and no $HOME");
}

std::string default_identity() {
  char host[256] = "gantry";
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(::getpid());
}

// The answer's own message (a Status object's "message"), else its body.
std::string api_message(const kube::KubeResponse& r) {
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"];
  return r.body;
}

}  // namespace

std::string read_pod_logs(kube::KubeClient& client, const std::string& ns, AttemptId id) {
  const std::string pods_path = "/api/v1/namespaces/" + ns + "/pods";
  kube::KubeResponse list;
  try {
    // labelSelector=gantry.dev/attempt-id=<id>, percent-encoded.
    list = client.request(
        "GET", pods_path + "?labelSelector=gantry.dev%2Fattempt-id%3D" + std::to_string(id));
  } catch (const std::exception& e) {
    return fmt::format("the pods of attempt id {} could not be listed: {}\n", id, e.what());
  }
  if (list.status != 200)
    return fmt::format("the API server did not list the pods of attempt id {}: HTTP {}: {}\n", id,
                       list.status, api_message(list));
  const nlohmann::json pods = nlohmann::json::parse(list.body, nullptr, false);
  std::vector<std::string> names;
  if (pods.is_object() && pods.contains("items") && pods["items"].is_array())
    for (const auto& p : pods["items"])
      if (p.contains("metadata") && p["metadata"].contains("name"))
        names.push_back(p["metadata"]["name"].get<std::string>());
  if (names.empty())
    return fmt::format("no pod of attempt id {} is left in namespace {}: its logs are gone\n", id,
                       ns);
  std::string out;
  for (const std::string& name : names) {
    const std::string prefix = "[" + name + "] ";
    kube::KubeResponse log;
    try {
      log = client.request("GET", pods_path + "/" + name + "/log");
    } catch (const std::exception& e) {
      out += prefix + "(its log could not be read: " + e.what() + ")\n";
      continue;
    }
    if (log.status != 200) {
      out += prefix + fmt::format("(its log could not be read: HTTP {}: {})\n", log.status,
                                  api_message(log));
      continue;
    }
    size_t at = 0;
    while (at < log.body.size()) {
      const size_t nl = log.body.find('\n', at);
      const size_t end = nl == std::string::npos ? log.body.size() : nl;
      out += prefix + log.body.substr(at, end - at) + "\n";
      at = end + 1;
    }
  }
  return out;
}

namespace {

class KubeServeWorld final : public ServeWorld {
 public:
  KubeServeWorld(EventLoop& loop, const KubeServeOptions& o, const std::string& scenario_file) {
    // The queues first: a mistake in them is the user's to fix before anything connects.
    std::optional<AdmissionFile> admission;
    if (!o.admission_file.empty()) {
      admission = load_admission_file(o.admission_file);
      // The pipelines' pods wait in --queue: a queue this file declares (or every one of them
      // would be refused).
      if (!o.queue.empty()) {
        std::string known;
        bool found = false;
        for (const QueueSpec& q : admission->admission.queues) {
          found = found || q.name == o.queue;
          known += (known.empty() ? "" : ", ") + q.name;
        }
        if (!found)
          throw GantryError("--queue: '" + o.queue + "' is not a queue of " + o.admission_file +
                            " (queues: " + known + ")");
      }
    }
    kube::KubeConfig config = kube::load_kubeconfig(kubeconfig_path(o.kubeconfig), o.context);
    describe_ = "kube: " + config.server +
                (config.context.empty() ? "" : " (context " + config.context + ")");
    const std::string ns = o.namespace_name.empty() ? config.namespace_name : o.namespace_name;
    namespace_ = ns;
    client_ = std::make_unique<kube::KubeClient>(std::move(config));
    kube::KubeWorldOptions w;
    std::optional<ScenarioSpec> scenario;
    if (!scenario_file.empty()) {
      scenario = load_scenario_file(scenario_file, trace_loaders());
      apply_scenario(*scenario, w);
    } else {
      w.model.gpus = GpuCatalog::with_defaults();
    }
    if (admission) {
      w.scheduler.policy.admission = std::move(admission->admission);
      // Each admission queue orders by priority, then submission (as a scenario's does).
      w.scheduler.policy.order = QueueOrder::kPriority;
    }
    w.scheduler.scheduler_name = o.scheduler_name;
    w.identity = o.identity.empty() ? default_identity() : o.identity;
    w.leader_election = o.leader_elect;
    w.drains = true;  // `gantry kube drain` requests and the scenario's maintenance
    w.election.namespace_name = ns;
    world_ = std::make_unique<kube::KubeWorld>(*client_, loop, std::move(w));
    // The schedule counts from the server's start, as --world sim's scenario does.
    if (scenario && !scenario->failures.maintenance.empty())
      maintenance_ = std::make_unique<kube::LiveMaintenance>(
          *world_, loop, scenario->failures, scenario->topology, loop.now(), scenario->seed);
    if (scenario && !scenario->workload.services.empty())
      start_services(loop, o, scenario->workload.services);
    kube::KubeExecutorOptions e;
    e.plan.namespace_name = ns;
    e.plan.scheduler_name = o.scheduler_name;
    e.plan.queue = o.queue;
    executor_ = std::make_unique<kube::KubeTaskExecutor>(loop, *client_, std::move(e));
  }
  ~KubeServeWorld() override { stop(); }

  const Cluster& cluster() const override { return world_->cluster().cluster(); }
  const Scheduler& scheduler() const override { return world_->scheduler().scheduler(); }
  TaskExecutor& executor() override { return *executor_; }
  std::string pending_reason(JobId job) const override {
    return world_->scheduler().pending_reason(job);
  }
  void prepare() override {
    // One request first, so that an unreachable or refusing API server is an error that says
    // so rather than informers retrying in silence.
    try {
      client_->get("/api/v1/namespaces/" + namespace_ + "/pods?limit=1");
    } catch (const std::exception& e) {
      throw GantryError("--world kube: " + describe_ + ": " + e.what());
    }
    world_->start();
    if (!executor_->wait_for_sync())
      throw GantryError("--world kube: the pods of " + describe_ + " could not be listed");
  }
  void start() override {
    if (maintenance_) maintenance_->start();
    if (serving_) serving_->start();
  }
  void stop() override {
    if (serving_) serving_->stop();
    if (serving_workers_) serving_workers_->stop();
    if (maintenance_) maintenance_->stop();
    if (world_) world_->stop();
  }
  void set_action_log(ActionLog* log) override {
    world_->scheduler().set_action_log(log);
    if (serving_) serving_->set_action_log(log);
  }
  std::string describe() const override { return describe_; }
  bool live() const override { return true; }
  std::string pod_logs(AttemptId id) override { return read_pod_logs(*client_, namespace_, id); }

 private:
  // The scenario's services: LiveServing on workers of its own (a slow scrape must not hold up
  // binds), acting only while this replica leads.
  void start_services(EventLoop& loop, const KubeServeOptions& o,
                      const std::vector<ServiceSpec>& services) {
    if (o.serving_metrics.empty()) {
      scraper_ = std::make_unique<kube::PodEndpointScraper>();
    } else {
      scraper_ = std::make_unique<kube::EndpointScraper>(o.serving_metrics);
    }
    serving_workers_ = std::make_unique<kube::ApiWorkers>(2);
    kube::LiveServingOptions so;
    so.objects.namespace_name = namespace_;
    so.objects.scheduler_name = o.scheduler_name;
    so.active = !o.leader_elect;
    serving_ = std::make_unique<kube::LiveServing>(*client_, *serving_workers_, loop, *scraper_,
                                                   std::move(so));
    std::vector<std::string> notes;
    for (const ServiceSpec& s : live_services(services, !o.serving_metrics.empty(), notes))
      serving_->add_service(s);
    world_->on_leadership([this](bool leading) { serving_->set_active(leading); });
    describe_ += fmt::format(", {} service{}", services.size(), services.size() == 1 ? "" : "s");
    for (const std::string& n : notes) describe_ += "; " + n;
  }

  std::string describe_;
  std::string namespace_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<kube::KubeWorld> world_;
  std::unique_ptr<kube::LiveMaintenance> maintenance_;
  std::unique_ptr<kube::KubeTaskExecutor> executor_;
  // The scraper outlives the workers that call it; stop() stops the workers before the
  // LiveServing whose calls they run is destroyed.
  std::unique_ptr<kube::MetricsScraper> scraper_;
  std::unique_ptr<kube::ApiWorkers> serving_workers_;
  std::unique_ptr<kube::LiveServing> serving_;
};

}  // namespace

void apply_scenario(const ScenarioSpec& scenario, kube::KubeWorldOptions& options) {
  options.model = scenario.topology;
  options.scheduler.policy = scenario.policy;
  options.scheduler.restart_delay = scenario.sim.restart_delay;
  // As sim/world_builder.cpp: the goodput elasticity policy asks the step-time model.
  static const StepTimeThroughput step_time_throughput;
  options.scheduler.throughput =
      scenario.policy.elasticity.has(ElasticPolicy::kGoodput) ? &step_time_throughput : nullptr;
}

std::vector<ServiceSpec> live_services(const std::vector<ServiceSpec>& services, bool activator,
                                       std::vector<std::string>& notes) {
  std::vector<ServiceSpec> out = services;
  if (activator) return out;
  for (ServiceSpec& s : out) {
    if (s.autoscaler.kind != AutoscalerKind::kKpa || s.autoscaler.min_replicas != 0) continue;
    s.autoscaler.min_replicas = std::min(1, s.autoscaler.max_replicas);
    notes.push_back(s.name +
                    ": minReplicas 0 kept at 1 (scaling up from zero needs an activator's "
                    "metrics: --serving-metrics)");
  }
  return out;
}

std::unique_ptr<ServeWorld> make_kube_world(EventLoop& loop, const KubeServeOptions& options,
                                            const std::string& scenario_file) {
  return std::make_unique<KubeServeWorld>(loop, options, scenario_file);
}

}  // namespace gantry::web
