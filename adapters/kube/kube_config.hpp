#pragma once
// Where the API server is and how to authenticate: from a kubeconfig file (what kubectl
// reads) or from inside a pod (the service account's files and KUBERNETES_SERVICE_HOST/PORT).
//
// Supported from kubeconfig: the current context or a named one; the cluster's `server`,
// `certificate-authority-data` (base64 PEM) or `certificate-authority` (a file, relative to the
// kubeconfig's folder), `insecure-skip-tls-verify` (honoured only when true);
// the user's `token`, `tokenFile`, `client-certificate(-data)`, `client-key(-data)`; the
// context's `namespace` ("default" when absent). Not supported, and reported as errors rather
// than ignored: `exec` and `auth-provider` credential plugins, `username`/`password`,
// the cluster's `tls-server-name`.
// Unknown keys are ignored, as kubectl does. Only the first file of a KUBECONFIG list is read.
//
// Errors: a file that cannot be read throws FileError. Anything wrong inside the kubeconfig
// throws InputError naming the file, the line and column (from yaml-cpp's marks) and the
// dotted field ("users[0].user.client-key-data: not valid base64"); a certificate or token file
// it names that cannot be read is an InputError at the field naming it. In-cluster: a missing
// KUBERNETES_SERVICE_HOST/PORT is an InputError on the file "<environment>", a missing token or
// CA file a FileError.
//
// Ownership: KubeConfig is a plain value holding the PEM bytes themselves, not paths (except
// token_file, which the client re-reads when it changes, as client-go does for rotated
// service-account tokens).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::kube {

struct KubeConfig {
  std::string server;  // "https://10.0.0.1:6443" (no trailing slash)
  std::string context;
  std::string namespace_name = "default";
  // TLS
  std::string ca_pem;  // the CA bundle to verify the server with; empty = the system's
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;  // both or neither
  std::string client_key_pem;
  // Bearer token: token_file (re-read when it changes) wins over token when both are set.
  std::string token;
  std::string token_file;
};

// Reads `path` and resolves `context` (empty = current-context).
KubeConfig load_kubeconfig(const std::string& path, const std::string& context = {});
// The same from text; `file_name` is used in errors, relative paths are resolved against
// `base_dir`.
KubeConfig parse_kubeconfig(std::string_view text, const std::string& file_name,
                            const std::string& base_dir, const std::string& context = {});

struct InClusterOptions {
  // Where the service account's files are mounted; tests point it at a temporary folder.
  std::string root = "/var/run/secrets/kubernetes.io/serviceaccount";
  // Reads an environment variable; nullopt when unset. Default: std::getenv.
  std::function<std::optional<std::string>(const char*)> getenv{};
};

// https://KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT (an IPv6 host bracketed), the CA from
// root/ca.crt, the token as root/token (token_file, re-read on rotation), the namespace from
// root/namespace ("default" if that file is absent).
KubeConfig load_in_cluster_config(const InClusterOptions& options = {});

// Strict base64 (RFC 4648, '=' padding optional, whitespace skipped); nullopt on any other
// character or a bad length.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace gantry::kube
