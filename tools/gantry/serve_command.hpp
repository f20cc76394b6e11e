#pragma once
// `gantry serve [--db PATH] [--listen HOST:PORT] [--world sim|kube] [--cluster SCENARIO.yaml]
//               [--admission ADMISSION.yaml --queue NAME (kube)]
//               [--speed N] [--pipelines DIR] [--ui DIR] [--scenarios DIR]
//               [--tls-cert FILE --tls-key FILE] [--allow-origin ORIGIN]`
// The long-running orchestrator with its REST API and web UI (web/server, web/API.md).
//
// Signals: SIGTERM and SIGINT stop it gracefully (no new connections, requests in progress
// answered, event streams closed, the database written and closed, exit 0); SIGHUP reloads
// --pipelines DIR. kill -9 at any moment loses nothing committed (web/server/serve_engine.hpp).

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_serve_command(CLI::App& app);

}  // namespace gantry::cli
