#include "tests/adapters/kube/test_support.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gantry::kube::testing {

namespace fs = std::filesystem;

bool RecordingSleeper::sleep_for(Duration d) {
  std::lock_guard lock(mutex_);
  if (interrupted_) return false;
  waits_.push_back(d);
  if (clock_ != nullptr && d > Duration(0)) clock_->jump_to(clock_->now() + d);
  return true;
}

void RecordingSleeper::interrupt() {
  std::lock_guard lock(mutex_);
  interrupted_ = true;
}

void RecordingSleeper::reset() {
  std::lock_guard lock(mutex_);
  interrupted_ = false;
}

std::vector<Duration> RecordingSleeper::waits() const {
  std::lock_guard lock(mutex_);
  return waits_;
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = fs::temp_directory_path() /
          ("gantry-kube-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  const std::string p = file(name);
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string captures_dir() { return std::string(GANTRY_SOURCE_DIR) + "/tests/data/k8s-captures"; }
std::string openapi_dir() {
  return std::string(GANTRY_SOURCE_DIR) + "/tests/data/k8s-openapi/v1.32";
}

namespace {

void run(const std::string& command) {
  if (std::system((command + " > /dev/null 2>&1").c_str()) != 0)
    throw std::runtime_error("failed: " + command);
}

TestCerts make_certs() {
  static TempDir dir;  // lives until the process ends
  const std::string d = dir.path().string();
  const std::string ossl = "openssl";
  // CA and an unrelated CA.
  for (const char* name : {"ca", "other-ca"}) {
    run(ossl +
        " req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "
        "/CN=gantry-test-" +
        name + " -keyout " + d + "/" + name + ".key -out " + d + "/" + name + ".crt");
  }
  dir.write("server.ext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
  dir.write("client.ext",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=clientAuth\n");
  for (const char* name : {"server", "client"}) {
    const std::string n = name;
    run(ossl +
        " req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=gantry-test-" + n +
        " -keyout " + d + "/" + n + ".key -out " + d + "/" + n + ".csr");
    run(ossl + " x509 -req -in " + d + "/" + n + ".csr -CA " + d + "/ca.crt -CAkey " + d +
        "/ca.key -CAcreateserial -days 2 -extfile " + d + "/" + n + ".ext -out " + d + "/" + n +
        ".crt");
  }
  dir.write("server.pem", read_text(d + "/server.key") + read_text(d + "/server.crt"));
  return {d + "/ca.crt", d + "/other-ca.crt", d + "/server.pem", d + "/client.crt",
          d + "/client.key"};
}

}  // namespace

const TestCerts& test_certs() {
  static const TestCerts certs = make_certs();
  return certs;
}

KubeConfig config_for(const std::string& url) {
  KubeConfig c;
  c.server = url;
  c.context = "test";
  return c;
}

std::vector<std::string> confirm_deletions(KubeClient& client, const std::string& pods_path) {
  std::vector<std::string> out;
  const nlohmann::json list = client.get(pods_path);
  for (const nlohmann::json& pod : list.value("items", nlohmann::json::array())) {
    const nlohmann::json& meta = pod["metadata"];
    if (!meta.contains("deletionTimestamp")) continue;
    DeleteOptions o;
    o.uid = meta.value("uid", "");
    o.grace_period_seconds = 0;
    const std::string name = meta.value("name", "");
    if (client.remove(pods_path + "/" + name, o).outcome == WriteOutcome::kOk) out.push_back(name);
  }
  return out;
}

}  // namespace gantry::kube::testing
