#include "engine/policy/actions.hpp"

namespace gantry {

const char* to_string(Observation::Kind kind) {
  using K = Observation::Kind;
  switch (kind) {
    case K::kSubmitted:
      return "submitted";
    case K::kDeleted:
      return "deleted";
    case K::kBound:
      return "bound";
    case K::kBindFailed:
      return "bind-failed";
    case K::kPodRunning:
      return "pod-running";
    case K::kRunning:
      return "running";
    case K::kPodSucceeded:
      return "pod-succeeded";
    case K::kFinished:
      return "finished";
    case K::kPodFailed:
      return "pod-failed";
    case K::kFailed:
      return "failed";
    case K::kEvicted:
      return "evicted";
    case K::kResized:
      return "resized";
    case K::kResizeFailed:
      return "resize-failed";
    case K::kNodeAdded:
      return "node-added";
    case K::kNodeRemoved:
      return "node-removed";
    case K::kNodeCordoned:
      return "node-cordoned";
    case K::kNodeUncordoned:
      return "node-uncordoned";
    case K::kNodeFailed:
      return "node-failed";
    case K::kNodeRecovered:
      return "node-recovered";
    case K::kSpotNotice:
      return "spot-notice";
    case K::kMetric:
      return "metric";
  }
  return "?";
}

}  // namespace gantry
