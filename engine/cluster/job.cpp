#include "engine/cluster/job.hpp"

#include <algorithm>

namespace gantry {

const char* to_string(Framework f) {
  switch (f) {
    case Framework::kTensorFlow:
      return "tensorflow";
    case Framework::kPyTorch:
      return "pytorch";
    case Framework::kMPI:
      return "mpi";
  }
  return "?";
}

const char* to_string(RoleKind r) {
  switch (r) {
    case RoleKind::kPS:
      return "PS";
    case RoleKind::kChief:
      return "Chief";
    case RoleKind::kWorker:
      return "Worker";
    case RoleKind::kEvaluator:
      return "Evaluator";
    case RoleKind::kMaster:
      return "Master";
    case RoleKind::kLauncher:
      return "Launcher";
  }
  return "?";
}

int start_stage(RoleKind r) {
  switch (r) {
    case RoleKind::kPS:
    case RoleKind::kChief:
    case RoleKind::kMaster:
    case RoleKind::kLauncher:
      return 0;
    case RoleKind::kWorker:
    case RoleKind::kEvaluator:
      return 1;
  }
  return 1;
}

const char* to_string(TopologyConstraint::Level l) {
  switch (l) {
    case TopologyConstraint::Level::kNone:
      return "none";
    case TopologyConstraint::Level::kIsland:
      return "island";
    case TopologyConstraint::Level::kNode:
      return "node";
    case TopologyConstraint::Level::kRack:
      return "rack";
  }
  return "?";
}

const char* to_string(RestartPolicy p) {
  switch (p) {
    case RestartPolicy::kNever:
      return "Never";
    case RestartPolicy::kOnFailure:
      return "OnFailure";
    case RestartPolicy::kExitCode:
      return "ExitCode";
  }
  return "?";
}

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kPending:
      return "pending";
    case JobState::kStarting:
      return "starting";
    case JobState::kRunning:
      return "running";
    case JobState::kFinished:
      return "finished";
    case JobState::kWithdrawn:
      return "withdrawn";
    case JobState::kInactive:
      return "inactive";
  }
  return "?";
}

std::vector<std::string> JobSpec::allowed_gpu_models() const {
  if (!gpu_types.empty()) return gpu_types;
  if (!gpu_type.empty()) return {gpu_type};
  return {};
}

std::vector<std::string> parse_gpu_models(std::string_view spec) {
  std::vector<std::string> out;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find('|', start);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = spec.substr(start, end - start);
    while (!item.empty() && blank(item.front())) item.remove_prefix(1);
    while (!item.empty() && blank(item.back())) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

int JobSpec::total_pods() const {
  int n = 0;
  for (const auto& r : roles) n += r.replicas;
  return n;
}

std::vector<Resources> JobSpec::pod_requests() const {
  std::vector<Resources> pods;
  pods.reserve(static_cast<size_t>(std::max(0, total_pods())));
  for (const RoleSpec& r : roles)
    if (r.replicas > 0) pods.insert(pods.end(), static_cast<size_t>(r.replicas), r.per_replica);
  return pods;
}

Resources JobSpec::total_request() const {
  // The sum of pod_requests(), without building the list (called per pod by the experiments).
  Resources total;
  for (const auto& r : roles)
    for (int i = 0; i < r.replicas; ++i) total += r.per_replica;
  return total;
}

}  // namespace gantry
