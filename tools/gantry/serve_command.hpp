#pragma once
// `gantry serve [--db PATH] [--listen HOST:PORT] [--world sim|kube] [--cluster SCENARIO.yaml]
//               [--admission ADMISSION.yaml --queue NAME (kube)]
//               [--speed N] [--pipelines DIR] [--ui DIR] [--scenarios DIR]
//               [--tls-cert FILE --tls-key FILE] [--allow-origin ORIGIN]`
// The long-running orchestrator with its REST API and web UI (web/server, web/API.md).
//
// Signals: SIGTERM and SIGINT stop it gracefully (no new connections, requests in progress
// answered, event streams closed, the database written and closed, exit 0), within 10 s
// whatever runs: past that it exits at once with code 1, the database as after kill -9;
// SIGHUP reloads --pipelines DIR. kill -9 at any moment loses nothing committed
// (web/server/serve_engine.hpp). `hooks.runs_commit` goes to the runs database (cli.hpp).

#include <CLI/CLI.hpp>

#include "tools/gantry/cli.hpp"

namespace gantry::cli {

void add_serve_command(CLI::App& app, const CliHooks& hooks = {});

}  // namespace gantry::cli
