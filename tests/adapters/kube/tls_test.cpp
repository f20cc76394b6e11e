// TLS against the fake API server with certificates made by openssl at test time: the right CA
// verifies, a wrong CA fails, insecure-skip-tls-verify is honoured only when set, client
// certificates authenticate, and a kubeconfig naming all of it works end to end.

#include <gtest/gtest.h>

#include <thread>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_config.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace tls_test {

using testing::FakeApiServer;
using testing::FakeApiServerOptions;
using testing::read_text;
using testing::test_certs;

const char* kPods = "/api/v1/namespaces/default/pods";

FakeApiServerOptions tls_options(bool require_client_cert = false) {
  FakeApiServerOptions o;
  o.tls_pem_file = test_certs().server_pem;
  if (require_client_cert) o.client_ca_file = test_certs().ca_cert;
  return o;
}

int status_with(const KubeConfig& config) {
  KubeClient client(config);
  return client.request("GET", kPods).status;
}

TEST(KubeTls, RightCaVerifies) {
  FakeApiServer server(tls_options());
  ASSERT_EQ(server.url().rfind("https://127.0.0.1:", 0), 0u);
  KubeConfig c = testing::config_for(server.url());
  c.ca_pem = read_text(test_certs().ca_cert);
  EXPECT_EQ(status_with(c), 200);
}

TEST(KubeTls, WrongCaFails) {
  FakeApiServer server(tls_options());
  KubeConfig c = testing::config_for(server.url());
  c.ca_pem = read_text(test_certs().other_ca_cert);
  EXPECT_THROW(status_with(c), KubeTransportError);
}

TEST(KubeTls, SystemCasDoNotKnowTheTestCa) {
  FakeApiServer server(tls_options());
  EXPECT_THROW(status_with(testing::config_for(server.url())), KubeTransportError);
}

TEST(KubeTls, InsecureSkipOnlyWhenSet) {
  FakeApiServer server(tls_options());
  KubeConfig c = testing::config_for(server.url());
  c.ca_pem = read_text(test_certs().other_ca_cert);
  c.insecure_skip_tls_verify = true;
  EXPECT_EQ(status_with(c), 200);
  c.insecure_skip_tls_verify = false;
  EXPECT_THROW(status_with(c), KubeTransportError);
}

TEST(KubeTls, ClientCertificateAuthenticates) {
  FakeApiServer server(tls_options(/*require_client_cert=*/true));
  KubeConfig c = testing::config_for(server.url());
  c.ca_pem = read_text(test_certs().ca_cert);
  EXPECT_THROW(status_with(c), KubeTransportError);  // no certificate: handshake refused
  c.client_cert_pem = read_text(test_certs().client_cert);
  c.client_key_pem = read_text(test_certs().client_key);
  EXPECT_EQ(status_with(c), 200);
}

TEST(KubeTls, KubeconfigEndToEnd) {
  FakeApiServer server(tls_options(/*require_client_cert=*/true));
  testing::TempDir dir;
  const std::string path = dir.write(
      "config",
      "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
      "clusters:\n- name: fake\n  cluster:\n    server: " +
          server.url() + "\n    certificate-authority: " + test_certs().ca_cert +
          "\n"
          "contexts:\n- name: fake\n  context: {cluster: fake, user: me, namespace: ml}\n"
          "users:\n- name: me\n  user:\n    token: s3cret\n"
          "    client-certificate: " +
          test_certs().client_cert + "\n    client-key: " + test_certs().client_key + "\n");
  const KubeConfig c = load_kubeconfig(path);
  EXPECT_EQ(c.namespace_name, "ml");
  KubeClient client(c);
  EXPECT_EQ(client.request("GET", "/api/v1/namespaces/ml/pods").status, 200);
  EXPECT_EQ(server.requests().back().headers.at("authorization"), "Bearer s3cret");
}

TEST(KubeTls, WatchStreamsAndDropsOverTls) {
  FakeApiServer server(tls_options());
  KubeConfig c = testing::config_for(server.url());
  c.ca_pem = read_text(test_certs().ca_cert);
  KubeClient client(c);
  std::thread writer([&] {
    server.wait_for_watches_started(1);
    server.apply(kPods, {{"metadata", {{"name", "a"}}}});
    server.drop_watches();  // after the event: the fake flushes it before cutting
  });
  std::vector<std::string> names;
  const WatchResult r =
      client.watch(std::string(kPods) + "?watch=true&resourceVersion=1", [&](WatchEvent& e) {
        names.push_back(name_of(e.object));
        return true;
      });
  writer.join();
  EXPECT_EQ(names, std::vector<std::string>{"a"});
  EXPECT_EQ(r.end, WatchEnd::kTransportError);
}

}  // namespace tls_test
}  // namespace gantry::kube
