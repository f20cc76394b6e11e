#include "engine/cluster/job.hpp"

namespace gantry {

const char* to_string(Framework f) {
  switch (f) {
    case Framework::kTensorFlow: return "tensorflow";
    case Framework::kPyTorch: return "pytorch";
    case Framework::kMPI: return "mpi";
  }
  return "?";
}

const char* to_string(RoleKind r) {
  switch (r) {
    case RoleKind::kPS: return "PS";
    case RoleKind::kChief: return "Chief";
    case RoleKind::kWorker: return "Worker";
    case RoleKind::kEvaluator: return "Evaluator";
    case RoleKind::kMaster: return "Master";
    case RoleKind::kLauncher: return "Launcher";
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

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kPending: return "pending";
    case JobState::kStarting: return "starting";
    case JobState::kRunning: return "running";
    case JobState::kFinished: return "finished";
  }
  return "?";
}

int JobSpec::total_pods() const {
  int n = 0;
  for (const auto& r : roles) n += r.replicas;
  return n;
}

Resources JobSpec::total_request() const {
  Resources total;
  for (const auto& r : roles)
    for (int i = 0; i < r.replicas; ++i) total += r.per_replica;
  return total;
}

}  // namespace gantry
