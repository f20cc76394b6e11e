#include "tools/gantry/server_flags.hpp"

#include <cstdlib>
#include <fstream>

#include "engine/core/errors.hpp"

namespace gantry::cli {

void add_server_flags(CLI::App* cmd, ServerFlags& f) {
  cmd->add_option("--server", f.server,
                  "Server URL (default $GANTRY_SERVER, else http://127.0.0.1:8080)");
  cmd->add_option("--token", f.token, "Bearer token (default $GANTRY_TOKEN, else --token-file)");
  cmd->add_option("--token-file", f.token_file,
                  "File holding the token (the server's admin token file)");
}

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

std::string server_url(const ServerFlags& f) {
  return f.server.empty() ? env_or("GANTRY_SERVER", "http://127.0.0.1:8080") : f.server;
}

std::string server_token(const ServerFlags& f) {
  std::string token = f.token.empty() ? env_or("GANTRY_TOKEN", "") : f.token;
  if (token.empty() && !f.token_file.empty()) {
    std::ifstream in(f.token_file);
    if (!in) throw GantryError("--token-file: cannot read " + f.token_file);
    std::getline(in >> std::ws, token);
  }
  return token;
}

}  // namespace gantry::cli
