// kubeconfig and in-cluster configuration: the variants kubectl accepts and the errors for the
// ones Gantry refuses, each naming file, line and field.

#include "adapters/kube/kube_config.hpp"

#include <gtest/gtest.h>

#include <map>

#include "engine/core/errors.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace {

using testing::TempDir;

// "hello\n" in base64 is "aGVsbG8K"; "-----BEGIN X-----\n" is below.
constexpr const char* kPemB64 = "LS0tLS1CRUdJTiBYLS0tLS0K";  // "-----BEGIN X-----\n"

std::string two_contexts(const std::string& extra_cluster, const std::string& extra_user) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "current-context: dev\n"
         "clusters:\n"
         "- name: dev-cluster\n"
         "  cluster:\n"
         "    server: https://10.0.0.1:6443/\n" +
         extra_cluster +
         "- name: prod-cluster\n"
         "  cluster:\n"
         "    server: https://prod.example:443\n"
         "contexts:\n"
         "- name: dev\n"
         "  context:\n"
         "    cluster: dev-cluster\n"
         "    user: dev-user\n"
         "- name: prod\n"
         "  context:\n"
         "    cluster: prod-cluster\n"
         "    user: prod-user\n"
         "    namespace: ml\n"
         "users:\n"
         "- name: dev-user\n"
         "  user:\n" +
         extra_user +
         "- name: prod-user\n"
         "  user:\n"
         "    token: prod-token\n";
}

TEST(KubeConfig, CurrentContextWithInlineData) {
  const std::string text = two_contexts(
      std::string("    certificate-authority-data: ") + kPemB64 + "\n",
      std::string("    client-certificate-data: ") + kPemB64 + "\n    client-key-data: aGVsbG8K\n");
  const KubeConfig c = parse_kubeconfig(text, "kc.yaml", "/nowhere");
  EXPECT_EQ(c.context, "dev");
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(c.ca_pem, "-----BEGIN X-----\n");
  EXPECT_EQ(c.client_cert_pem, "-----BEGIN X-----\n");
  EXPECT_EQ(c.client_key_pem, "hello\n");
  EXPECT_EQ(c.namespace_name, "default");
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  EXPECT_TRUE(c.token.empty());
}

TEST(KubeConfig, ExplicitContextAndNamespace) {
  const KubeConfig c = parse_kubeconfig(two_contexts("", "    token: t\n"), "kc.yaml", "", "prod");
  EXPECT_EQ(c.context, "prod");
  EXPECT_EQ(c.server, "https://prod.example:443");
  EXPECT_EQ(c.token, "prod-token");
  EXPECT_EQ(c.namespace_name, "ml");
}

TEST(KubeConfig, FilesRelativeToTheKubeconfigFolder) {
  TempDir dir;
  dir.write("ca.crt", "CA PEM");
  std::filesystem::create_directories(dir.path() / "creds");
  dir.write("creds/tok", "file-token\n");
  dir.write("creds/c.crt", "CERT");
  dir.write("creds/c.key", "KEY");
  const std::string path = dir.write(
      "config", two_contexts("    certificate-authority: ca.crt\n",
                             "    tokenFile: creds/tok\n    client-certificate: creds/c.crt\n"
                             "    client-key: " +
                                 dir.file("creds/c.key") + "\n"));
  const KubeConfig c = load_kubeconfig(path);
  EXPECT_EQ(c.ca_pem, "CA PEM");
  EXPECT_EQ(c.token_file, dir.file("creds/tok"));
  EXPECT_EQ(c.client_cert_pem, "CERT");
  EXPECT_EQ(c.client_key_pem, "KEY");
}

TEST(KubeConfig, InsecureOnlyWhenSet) {
  EXPECT_TRUE(
      parse_kubeconfig(two_contexts("    insecure-skip-tls-verify: true\n", "    token: t\n"),
                       "kc.yaml", "")
          .insecure_skip_tls_verify);
  EXPECT_FALSE(
      parse_kubeconfig(two_contexts("    insecure-skip-tls-verify: false\n", "    token: t\n"),
                       "kc.yaml", "")
          .insecure_skip_tls_verify);
}

// Each bad kubeconfig and where its error must point (lines counted in two_contexts: the
// dev cluster's extra lines start at line 8, the dev user's extra lines at line 24 when the
// cluster adds none).
struct BadCase {
  std::string extra_cluster;
  std::string extra_user;
  int line;
  std::string field;
  std::string message_part;
};

TEST(KubeConfig, ErrorsNameFileLineAndField) {
  const std::vector<BadCase> cases = {
      {"    certificate-authority-data: not*base64\n", "", 8,
       "clusters[0].cluster.certificate-authority-data", "not valid base64"},
      {"    insecure-skip-tls-verify: maybe\n", "", 8,
       "clusters[0].cluster.insecure-skip-tls-verify", "expected true or false"},
      {"    certificate-authority: missing.crt\n", "", 8,
       "clusters[0].cluster.certificate-authority", "cannot read"},
      {"", "    client-key-data: '%%%'\n", 24, "users[0].user.client-key-data", "not valid base64"},
      {"", "    exec:\n      command: aws\n", 25, "users[0].user.exec", "not supported"},
      {"", "    tokenFile: /no/such/token\n", 24, "users[0].user.tokenFile", "cannot read"},
      {"", "    client-certificate-data: aGVsbG8K\n", 24, "users[0].user", "needs a client key"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.field);
    try {
      parse_kubeconfig(two_contexts(c.extra_cluster, c.extra_user), "bad.yaml", "/nowhere");
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, "bad.yaml");
      EXPECT_EQ(e.where().line, c.line);
      EXPECT_EQ(e.field(), c.field);
      EXPECT_NE(e.detail().find(c.message_part), std::string::npos) << e.what();
    }
  }
}

TEST(KubeConfig, ContextAndStructureErrors) {
  const auto error_of = [](const std::string& text, const std::string& context = {}) {
    try {
      parse_kubeconfig(text, "k.yaml", "", context);
    } catch (const InputError& e) {
      return std::make_pair(e.where().line, e.field() + ": " + e.detail());
    }
    return std::make_pair(-1, std::string("no error"));
  };
  // A context nobody defined: points at current-context (line 3).
  auto [line, what] = error_of(two_contexts("", "    token: t\n"), "staging");
  EXPECT_NE(what.find("no entry named 'staging' in contexts"), std::string::npos) << what;
  std::tie(line, what) = error_of("current-context: x\ncontexts: []\n");
  EXPECT_EQ(line, 1);
  EXPECT_EQ(what, "current-context: no entry named 'x' in contexts");
  std::tie(line, what) = error_of("clusters: [\n");
  EXPECT_GT(line, 0);
  EXPECT_NE(what.find("not valid YAML"), std::string::npos) << what;
  std::tie(line, what) = error_of("- a\n");
  EXPECT_NE(what.find("must be a YAML map"), std::string::npos) << what;
  std::tie(line, what) = error_of("contexts: []\n");
  EXPECT_EQ(what, "current-context: not set, and no context was named");
}

TEST(KubeConfig, MissingFileIsAFileError) {
  EXPECT_THROW(load_kubeconfig("/no/such/kubeconfig"), FileError);
}

TEST(KubeConfig, Base64) {
  EXPECT_EQ(decode_base64("aGVsbG8K"), "hello\n");
  EXPECT_EQ(decode_base64("aGVsbG8"),
            "hell"
            "o");  // unpadded: "hello"
  EXPECT_EQ(decode_base64("aGk="), "hi");
  EXPECT_EQ(decode_base64("aG\nk="), "hi");
  EXPECT_FALSE(decode_base64("a").has_value());
  EXPECT_FALSE(decode_base64("aGk=x").has_value());
  EXPECT_FALSE(decode_base64("aG!k").has_value());
}

TEST(KubeInClusterConfig, FromServiceAccountFiles) {
  TempDir dir;
  dir.write("token", "sa-token\n");
  dir.write("ca.crt", "CLUSTER CA");
  dir.write("namespace", "gantry-system\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  InClusterOptions options;
  options.root = dir.path().string();
  options.getenv = [&](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  KubeConfig c = load_in_cluster_config(options);
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.ca_pem, "CLUSTER CA");
  EXPECT_EQ(c.token_file, dir.file("token"));
  EXPECT_EQ(c.namespace_name, "gantry-system");

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  EXPECT_EQ(load_in_cluster_config(options).server, "https://[fd00::1]:443");

  std::filesystem::remove(dir.path() / "namespace");
  EXPECT_EQ(load_in_cluster_config(options).namespace_name, "default");

  env.erase("KUBERNETES_SERVICE_PORT");
  try {
    load_in_cluster_config(options);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "KUBERNETES_SERVICE_PORT");
    EXPECT_EQ(e.where().file, "<environment>");
  }
  env["KUBERNETES_SERVICE_PORT"] = "443";
  std::filesystem::remove(dir.path() / "token");
  EXPECT_THROW(load_in_cluster_config(options), FileError);
}

}  // namespace
}  // namespace gantry::kube
