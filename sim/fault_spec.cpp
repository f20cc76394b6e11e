#include "sim/fault_spec.hpp"

#include <cctype>
#include <cmath>

namespace gantry {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

const char* to_string(FailureComponent component) {
  switch (component) {
    case FailureComponent::kGpu:
      return "gpu";
    case FailureComponent::kNode:
      return "node";
    case FailureComponent::kRack:
      return "rack";
  }
  return "?";
}

bool gpu_model_matches(std::string_view pattern, std::string_view model) {
  if (pattern.empty()) return true;
  if (model.size() < pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i)
    if (lower(pattern[i]) != lower(model[i])) return false;
  // "H100" must not apply to "H1000": the prefix ends a word of the model's name.
  return model.size() == pattern.size() || !is_word_char(pattern.back()) ||
         !is_word_char(model[pattern.size()]);
}

Duration weibull_mean(double shape, Duration scale) {
  return Duration::from_seconds(scale.seconds() * std::tgamma(1.0 + 1.0 / shape));
}

Duration weibull_scale_for_mean(double shape, Duration mean) {
  return Duration::from_seconds(mean.seconds() / std::tgamma(1.0 + 1.0 / shape));
}

std::vector<FailureProcessSpec> llama3_h100_processes() {
  constexpr double kDaySeconds = 86'400;
  const double interruptions = static_cast<double>(kLlama3Interruptions);
  const double gpu_days = static_cast<double>(kLlama3Days * kLlama3Gpus);
  const double node_days = static_cast<double>(kLlama3Days * kLlama3Nodes);
  FailureProcessSpec gpu;
  gpu.component = FailureComponent::kGpu;
  gpu.gpu_model = std::string(kLlama3GpuModel);
  gpu.time_to_failure.kind = TimeToFailure::Kind::kExponential;
  gpu.time_to_failure.mtbf =
      Duration::from_seconds(kDaySeconds * gpu_days / (kLlama3GpuShare * interruptions));
  gpu.repair = RepairTime{RepairTime::Kind::kExponential, kLlama3GpuRepair};
  gpu.cause = "GPU";
  FailureProcessSpec node;
  node.component = FailureComponent::kNode;
  node.gpu_model = std::string(kLlama3GpuModel);
  node.time_to_failure.kind = TimeToFailure::Kind::kExponential;
  node.time_to_failure.mtbf =
      Duration::from_seconds(kDaySeconds * node_days / ((1.0 - kLlama3GpuShare) * interruptions));
  node.repair = RepairTime{RepairTime::Kind::kExponential, kLlama3NodeRepair};
  node.cause = "node";
  return {gpu, node};
}

}  // namespace gantry
