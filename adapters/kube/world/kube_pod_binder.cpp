#include "adapters/kube/world/kube_pod_binder.hpp"

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/request_bodies.hpp"

namespace gantry::kube {

namespace {

std::string pod_path(const PodRef& p) {
  return "/api/v1/namespaces/" + p.namespace_name + "/pods/" + p.name;
}

}  // namespace

KubePodBinder::KubePodBinder(KubeClient& client, ApiWorkers& workers, ApiWorkers& event_workers,
                             EventLoop& loop, std::string instance)
    : client_(client),
      workers_(workers),
      event_workers_(event_workers),
      loop_(loop),
      instance_(std::move(instance)) {}

void KubePodBinder::bind(const PodBinding& binding, std::function<void(Status)> done) {
  workers_.submit([this, binding, done = std::move(done)]() mutable {
    Status result = Status::ok();
    try {
      // The GPUs travel with the binding: one write sets the node and the annotation.
      std::map<std::string, std::string> annotations;
      if (!binding.gpu_index.empty()) {
        std::string gpus;
        for (int g : binding.gpu_index) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
        annotations[std::string(kGpuIndexAnnotation)] = gpus;
      }
      const WriteResult r = client_.bind(binding.pod.namespace_name, binding.pod.name, binding.node,
                                         binding.pod.uid, annotations);
      if (r.outcome != WriteOutcome::kOk) result = Status::error(describe(r));
    } catch (const std::exception& e) {
      result = Status::error(e.what());
    }
    loop_.post([done = std::move(done), result]() mutable { done(std::move(result)); });
  });
}

void KubePodBinder::evict(const PodRef& pod, const std::string&) {
  workers_.submit([this, pod] {
    DeleteOptions o;
    o.uid = pod.uid;
    try {
      (void)client_.remove(pod_path(pod), o);  // gone or replaced already: nothing to undo
    } catch (const std::exception&) {
      // The informer shows whether the pod went; a failed delete leaves it to its owner.
    }
  });
}

void KubePodBinder::record(const PodEvent& event) {
  EventSpec e;
  e.regarding.namespace_name = event.pod.namespace_name;
  e.regarding.name = event.pod.name;
  e.regarding.uid = event.pod.uid;
  e.type = event.warning ? "Warning" : "Normal";
  e.reason = event.reason;
  e.action = event.action;
  e.note = event.note;
  e.reporting_instance = instance_;
  e.event_time = loop_.now();
  event_workers_.submit([this, e] {
    try {
      (void)client_.create_event(e);
    } catch (const std::exception&) {
      // Events are best effort, as in kube-scheduler: a lost one never blocks scheduling.
    }
  });
}

}  // namespace gantry::kube
