#pragma once
// The flags every command that talks to `gantry serve` takes: --server URL (default
// $GANTRY_SERVER, else http://127.0.0.1:8080), --token T (default $GANTRY_TOKEN, else the first
// line of --token-file).

#include <CLI/CLI.hpp>
#include <string>

namespace gantry::cli {

struct ServerFlags {
  std::string server;
  std::string token;
  std::string token_file;
};

void add_server_flags(CLI::App* cmd, ServerFlags& f);

// The value of environment variable `name`, or `fallback` when unset or empty.
std::string env_or(const char* name, std::string fallback);

// The server URL and token the flags (and environment) name. Throws GantryError when
// --token-file cannot be read.
std::string server_url(const ServerFlags& f);
std::string server_token(const ServerFlags& f);

}  // namespace gantry::cli
