#include "engine/policy/queues/admission_config.hpp"

namespace gantry {

const char* to_string(PreemptionPolicy p) {
  switch (p) {
    case PreemptionPolicy::kNever:
      return "Never";
    case PreemptionPolicy::kLowerPriority:
      return "LowerPriority";
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return "LowerOrNewerEqualPriority";
    case PreemptionPolicy::kAny:
      return "Any";
  }
  return "?";
}

const char* to_string(FairSharingStrategy s) {
  switch (s) {
    case FairSharingStrategy::kLessThanOrEqualToFinalShare:
      return "LessThanOrEqualToFinalShare";
    case FairSharingStrategy::kLessThanInitialShare:
      return "LessThanInitialShare";
  }
  return "?";
}

}  // namespace gantry
