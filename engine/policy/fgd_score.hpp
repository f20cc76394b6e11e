#pragma once
// The integer node score of FGD as the authors' simulator computes it
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/fgd_score.go,
// calculateGpuShareFragExtendScore(); sigmoid in plugin_utils.go):
//
//   score = floor(100 · sigmoid((F_before − F_after) / 1000))
//
// with F in milli-GPU, so the argument is the fragmentation the placement removes, in GPUs.
// The score is 50 for no change and moves by about one point per 40 milli-GPU near 0; growths
// that differ by less than that tie (and the tie goes to the lowest node id). On a node of at
// most 8 GPUs |ΔF| <= 8 GPUs, so scores stay within 0..99.
//
// Evaluated without exp() per node: score >= s exactly when the reduction is at least
// ln(s / (100 − s)) GPUs, so the 99 thresholds are computed once per workload, in the
// fragmentation model's scaled units (FragmentationModel::weight_total() per milli-GPU).

#include <array>
#include <cstdint>

namespace gantry {

class FgdScore {
 public:
  // weight_total: FragmentationModel::weight_total() of the model whose ΔF are scored.
  explicit FgdScore(int64_t weight_total = 0);

  // The score of a placement whose fragmentation growth is `delta_scaled`
  // (FragmentationModel::Move::delta).
  int score(int64_t delta_scaled) const;

 private:
  std::array<double, 99> thresholds_{};  // thresholds_[s − 1]: least reduction scoring >= s
  bool empty_ = true;
};

}  // namespace gantry
