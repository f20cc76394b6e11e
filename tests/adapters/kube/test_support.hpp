#pragma once
// Shared helpers of the adapters/kube tests: a recording Sleeper, temporary folders, test
// certificates made with the openssl command-line tool, and the paths of the data files.

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_config.hpp"
#include "adapters/kube/sleeper.hpp"
#include "engine/core/clock.hpp"

namespace gantry::kube::testing {

// Records every requested wait and returns at once (true), advancing `clock` by the wait when
// one is given. interrupt() makes later waits return false. Thread-safe.
class RecordingSleeper final : public Sleeper {
 public:
  explicit RecordingSleeper(VirtualClock* clock = nullptr) : clock_(clock) {}
  bool sleep_for(Duration d) override;
  void interrupt() override;
  void reset() override;
  std::vector<Duration> waits() const;

 private:
  VirtualClock* clock_;
  mutable std::mutex mutex_;
  std::vector<Duration> waits_;
  bool interrupted_ = false;
};

// A fresh folder under the system's temporary folder, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `content` to path()/name and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::string& path);

// tests/data/k8s-captures and tests/data/k8s-openapi/v1.32 in the source tree.
std::string captures_dir();
std::string openapi_dir();

// Certificates for TLS tests, made once per process with `openssl` (a CA, a server certificate
// for 127.0.0.1 and localhost signed by it, a client certificate signed by it, and an
// unrelated CA). Paths to PEM files; server_pem holds the server's key and certificate.
struct TestCerts {
  std::string ca_cert;
  std::string other_ca_cert;
  std::string server_pem;
  std::string client_cert;
  std::string client_key;
};
// Throws std::runtime_error when openssl fails.
const TestCerts& test_certs();

// A KubeConfig for `url` with no authentication.
KubeConfig config_for(const std::string& url);

// The kubelets of a test that plays none: every pod of `pods_path` (a collection,
// "/api/v1/namespaces/ml/pods") that the API server keeps marked for deletion (a bound pod
// deleted or evicted gracefully: fake_api_server.hpp) is deleted with grace 0 and its uid, as
// its kubelet confirms once the pod's grace period is over. Call it where the test's time has
// passed the grace. Returns the names of the pods deleted, in name order. Blocking; throws
// what the client throws.
std::vector<std::string> confirm_deletions(KubeClient& client, const std::string& pods_path);

}  // namespace gantry::kube::testing
