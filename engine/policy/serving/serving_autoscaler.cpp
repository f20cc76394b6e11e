#include "engine/policy/serving/serving_autoscaler.hpp"

#include "engine/policy/serving/hpa_autoscaler.hpp"
#include "engine/policy/serving/kpa_autoscaler.hpp"

namespace gantry {

namespace {

// `none`: min_replicas, always (the loader sets it from the service's `replicas`).
class FixedReplicas : public ServingAutoscaler {
 public:
  explicit FixedReplicas(const AutoscalerSpec& spec) : spec_(spec) {}
  Duration tick() const override { return spec_.sync_period; }
  int decide(Time, const ReplicaCounts&, const ServingMetrics&) override {
    return spec_.min_replicas;
  }

 private:
  AutoscalerSpec spec_;
};

}  // namespace

std::unique_ptr<ServingAutoscaler> make_serving_autoscaler(const AutoscalerSpec& spec) {
  switch (spec.kind) {
    case AutoscalerKind::kHpa:
      return std::make_unique<HpaAutoscaler>(spec);
    case AutoscalerKind::kKpa:
      return std::make_unique<KpaAutoscaler>(spec);
    case AutoscalerKind::kNone:
      break;
  }
  return std::make_unique<FixedReplicas>(spec);
}

}  // namespace gantry
