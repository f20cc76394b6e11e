// KubeletSim's --exec and unpullable images (kubelet_sim.hpp, "--exec").
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/kubelet_sim/container_env.hpp"
#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

std::string status_path_of(const KubePod& p) {
  return "/api/v1/namespaces/" + p.namespace_name + "/pods/" + p.name + "/status";
}

// The first container of a pod as read, or {}.
json first_container(const json& pod) {
  const json containers = pod.value("spec", json::object()).value("containers", json::array());
  return containers.is_array() && !containers.empty() ? containers[0] : json::object();
}

// The status of a container that is not running (waiting or terminated), as the kubelet writes
// it: `state` is {"waiting": ...} or {"terminated": ...}.
json stopped_container_status(const json& container, const std::string& name, json state) {
  return {{"name", name},
          {"image", container.value("image", "")},
          {"imageID", ""},
          {"ready", false},
          {"started", false},
          {"restartCount", 0},
          {"state", std::move(state)}};
}

// The kubelet's back-off before the first retry of a failed pull (pkg/kubelet/images, 10 s).
constexpr Duration kImagePullBackOff = seconds(10);

}  // namespace

std::string KubeletSim::container_name(const std::string& key) const {
  const auto raw = raw_pods_.find(key);
  if (raw == raw_pods_.end()) return "main";
  return first_container(raw->second).value("name", "main");
}

std::optional<std::string> KubeletSim::container_log(const std::string& ns,
                                                     const std::string& pod) const {
  const std::string key = ns + "/" + pod;
  std::lock_guard lock(logs_mutex_);
  if (const auto it = running_.find(key); it != running_.end()) return it->second->output();
  if (const auto it = logs_.find(key); it != logs_.end()) return it->second;
  return std::nullopt;
}

bool KubeletSim::signal_container(const std::string& ns, const std::string& pod, int sig) const {
  std::lock_guard lock(logs_mutex_);
  const auto it = running_.find(ns + "/" + pod);
  if (it == running_.end()) return false;
  it->second->signal(sig);
  return true;
}

bool KubeletSim::unpullable(const KubePod& pod) const {
  if (options_.unpullable_images.empty()) return false;
  const auto raw = raw_pods_.find(pod.key());
  if (raw == raw_pods_.end()) return false;
  const std::string image = first_container(raw->second).value("image", "");
  for (const std::string& prefix : options_.unpullable_images)
    if (!prefix.empty() && image.rfind(prefix, 0) == 0) return true;
  return false;
}

void KubeletSim::write_waiting(const std::string& key, const std::string& reason,
                               const std::string& message) {
  const KubePod& pod = pods_.at(key);
  const json container = first_container(raw_pods_[key]);
  const std::string name = container.value("name", "main");
  const std::string at = format_rfc3339(server_now());
  // What the kubelet's status manager writes for a pod whose container cannot start.
  write_status(
      pod, {{"phase", "Pending"},
            {"conditions",
             {{{"type", "Ready"},
               {"status", "False"},
               {"reason", "ContainersNotReady"},
               {"message", "containers with unready status: [" + name + "]"},
               {"lastTransitionTime", at}}}},
            {"containerStatuses",
             json::array({stopped_container_status(
                 container, name, {{"waiting", {{"reason", reason}, {"message", message}}}})})}});
}

void KubeletSim::fail_image_pull(const std::string& key) {
  const std::string image = first_container(raw_pods_[key]).value("image", "");
  // The kubelet's messages (pkg/kubelet/images/image_manager.go) around the runtime's error as
  // containerd words a reference that does not resolve.
  write_waiting(key, "ErrImagePull",
                "Failed to pull image \"" + image +
                    "\": rpc error: code = NotFound desc = failed "
                    "to pull and unpack image \"" +
                    image + "\": failed to resolve reference \"" + image + "\": " + image +
                    ": not found");
  ++stats_.image_pull_failures;
  const std::string uid = played_.at(key).uid;
  played_.at(key).timer = loop_.schedule_after(kImagePullBackOff, [this, key, uid, image] {
    const auto it = played_.find(key);
    if (it == played_.end() || it->second.uid != uid || it->second.terminating) return;
    it->second.timer.reset();
    write_waiting(key, "ImagePullBackOff", "Back-off pulling image \"" + image + "\"");
  });
}

void KubeletSim::start_exec(const std::string& key) {
  Played& p = played_.at(key);
  const KubePod pod = pods_.at(key);
  const json raw = raw_pods_[key];
  const json container = first_container(raw);
  const std::string uid = pod.uid;
  p.started = loop_.now();
  p.started_written = written(p.started);
  p.running = true;
  p.launching = true;
  const std::string at = format_rfc3339(p.started_written);
  const std::string status = status_path_of(pod);
  // On a worker, in this order: the environment (Secrets and ConfigMaps read from the API
  // server, as the kubelet reads them), the process, the status Running; then the loop adopts
  // the process. The process's end is handed to the loop only after that, so the pod's last
  // status (on_process_exit) is always written after Running.
  workers_.submit([this, key, uid, raw, container, at, status] {
    std::variant<std::map<std::string, std::string>, std::string> env;
    try {
      env = resolve_container_env(raw, container, [this](const std::string& path) {
        try {
          return std::optional<json>(client_.get(path));
        } catch (const KubeError& e) {
          if (e.status().code == 404) return std::optional<json>();
          throw;
        }
      });
    } catch (const std::exception& e) {
      env = std::string("reading the container's environment: ") + failure_words(e);
    }
    if (const std::string* error = std::get_if<std::string>(&env)) {
      loop_.post([this, key, uid, error = *error] {
        const auto it = played_.find(key);
        if (stopped_ || it == played_.end() || it->second.uid != uid) return;
        it->second.launching = false;
        it->second.running = false;
        it->second.waiting = true;
        if (it->second.terminating) {
          terminate_exec(pods_.at(key), it->second);
          return;
        }
        write_waiting(key, "CreateContainerConfigError", error);
      });
      return;
    }
    ProcessSpec spec;
    for (const char* list : {"command", "args"})
      for (const json& a : container.value(list, json::array()))
        if (a.is_string()) spec.argv.push_back(a.get<std::string>());
    if (!spec.argv.empty())
      if (const auto c = options_.exec_commands.find(spec.argv[0]);
          c != options_.exec_commands.end())
        spec.argv[0] = c->second;
    spec.env = std::get<std::map<std::string, std::string>>(std::move(env));
    spec.working_dir = container.value("workingDir", "");
    const std::string name = container.value("name", "main");
    const std::string image = container.value("image", "");
    auto adopted = std::make_shared<std::promise<void>>();
    std::shared_future<void> adopted_done = adopted->get_future().share();
    std::shared_ptr<PodProcess> process;
    try {
      process = std::make_shared<PodProcess>(spec, [this, key, uid, adopted_done](ProcessEnd end) {
        adopted_done.wait();
        loop_.post([this, key, uid, end = std::move(end)]() mutable {
          if (!stopped_) on_process_exit(key, uid, std::move(end));
        });
      });
    } catch (const std::exception& e) {
      // The runtime's StartError: the container never ran (restartPolicy Never: the pod fails).
      const json patch = {
          {"metadata", {{"uid", uid}}},
          {"status",
           {{"phase", "Failed"},
            {"conditions", {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", at}}}},
            {"containerStatuses",
             {{{"name", name},
               {"image", image},
               {"imageID", ""},
               {"ready", false},
               {"started", false},
               {"restartCount", 0},
               {"state",
                {{"terminated",
                  {{"exitCode", 128},
                   {"reason", "StartError"},
                   {"message", e.what()},
                   {"startedAt", "1970-01-01T00:00:00Z"},
                   {"finishedAt", at}}}}}}}}}}};
      try {
        client_.patch(status, patch, PatchType::kStrategicMerge);
      } catch (const std::exception&) {
      }
      loop_.post([this, key, uid] {
        ++stats_.pods_failed;
        const auto it = played_.find(key);
        if (it == played_.end() || it->second.uid != uid) return;
        it->second.launching = false;
        it->second.running = false;
        if (it->second.terminating) terminate_exec(pods_.at(key), it->second);
      });
      return;
    }
    // Its log (container_log()) and signals (signal_container()) from the moment the pod may
    // show Running.
    {
      std::lock_guard lock(logs_mutex_);
      running_[key] = process;
      logs_.erase(key);
    }
    const json running = {
        {"metadata", {{"uid", uid}}},
        {"status",
         {{"phase", "Running"},
          {"startTime", at},
          {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", at}}}},
          {"containerStatuses",
           {{{"name", name},
             {"image", image},
             {"imageID", ""},
             {"ready", true},
             {"started", true},
             {"restartCount", 0},
             {"state", {{"running", {{"startedAt", at}}}}}}}}}}};
    bool written_ok = true;
    try {
      client_.patch(status, running, PatchType::kStrategicMerge);
    } catch (const std::exception&) {
      written_ok = false;  // the pod went meanwhile: the loop drops the process
    }
    loop_.post([this, key, uid, process, written_ok] {
      if (!written_ok) ++stats_.write_errors;
      adopt(key, uid, process);
    });
    adopted->set_value();
  });
}

void KubeletSim::adopt(const std::string& key, const std::string& uid,
                       std::shared_ptr<PodProcess> process) {
  ++stats_.processes_started;
  ++stats_.pods_started;
  const auto it = played_.find(key);
  if (stopped_ || it == played_.end() || it->second.uid != uid) {
    // The pod went while the process started: it is killed (the destructor, off the loop's
    // own thread being irrelevant: it joins the watcher, which only posts).
    std::lock_guard lock(logs_mutex_);
    logs_[key] = process->output();
    running_.erase(key);
    return;
  }
  Played& p = it->second;
  p.launching = false;
  p.process = std::move(process);
  if (p.terminating) {
    p.terminating = false;  // terminate_exec() marks it again and signals
    terminate_exec(pods_.at(key), p);
  }
}

void KubeletSim::on_process_exit(const std::string& key, const std::string& uid, ProcessEnd end) {
  const json container = first_container(raw_pods_[key]);
  const std::string name = container.value("name", "main");
  {
    std::lock_guard lock(logs_mutex_);
    logs_[key] = end.output;
    running_.erase(key);
  }
  if (!options_.exec_log_dir.empty()) {
    std::string file = key + "_" + name + ".log";
    for (char& c : file)
      if (c == '/') c = '_';
    std::ofstream(std::filesystem::path(options_.exec_log_dir) / file) << end.output;
  }
  const auto it = played_.find(key);
  if (it == played_.end() || it->second.uid != uid) return;
  Played& p = it->second;
  p.process.reset();
  if (p.kill_timer) loop_.cancel(*p.kill_timer);
  p.kill_timer.reset();
  if (p.terminating) {
    // Deleted while it ran: ended by our signals; the deletion is confirmed now.
    ++stats_.processes_killed;
    p.exit_code = end.exit_code;
    p.due = loop_.now();
    if (p.timer) loop_.cancel(*p.timer);
    p.timer.reset();
    confirm(key);
    return;
  }
  const KubePod& pod = pods_.at(key);
  const int code = end.exit_code;
  const std::string started = format_rfc3339(p.started_written);
  const std::string at = format_rfc3339(written(loop_.now()));
  json terminated = {{"exitCode", code},
                     {"reason", code == 0 ? "Completed" : "Error"},
                     {"startedAt", started},
                     {"finishedAt", at}};
  if (code != 0 && container.value("terminationMessagePolicy", "") == "FallbackToLogsOnError")
    terminated["message"] = log_tail_message(end.output);
  write_status(
      pod,
      {{"phase", code == 0 ? "Succeeded" : "Failed"},
       {"conditions", {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", at}}}},
       {"containerStatuses",
        json::array({stopped_container_status(container, name, {{"terminated", terminated}})})}});
  ++(code == 0 ? stats_.pods_succeeded : stats_.pods_failed);
}

void KubeletSim::terminate_exec(const KubePod& pod, Played& p) {
  if (p.timer) loop_.cancel(*p.timer);
  p.timer.reset();
  p.terminating = true;
  const std::string key = pod.key();
  if (p.launching) return;  // adopt() or the launch's failure carries on
  if (!p.process) {
    // Nothing runs (not started yet, waiting on its image or its config): confirmed at once.
    p.due = loop_.now();
    p.timer = loop_.schedule_at(p.due, [this, key] { confirm(key); });
    return;
  }
  // The kubelet's killContainer: SIGTERM, then SIGKILL once the grace period is over. The
  // process's end confirms the deletion (on_process_exit).
  const int64_t grace =
      std::max<int64_t>(0, pod.deletion_grace_seconds.value_or(
                               pod.termination_grace_seconds.value_or(kDefaultGraceSeconds)));
  p.process->signal(SIGTERM);
  const std::string uid = p.uid;
  p.kill_timer = loop_.schedule_after(seconds(grace), [this, key, uid] {
    const auto it = played_.find(key);
    if (it == played_.end() || it->second.uid != uid) return;
    it->second.kill_timer.reset();
    if (it->second.process) it->second.process->signal(SIGKILL);
  });
}

}  // namespace gantry::kube
