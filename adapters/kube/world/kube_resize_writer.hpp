#pragma once
// The ResizeWriter (resize_writer.hpp) over the Kubernetes API: each call runs on an ApiWorkers
// thread and its completion is posted to the event loop.
//
//   create_pod:       POST /api/v1/namespaces/{ns}/pods
//   write_config_map: PUT /api/v1/namespaces/{ns}/configmaps/{name} (unconditional: no
//                     resourceVersion); on 404 POST to the collection; on a 409 AlreadyExists
//                     from that POST (someone created it meanwhile) the PUT once more.
//
// Thread-safety: calls on the loop thread; the client and the workers are thread-safe.

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/world/resize_writer.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

class KubeResizeWriter final : public ResizeWriter {
 public:
  // All must outlive the writer.
  KubeResizeWriter(KubeClient& client, ApiWorkers& workers, EventLoop& loop);

  void create_pod(const std::string& ns, const nlohmann::json& pod,
                  std::function<void(Result<std::string>)> done) override;
  void write_config_map(const std::string& ns, const std::string& name,
                        const std::map<std::string, std::string>& data,
                        const std::map<std::string, std::string>& labels,
                        std::function<void(Status)> done) override;

 private:
  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
};

}  // namespace gantry::kube
