#pragma once
// Thin clients of `gantry serve` (web/API.md), so YAML submission from a terminal or CI goes
// through the server's API and its checks:
//
//   gantry pipeline apply FILE... [--dry-run]    POST /api/v1/pipelines, one file at a time
//   gantry pipeline list                         GET  /api/v1/pipelines, as a table
//   gantry pipeline get NAME [--format yaml|json]
//   gantry pipeline trigger NAME                 POST /api/v1/pipelines/NAME/trigger
//   gantry token create [--role admin|editor|viewer | --read-only] [--name N] --db PATH
//   gantry token list --db PATH                  id, name, role, created, last used
//   gantry token revoke NAME | --id ID --db PATH
//     (the token commands are local: they read and write the server's database, which a
//     running server sees at its next request)
//
// Every client command takes --server URL (default $GANTRY_SERVER, else http://127.0.0.1:8080)
// and --token T (default $GANTRY_TOKEN, else the contents of --token-file). Exit codes: 0 ok;
// 2 when the server refuses the request (4xx; its message printed) or cannot be reached (the
// URL named); 1 for a 5xx.

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_pipeline_client_commands(CLI::App& pipeline);
void add_token_command(CLI::App& app);

}  // namespace gantry::cli
