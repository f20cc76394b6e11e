#include "adapters/kube/kube_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/kube/trim.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

// A node of the kubeconfig with its dotted path, for errors.
struct Field {
  YAML::Node node;
  std::string path;
};

class Reader {
 public:
  Reader(std::string file, std::string base_dir)
      : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& field,
                         const std::string& message) const {
    SourceLocation where{file_, mark.line >= 0 ? mark.line + 1 : 0,
                         mark.column >= 0 ? mark.column + 1 : 0};
    throw InputError(std::move(where), field, message);
  }
  [[noreturn]] void fail(const Field& f, const std::string& message) const {
    fail(f.node.Mark(), f.path, message);
  }

  // The child `key` of map `f`; nullopt when absent or null.
  std::optional<Field> child(const Field& f, const std::string& key) const {
    if (!f.node.IsMap()) fail(f, "expected a map");
    const YAML::Node c = f.node[key];
    if (!c.IsDefined() || c.IsNull()) return std::nullopt;
    return Field{c, f.path.empty() ? key : f.path + "." + key};
  }

  std::string string_at(const Field& f) const {
    if (!f.node.IsScalar()) fail(f, "expected a string");
    return f.node.Scalar();
  }
  std::optional<std::string> optional_string(const Field& f, const std::string& key) const {
    auto c = child(f, key);
    if (!c) return std::nullopt;
    return string_at(*c);
  }
  bool optional_bool(const Field& f, const std::string& key) const {
    auto c = child(f, key);
    if (!c) return false;
    const std::string v = string_at(*c);
    if (v == "true" || v == "True" || v == "TRUE") return true;
    if (v == "false" || v == "False" || v == "FALSE") return false;
    fail(*c, "expected true or false, got '" + v + "'");
  }

  // The `inner` map of the entry named `name` in the list `list_key` ("clusters" → "cluster").
  Field named_entry(const Field& root, const std::string& list_key, const std::string& inner,
                    const std::string& name, const Field& referrer) const {
    auto list = child(root, list_key);
    if (list && !list->node.IsSequence()) fail(*list, "expected a list");
    if (list) {
      for (size_t i = 0; i < list->node.size(); ++i) {
        Field entry{list->node[i], list_key + "[" + std::to_string(i) + "]"};
        auto entry_name = optional_string(entry, "name");
        if (!entry_name || *entry_name != name) continue;
        auto body = child(entry, inner);
        if (!body) fail(entry, "has no '" + inner + "'");
        if (!body->node.IsMap()) fail(*body, "expected a map");
        return *body;
      }
    }
    fail(referrer, "no entry named '" + name + "' in " + list_key);
  }

  std::string path_relative(const std::string& p) const {
    if (p.empty() || fs::path(p).is_absolute() || base_dir_.empty()) return p;
    return (fs::path(base_dir_) / p).string();
  }

  // `key-data` (base64) or `key` (a file); the data wins, as in kubectl.
  std::string pem(const Field& f, const std::string& key) const {
    if (auto data = child(f, key + "-data")) {
      auto decoded = decode_base64(string_at(*data));
      if (!decoded) fail(*data, "not valid base64");
      return *decoded;
    }
    if (auto file = child(f, key)) {
      const std::string path = path_relative(string_at(*file));
      auto content = read_file(path);
      if (!content) fail(*file, "cannot read " + path);
      return *content;
    }
    return {};
  }

 private:
  std::string file_;
  std::string base_dir_;
};

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t digits = 0;
  size_t padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;  // data after padding
    const int v = value(c);
    if (v < 0) return std::nullopt;
    ++digits;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (digits % 4 == 1 || padding > 2) return std::nullopt;
  if (padding > 0 && (digits + padding) % 4 != 0) return std::nullopt;
  return out;
}

KubeConfig parse_kubeconfig(std::string_view text, const std::string& file_name,
                            const std::string& base_dir, const std::string& context) {
  Reader r(file_name, base_dir);
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, "", "not valid YAML: " + e.msg);
  }
  const Field root{doc, ""};
  if (!doc.IsMap()) r.fail(root, "a kubeconfig must be a YAML map");

  KubeConfig out;
  // (Fields are never assigned to: assigning a YAML::Node writes into the node it refers to.)
  std::optional<Field> current;
  if (!context.empty()) {
    out.context = context;
  } else {
    current = r.child(root, "current-context");
    if (!current) r.fail(doc.Mark(), "current-context", "not set, and no context was named");
    out.context = r.string_at(*current);
  }
  const Field ctx =
      r.named_entry(root, "contexts", "context", out.context, current ? *current : root);
  auto cluster_name = r.child(ctx, "cluster");
  if (!cluster_name) r.fail(ctx, "has no cluster");
  auto user_name = r.child(ctx, "user");
  if (auto ns = r.optional_string(ctx, "namespace"); ns && !ns->empty()) out.namespace_name = *ns;

  const Field cluster =
      r.named_entry(root, "clusters", "cluster", r.string_at(*cluster_name), *cluster_name);
  auto server = r.child(cluster, "server");
  if (!server) r.fail(cluster, "has no server");
  out.server = r.string_at(*server);
  if (out.server.rfind("https://", 0) != 0 && out.server.rfind("http://", 0) != 0)
    r.fail(*server, "expected an http:// or https:// URL, got '" + out.server + "'");
  while (!out.server.empty() && out.server.back() == '/') out.server.pop_back();
  out.insecure_skip_tls_verify = r.optional_bool(cluster, "insecure-skip-tls-verify");
  out.ca_pem = r.pem(cluster, "certificate-authority");
  // Verifying against another name needs connect-to plumbing that is not built yet: refuse
  // rather than verify the wrong name.
  if (auto f = r.child(cluster, "tls-server-name")) r.fail(*f, "not supported by Gantry yet");

  if (user_name) {
    const Field user = r.named_entry(root, "users", "user", r.string_at(*user_name), *user_name);
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if (auto f = r.child(user, unsupported))
        r.fail(*f, "not supported by Gantry: use a token, a token file or a client certificate");
    }
    if (auto token = r.optional_string(user, "token")) out.token = *token;
    if (auto token_file = r.child(user, "tokenFile")) {
      out.token_file = r.path_relative(r.string_at(*token_file));
      if (!read_file(out.token_file)) r.fail(*token_file, "cannot read " + out.token_file);
    }
    out.client_cert_pem = r.pem(user, "client-certificate");
    out.client_key_pem = r.pem(user, "client-key");
    if (out.client_cert_pem.empty() != out.client_key_pem.empty())
      r.fail(user, "a client certificate needs a client key and the other way round");
  }
  return out;
}

KubeConfig load_kubeconfig(const std::string& path, const std::string& context) {
  auto text = read_file(path);
  if (!text) throw FileError("cannot read kubeconfig " + path);
  return parse_kubeconfig(*text, path, fs::path(path).parent_path().string(), context);
}

KubeConfig load_in_cluster_config(const InClusterOptions& options) {
  const auto env = [&](const char* name) -> std::optional<std::string> {
    if (options.getenv) return options.getenv(name);
    const char* v = std::getenv(name);
    return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
  };
  auto host = env("KUBERNETES_SERVICE_HOST");
  auto port = env("KUBERNETES_SERVICE_PORT");
  const SourceLocation environment{"<environment>", 0, 0};
  if (!host || host->empty())
    throw InputError(environment, "KUBERNETES_SERVICE_HOST", "not set: not running in a pod?");
  if (!port || port->empty())
    throw InputError(environment, "KUBERNETES_SERVICE_PORT", "not set: not running in a pod?");
  KubeConfig out;
  const bool v6 = host->find(':') != std::string::npos;
  out.server = "https://" + (v6 ? "[" + *host + "]" : *host) + ":" + *port;
  out.context = "in-cluster";
  const std::string root = options.root;
  out.token_file = root + "/token";
  if (!read_file(out.token_file)) throw FileError("cannot read " + out.token_file);
  auto ca = read_file(root + "/ca.crt");
  if (!ca) throw FileError("cannot read " + root + "/ca.crt");
  out.ca_pem = *ca;
  if (auto ns = read_file(root + "/namespace"); ns && !trim(*ns).empty())
    out.namespace_name = trim(*ns);
  return out;
}

}  // namespace gantry::kube
