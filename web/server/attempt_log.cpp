#include "web/server/attempt_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace gantry::web {

namespace {

std::string line(Time at, const std::string& what) { return format_rfc3339(at) + " " + what; }

std::string gib(int64_t bytes) {
  return bytes % (int64_t{1} << 30) == 0 ? fmt::format("{}Gi", bytes >> 30)
                                         : fmt::format("{} bytes", bytes);
}

// "cpu 2, memory 4Gi, 8 GPUs A100-80G" per pod, and the pods of a distributed task.
std::string asked(const TaskSpec& t, const Resources& r) {
  std::string out = fmt::format("cpu {}m, memory {}", r.cpu_milli, gib(r.memory_bytes));
  if (r.gpus > 0) out += fmt::format(", {} GPU{}", r.gpus, r.gpus == 1 ? "" : "s");
  if (r.gpu_milli > 0) out += fmt::format(", {}m of one GPU", r.gpu_milli);
  if (r.needs_gpu() && !t.gpu_type.empty()) out += " " + t.gpu_type;
  if (t.replicas.empty()) return out + " (one pod)";
  int pods = 0;
  std::string roles;
  for (const auto& [role, n] : t.replicas) {
    pods += n;
    roles += (roles.empty() ? "" : ", ") + fmt::format("{}: {}", role, n);
  }
  return fmt::format("{} per pod, {} pods ({})", out, pods, roles);
}

std::string name_of(JobId job, const Scheduler& scheduler) {
  const Workload* w = scheduler.workloads().find(job);
  return w != nullptr && w->spec != nullptr ? w->spec->name : fmt::format("workload {}", job);
}

}  // namespace

void WorkloadTrail::note(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("workload") || !j["workload"].is_number_integer()) return;
  const auto job = j["workload"].get<JobId>();
  auto [it, fresh] = raw_.try_emplace(job);
  if (fresh) {
    order_.push_back(job);
    if (order_.size() > kMaxWorkloads) {
      raw_.erase(order_.front());
      order_.pop_front();
    }
  }
  if (it->second.size() < kMaxLines) it->second.push_back(text);
}

std::vector<std::string> WorkloadTrail::lines(JobId job, const Scheduler& scheduler) const {
  std::vector<std::string> out;
  const auto it = raw_.find(job);
  if (it == raw_.end()) return out;
  for (const std::string& text : it->second) {
    const nlohmann::json j = nlohmann::json::parse(text);
    const std::string t = j.value("t", "");
    const std::string kind = j.value("kind", "");
    std::string what;
    if (kind == "bind" || (kind == "resize" && j.contains("pods"))) {
      std::string pods;
      for (const auto& p : j.value("pods", nlohmann::json::array())) {
        std::string gpus;
        for (const auto& g : p.value("gpus", nlohmann::json::array()))
          gpus += (gpus.empty() ? "" : ",") + std::to_string(g.get<int>());
        pods += (pods.empty() ? "" : "; ") +
                fmt::format("pod {} on {}", p.value("pod", 0), p.value("node", "?")) +
                (gpus.empty() ? "" : " GPUs " + gpus);
      }
      what = (kind == "bind" ? "placed: " : "resized, added: ") + pods;
    } else if (kind == "evict") {
      what = "preempted";
      if (j.contains("by")) what += " by " + name_of(j["by"].get<JobId>(), scheduler);
      if (!j.value("reason", "").empty()) what += ": " + j.value("reason", "");
    } else if (kind == "resize") {
      what = fmt::format("resized to {} replicas", j.value("replicas", 0));
    } else {
      // The workload's own transitions say these already (running, finished), unless the
      // world added why.
      const bool plain = (kind == "bound" || kind == "running" || kind == "finished") &&
                         !j.contains("exitCode") && j.value("reason", "").empty();
      if (plain) continue;
      what = "observed " + kind;
      if (j.contains("pod")) what += fmt::format(" (pod {})", j["pod"].get<int>());
      if (j.contains("node")) what += " on " + j.value("node", "");
      if (j.contains("exitCode")) what += fmt::format(", exit code {}", j["exitCode"].get<int>());
      if (!j.value("reason", "").empty()) what += ": " + j.value("reason", "");
    }
    out.push_back(t + " " + what);
  }
  return out;
}

std::string attempt_story(const AttemptFacts& f, JobId job, const Scheduler& scheduler,
                          const WorkloadTrail& trail, const std::string& waiting) {
  const Attempt& a = f.attempt;
  std::vector<std::string> lines;
  lines.push_back(
      line(a.start,
           fmt::format("attempt {} of task {} (run {} {}) asked for {}", f.number, f.task,
                       f.pipeline, format_rfc3339(f.logical_time),
                       f.spec != nullptr ? asked(*f.spec, f.spec->resources) : std::string("?"))));
  for (const auto& [key, value] : param_env(f.params))
    lines.push_back(line(a.start, "env " + key + "=" + value));
  const Workload* w = job >= 0 ? scheduler.workloads().find(job) : nullptr;
  if (job < 0) {
    lines.push_back(line(a.running.value_or(a.start),
                         "started (a container of the simulated world: no placement on the "
                         "cluster's nodes)"));
  } else if (w == nullptr) {
    lines.push_back(
        line(a.start, fmt::format("workload {}: no longer known to the scheduler", job)));
  } else {
    lines.push_back(line(a.start, "queued for the cluster as gang " + w->spec->name));
    for (const WorkloadTransition& tr : w->history) {
      switch (tr.state) {
        case WorkloadState::kRunning:
          lines.push_back(line(tr.at, "running: every pod runs"));
          break;
        case WorkloadState::kFinished:
          lines.push_back(line(tr.at, "the gang finished"));
          break;
        case WorkloadState::kFailed:
          lines.push_back(line(tr.at, "the gang failed"));
          break;
        case WorkloadState::kWithdrawn:
          lines.push_back(line(tr.at, "withdrawn from the cluster (the attempt was stopped)"));
          break;
        case WorkloadState::kInactive:
          lines.push_back(line(tr.at, "deactivated by admission"));
          break;
        default:
          break;  // pending, assumed, bound, evicted: the trail says where and why
      }
    }
    for (std::string& l : trail.lines(job, scheduler)) lines.push_back(std::move(l));
  }
  // Times first: RFC 3339 in UTC sorts as text; the order of the lines at one instant stays.
  std::stable_sort(lines.begin() + 1, lines.end(), [](const std::string& x, const std::string& y) {
    return x.substr(0, x.find(' ')) < y.substr(0, y.find(' '));
  });
  if (!waiting.empty()) lines.push_back("waiting: " + waiting);
  if (a.end) {
    lines.push_back(line(*a.end, "ended " + std::string(to_string(a.state)) +
                                     (a.reason.empty() ? "" : ": " + a.reason)));
  } else {
    lines.push_back(std::string("not ended yet (") + (a.running ? "running" : "queued") + ")");
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace gantry::web
