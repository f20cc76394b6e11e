#include "adapters/kube/world/kube_resize_writer.hpp"

#include "adapters/kube/request_bodies.hpp"

namespace gantry::kube {

std::string hosts_config_map_name(const std::string& job) { return job + "-hosts"; }

KubeResizeWriter::KubeResizeWriter(KubeClient& client, ApiWorkers& workers, EventLoop& loop)
    : client_(client), workers_(workers), loop_(loop) {}

void KubeResizeWriter::create_pod(const std::string& ns, const nlohmann::json& pod,
                                  std::function<void(Result<std::string>)> done) {
  workers_.submit([this, ns, pod, done = std::move(done)]() mutable {
    Result<std::string> result = Status::error("not created");
    try {
      const WriteResult r = client_.create("/api/v1/namespaces/" + ns + "/pods", pod);
      if (r.outcome == WriteOutcome::kOk) {
        result = r.object["metadata"].value("uid", std::string());
      } else {
        result = Status::error(describe(r));
      }
    } catch (const std::exception& e) {
      result = Status::error(e.what());
    }
    loop_.post([done = std::move(done), result = std::move(result)]() mutable {
      done(std::move(result));
    });
  });
}

void KubeResizeWriter::write_config_map(const std::string& ns, const std::string& name,
                                        const std::map<std::string, std::string>& data,
                                        const std::map<std::string, std::string>& labels,
                                        std::function<void(Status)> done) {
  const nlohmann::json body = config_map_body(ns, name, data, labels);
  workers_.submit([this, ns, name, body, done = std::move(done)]() mutable {
    Status result = Status::ok();
    try {
      const std::string collection = "/api/v1/namespaces/" + ns + "/configmaps";
      WriteResult r = client_.update(collection + "/" + name, body);
      if (r.outcome == WriteOutcome::kNotFound) {
        r = client_.create(collection, body);
        if (r.outcome == WriteOutcome::kAlreadyExists)
          r = client_.update(collection + "/" + name, body);
      }
      if (r.outcome != WriteOutcome::kOk) result = Status::error(describe(r));
    } catch (const std::exception& e) {
      result = Status::error(e.what());
    }
    loop_.post([done = std::move(done), result]() mutable { done(std::move(result)); });
  });
}

}  // namespace gantry::kube
