#include "tools/gantry/server_client_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/manual_links.hpp"
#include "tools/gantry/server_flags.hpp"
#include "web/client/http_client.hpp"
#include "web/server/token_store.hpp"

namespace gantry::cli {

namespace {

std::unique_ptr<web::HttpClient> connect(const ServerFlags& f) {
  return std::make_unique<web::HttpClient>(server_url(f),
                                           web::ClientOptions{.token = server_token(f)});
}

// Sends a request; a transport failure is bad input naming the server.
web::ClientResponse send(web::HttpClient& client, const std::string& method,
                         const std::string& path, const std::string& body = {},
                         const std::string& content_type = {}) {
  try {
    return client.request(method, path, body, content_type);
  } catch (const std::runtime_error& e) {
    throw GantryError(
        fmt::format("cannot reach the server at {}: {}", client.base_url(), e.what()));
  }
}

// The server's error message for a failed answer.
std::string error_message(const web::ClientResponse& r) {
  try {
    const auto j = nlohmann::json::parse(r.body);
    if (j.contains("error")) return j["error"].value("message", r.body);
  } catch (const nlohmann::json::exception&) {
  }
  return r.body;
}

void check(const web::ClientResponse& r, const std::string& what) {
  if (r.status >= 200 && r.status < 300) return;
  const std::string msg = fmt::format("{}: HTTP {}: {}", what, r.status, error_message(r));
  if (r.status >= 500) throw std::runtime_error(msg);
  throw GantryError(msg);
}

std::string path_segment(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string read_request_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GantryError("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "; 3 runs would start at once (2026-11-01T00:00:00Z .. 2026-11-01T02:00:00Z)" from a
// summary's catchUp, "" when none would.
std::string catch_up_note(const nlohmann::json& p) {
  if (!p.contains("catchUp") || p["catchUp"].value("runs", 0) == 0) return "";
  const auto& c = p["catchUp"];
  const int64_t runs = c.value("runs", 0);
  const std::string first = c["first"].is_string() ? c["first"].get<std::string>() : "";
  const std::string last = c["last"].is_string() ? c["last"].get<std::string>() : "";
  return fmt::format("; {} run{} would start at once ({})", runs, runs == 1 ? "" : "s",
                     first == last ? last : first + " .. " + last);
}

void apply(const ServerFlags& f, const std::vector<std::string>& args, bool dry_run, bool start) {
  auto client = connect(f);
  bool failed = false;
  for (const std::string& file : expand_pipeline_args(args)) {
    const web::ClientResponse r =
        send(*client, "POST",
             std::string("/api/v1/pipelines?paused=") + (start ? "false" : "true") +
                 (dry_run ? "&dryRun=true" : ""),
             read_request_file(file), "application/yaml");
    if (r.status == 400) {
      // Validation errors, each with its place in this file.
      const auto j = nlohmann::json::parse(r.body, nullptr, false);
      if (!j.is_discarded() && j.contains("errors")) {
        std::vector<InputError> errors;
        for (const auto& e : j["errors"]) {
          fmt::print(stderr, "{}:{}:{}: {}: {}\n", file, e.value("line", 0), e.value("column", 0),
                     e.value("path", ""), e.value("message", ""));
          errors.emplace_back(SourceLocation{file, e.value("line", 0), e.value("column", 0)},
                              e.value("path", ""), e.value("message", ""));
        }
        print_manual_links(errors);  // as `pipeline validate` does
        failed = true;
        continue;
      }
    }
    check(r, file);
    const auto j = nlohmann::json::parse(r.body);
    // What the server's cluster cannot hold: applied, but said with its place in the file.
    for (const auto& w : j.value("warnings", nlohmann::json::array()))
      fmt::print(stderr, "{}:{}:{}: warning: {}: {}\n", file, w.value("line", 0),
                 w.value("column", 0), w.value("path", ""), w.value("message", ""));
    for (const auto& p : j.value("pools", nlohmann::json::array()))
      fmt::print("pool/{} {}\n", p.value("name", ""),
                 dry_run ? "valid" : (r.status == 201 ? "applied" : "configured"));
    for (const auto& p : j.value("pipelines", nlohmann::json::array())) {
      const std::string name = p.value("name", "");
      std::string note;
      if (p.value("paused", false))
        note = " (paused: gantry pipeline resume " + name + " starts its schedule" +
               catch_up_note(p) + ")";
      else if (!catch_up_note(p).empty())
        note = " (" + catch_up_note(p).substr(2) + ")";
      fmt::print("pipeline/{} {}{}\n", name,
                 dry_run ? "valid" : (r.status == 201 ? "applied" : "configured"),
                 p.contains("schedule") && !p["schedule"].is_null() ? note : "");
    }
  }
  if (failed) throw CLI::RuntimeError(2);
}

// A list that looks complete may not be: a stored pipeline the server could not load is not in
// it, and a full disk stops its scheduler. What the server reports (GET /api/v1/problems, as
// /readyz) goes to standard error; a server without that route says nothing.
void warn_of_server_problems(web::HttpClient& client) {
  const web::ClientResponse r = send(client, "GET", "/api/v1/problems");
  if (r.status != 200) return;
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j["problems"].is_array() || j["problems"].empty()) return;
  fmt::print(stderr, "warning: the server reports {} problem{}:\n", j["problems"].size(),
             j["problems"].size() == 1 ? "" : "s");
  for (const auto& p : j["problems"])
    if (p.is_string()) fmt::print(stderr, "  {}\n", p.get<std::string>());
}

void list(const ServerFlags& f) {
  auto client = connect(f);
  const web::ClientResponse r = send(*client, "GET", "/api/v1/pipelines");
  check(r, "list");
  const auto j = nlohmann::json::parse(r.body);
  fmt::print("{:<28} {:<18} {:<7} {:<22} {}\n", "NAME", "SCHEDULE", "PAUSED", "NEXT", "LAST RUN");
  for (const auto& p : j["pipelines"]) {
    const std::string schedule = p["schedule"].is_object() ? p["schedule"].value("cron", "") : "-";
    const std::string next = p["nextTicks"].empty() ? "-" : p["nextTicks"][0].get<std::string>();
    std::string last = "-";
    if (p["lastRun"].is_object())
      last = p["lastRun"].value("state", "") + " " + p["lastRun"].value("logicalTime", "");
    fmt::print("{:<28} {:<18} {:<7} {:<22} {}\n", p.value("name", ""), schedule,
               p.value("paused", false) ? "yes" : "no", next, last);
  }
  warn_of_server_problems(*client);
}

void get(const ServerFlags& f, const std::string& name, const std::string& format) {
  auto client = connect(f);
  const web::ClientResponse r = send(*client, "GET", "/api/v1/pipelines/" + path_segment(name));
  check(r, name);
  const auto j = nlohmann::json::parse(r.body);
  if (format == "json") {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << j.value("yaml", "");
  }
}

// POST /pipelines/{name}/pause or /resume.
void set_paused(const ServerFlags& f, const std::string& name, bool pause) {
  auto client = connect(f);
  const web::ClientResponse r = send(
      *client, "POST", "/api/v1/pipelines/" + path_segment(name) + (pause ? "/pause" : "/resume"));
  check(r, name);
  fmt::print("pipeline/{} {}\n", name, pause ? "paused" : "resumed");
}

// --param NAME=VALUE as the JSON value the pipeline's param of that name takes (its type from
// GET /pipelines/{name}); a name it does not have goes as a string, for the server to refuse.
nlohmann::json param_values(web::HttpClient& client, const std::string& name,
                            const std::vector<std::string>& given) {
  nlohmann::json out = nlohmann::json::object();
  if (given.empty()) return out;
  const web::ClientResponse r = send(client, "GET", "/api/v1/pipelines/" + path_segment(name));
  check(r, name);
  std::map<std::string, std::string> types;
  for (const auto& p : nlohmann::json::parse(r.body).value("params", nlohmann::json::array()))
    types[p.value("name", "")] = p.value("type", "string");
  for (const std::string& item : given) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw GantryError("--param " + item + ": expected NAME=VALUE");
    const std::string key = item.substr(0, eq), text = item.substr(eq + 1);
    const std::string type = types.count(key) != 0 ? types[key] : "string";
    const auto wrong = [&] {
      return GantryError("--param " + item + ": " + key + " is " + (type == "int" ? "an " : "a ") +
                         type);
    };
    if (type == "string") {
      out[key] = text;
    } else if (type == "bool") {
      if (text != "true" && text != "false") throw wrong();
      out[key] = text == "true";
    } else {
      const nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
      if (!number.is_number() || (type == "int" && !number.is_number_integer())) throw wrong();
      out[key] = number;
    }
  }
  return out;
}

void trigger(const ServerFlags& f, const std::string& name,
             const std::vector<std::string>& params) {
  auto client = connect(f);
  const nlohmann::json values = param_values(*client, name, params);
  const web::ClientResponse r =
      send(*client, "POST", "/api/v1/pipelines/" + path_segment(name) + "/trigger",
           values.empty() ? std::string() : nlohmann::json({{"params", values}}).dump(),
           values.empty() ? std::string() : std::string("application/json"));
  check(r, name);
  const auto j = nlohmann::json::parse(r.body);
  fmt::print("run {} {} ({})\n", name, j.value("logicalTime", ""), j.value("state", ""));
}

// POST .../runs/{logicalTime}/kill, or .../tasks/{task}/kill: prints what it stopped.
void kill(const ServerFlags& f, const std::string& name, const std::string& logical,
          const std::string& task) {
  auto client = connect(f);
  std::string path = "/api/v1/pipelines/" + path_segment(name) + "/runs/" + path_segment(logical);
  if (!task.empty()) path += "/tasks/" + path_segment(task);
  const web::ClientResponse r = send(*client, "POST", path + "/kill");
  check(r, name);
  const auto j = nlohmann::json::parse(r.body);
  if (task.empty()) {
    fmt::print("run {} {} {}\n", name, j.value("logicalTime", logical), j.value("state", ""));
    return;
  }
  for (const auto& t : j["tasks"])
    if (t.value("name", "") == task)
      fmt::print("task {} of run {} {} {}\n", task, name, j.value("logicalTime", logical),
                 t.value("state", ""));
}

// POST .../tasks/{task}/clear|mark-success|mark-failed[?dryRun=true]: prints each task the
// action changed (or would change) and the run's state.
void task_action(const ServerFlags& f, const std::string& name, const std::string& logical,
                 const std::string& task, const std::string& action, const nlohmann::json& body,
                 bool dry) {
  auto client = connect(f);
  const std::string path = "/api/v1/pipelines/" + path_segment(name) + "/runs/" +
                           path_segment(logical) + "/tasks/" + path_segment(task) + "/" + action +
                           (dry ? "?dryRun=true" : "");
  const web::ClientResponse r =
      send(*client, "POST", path, body.empty() ? std::string() : body.dump(),
           body.empty() ? std::string() : std::string("application/json"));
  check(r, name);
  const auto j = nlohmann::json::parse(r.body);
  const std::string verb = dry ? "would change" : "changed";
  for (const auto& c : j["changes"]) {
    std::string stops;
    if (c["stopsAttempt"].is_number())
      stops = fmt::format(" (stops attempt {})", c["stopsAttempt"].get<int>());
    fmt::print("task {}: {} -> {}{}\n", c.value("task", ""), c.value("from", ""), c.value("to", ""),
               stops);
  }
  fmt::print("run {} {} {}: {} -> {}\n", name, logical, verb, j["runState"].value("from", ""),
             j["runState"].value("to", ""));
}

// GET .../tasks/{task}/attempts/{n}/log, printed as it is.
void attempt_log(const ServerFlags& f, const std::string& name, const std::string& logical,
                 const std::string& task, int attempt) {
  auto client = connect(f);
  const web::ClientResponse r =
      send(*client, "GET",
           fmt::format("/api/v1/pipelines/{}/runs/{}/tasks/{}/attempts/{}/log", path_segment(name),
                       path_segment(logical), path_segment(task), attempt));
  check(r, name);
  std::cout << r.body;
}

// DELETE /pipelines/{name}[?purge=true]: says what became of its runs.
void delete_pipeline(const ServerFlags& f, const std::string& name, bool purge) {
  auto client = connect(f);
  const web::ClientResponse r = send(
      *client, "DELETE", "/api/v1/pipelines/" + path_segment(name) + (purge ? "?purge=true" : ""));
  check(r, name);
  const auto j = nlohmann::json::parse(r.body);
  if (purge)
    fmt::print("pipeline/{} deleted; {} runs purged\n", name, j.value("runsPurged", 0));
  else
    fmt::print("pipeline/{} deleted; {} runs kept\n", name, j.value("runsKept", 0));
}

}  // namespace

void add_pipeline_client_commands(CLI::App& pipeline) {
  auto f = std::make_shared<ServerFlags>();
  {
    auto files = std::make_shared<std::vector<std::string>>();
    auto dry = std::make_shared<bool>(false);
    auto start = std::make_shared<bool>(false);
    CLI::App* cmd = pipeline.add_subcommand(
        "apply", "Create or replace pipelines and pools on a running gantry serve");
    cmd->add_option("files", *files,
                    "Pipeline YAML files (a folder stands for its *.yaml and *.yml)")
        ->required();
    cmd->add_flag("--dry-run", *dry, "Only validate on the server");
    cmd->add_flag("--start", *start,
                  "Start the schedules of new pipelines at once (default: they start paused; "
                  "gantry pipeline resume NAME starts one)");
    add_server_flags(cmd, *f);
    cmd->footer("Example: gantry pipeline apply nightly.yaml --start");
    cmd->callback([f, files, dry, start] { apply(*f, *files, *dry, *start); });
  }
  {
    CLI::App* cmd = pipeline.add_subcommand("list", "List the pipelines of a running gantry serve");
    add_server_flags(cmd, *f);
    cmd->footer(
        "Example: gantry pipeline list --server http://127.0.0.1:8080 --token-file "
        "~/.gantry-token");
    cmd->callback([f] { list(*f); });
  }
  {
    auto name = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("yaml");
    CLI::App* cmd = pipeline.add_subcommand("get", "Show one pipeline of a running gantry serve");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_option("--format", *format, "yaml (as submitted) or json")
        ->check(CLI::IsMember({"yaml", "json"}));
    add_server_flags(cmd, *f);
    cmd->footer("Example: gantry pipeline get nightly --format json");
    cmd->callback([f, name, format] { get(*f, *name, *format); });
  }
  {
    auto name = std::make_shared<std::string>();
    auto params = std::make_shared<std::vector<std::string>>();
    CLI::App* cmd =
        pipeline.add_subcommand("trigger", "Start a manual run on a running gantry serve");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_option("--param", *params,
                    "NAME=VALUE for one of the pipeline's spec.params (repeatable); the others "
                    "take their defaults")
        ->allow_extra_args(false);
    add_server_flags(cmd, *f);
    cmd->footer("Example: gantry pipeline trigger bert-train --param epochs=10 --param lr=0.01");
    cmd->callback([f, name, params] { trigger(*f, *name, *params); });
  }
  for (const bool pause : {true, false}) {
    auto name = std::make_shared<std::string>();
    CLI::App* cmd = pipeline.add_subcommand(
        pause ? "pause" : "resume",
        pause ? "Stop a pipeline's schedule (runs in flight go on)"
              : "Start a pipeline's schedule again (missed ticks follow its catch-up rules)");
    cmd->add_option("name", *name, "Pipeline name")->required();
    add_server_flags(cmd, *f);
    cmd->footer(pause ? "Example: gantry pipeline pause nightly"
                      : "Example: gantry pipeline resume nightly");
    cmd->callback([f, name, pause] { set_paused(*f, *name, pause); });
  }
  {
    auto name = std::make_shared<std::string>();
    auto logical = std::make_shared<std::string>();
    auto task = std::make_shared<std::string>();
    CLI::App* cmd = pipeline.add_subcommand(
        "kill", "Stop a queued or running run, or one task of it, on a running gantry serve");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_option("logical-time", *logical, "The run's logical time (RFC 3339)")->required();
    cmd->add_option("--task", *task,
                    "Only this task: its attempt stops without retry, the rest of the run goes on");
    add_server_flags(cmd, *f);
    cmd->footer("Example: gantry pipeline kill nightly 2026-11-28T02:00:00Z --task train");
    cmd->callback([f, name, logical, task] { kill(*f, *name, *logical, *task); });
  }
  for (const char* action : {"clear", "mark-success", "mark-failed"}) {
    const std::string word = action;
    auto name = std::make_shared<std::string>();
    auto logical = std::make_shared<std::string>();
    auto task = std::make_shared<std::string>();
    auto dry = std::make_shared<bool>(false);
    auto downstream = std::make_shared<bool>(false);
    auto upstream = std::make_shared<bool>(false);
    auto failed_only = std::make_shared<bool>(false);
    CLI::App* cmd = pipeline.add_subcommand(
        word, word == "clear" ? "Run a task of a run again (Airflow's clear), with its downstream "
                                "or upstream if asked"
              : word == "mark-success"
                  ? "Declare a task of a queued or running run succeeded; its downstream follow"
                  : "Declare a task of a queued or running run failed; its downstream follow");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_option("logical-time", *logical, "The run's logical time (RFC 3339)")->required();
    cmd->add_option("--task", *task, "The task")->required();
    cmd->add_flag("--dry-run", *dry, "Only say what would change");
    if (word == "clear") {
      cmd->add_flag("--downstream", *downstream, "Also the tasks downstream of it");
      cmd->add_flag("--upstream", *upstream, "Also the tasks upstream of it");
      cmd->add_flag("--failed-only", *failed_only, "Only those failed, upstream_failed or killed");
    }
    add_server_flags(cmd, *f);
    cmd->footer(word == "clear"
                    ? "Example: gantry pipeline clear nightly 2026-11-28T02:00:00Z --task train "
                      "--downstream --dry-run"
                    : "Example: gantry pipeline " + word +
                          " nightly 2026-11-28T02:00:00Z --task load");
    cmd->callback([=] {
      nlohmann::json body = nlohmann::json::object();
      if (*downstream) body["downstream"] = true;
      if (*upstream) body["upstream"] = true;
      if (*failed_only) body["failedOnly"] = true;
      task_action(*f, *name, *logical, *task, word, body, *dry);
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto logical = std::make_shared<std::string>();
    auto task = std::make_shared<std::string>();
    auto attempt = std::make_shared<int>(1);
    CLI::App* cmd = pipeline.add_subcommand(
        "log", "The story of an attempt (and its pods' logs in the live world)");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_option("logical-time", *logical, "The run's logical time (RFC 3339)")->required();
    cmd->add_option("--task", *task, "The task")->required();
    cmd->add_option("--attempt", *attempt, "Attempt number, 1 for the first (default 1)")
        ->check(CLI::PositiveNumber);
    add_server_flags(cmd, *f);
    cmd->footer(
        "Example: gantry pipeline log nightly 2026-11-28T02:00:00Z --task train --attempt 2");
    cmd->callback([=] { attempt_log(*f, *name, *logical, *task, *attempt); });
  }
  {
    auto name = std::make_shared<std::string>();
    auto purge = std::make_shared<bool>(false);
    CLI::App* cmd = pipeline.add_subcommand(
        "delete", "Delete a pipeline of a running gantry serve (its runs kept unless --purge)");
    cmd->add_option("name", *name, "Pipeline name")->required();
    cmd->add_flag("--purge", *purge, "Also delete its stored runs, for good");
    add_server_flags(cmd, *f);
    cmd->footer("Example: gantry pipeline delete nightly --purge");
    cmd->callback([=] { delete_pipeline(*f, *name, *purge); });
  }
}

namespace {

// The database of `--db`: it must exist (the server made it), or the token would go where no
// server looks.
std::unique_ptr<web::TokenStore> open_token_store(const std::string& db) {
  if (!std::filesystem::exists(db))
    throw GantryError("--db: no database at " + db + " (start gantry serve first)");
  return std::make_unique<web::TokenStore>(db);
}

// To the second: the table is read by people (the API gives the microseconds).
std::string format_micros(int64_t us) {
  return us > 0 ? format_rfc3339(Time::from_micros(us - us % 1'000'000)) : "never";
}

// The first of "<role>-1", "<role>-2", ... that no token has: what a token made without --name
// is called.
std::string free_name(web::TokenStore& store, web::TokenRole role) {
  const std::vector<web::TokenInfo> tokens = store.list_users();
  for (int n = 1;; ++n) {
    const std::string name = fmt::format("{}-{}", web::to_string(role), n);
    if (std::none_of(tokens.begin(), tokens.end(),
                     [&](const web::TokenInfo& t) { return t.name == name; }))
      return name;
  }
}

}  // namespace

void add_token_command(CLI::App& app) {
  CLI::App* token = app.add_subcommand("token", "API tokens of gantry serve");
  token->footer("Example: gantry token create --name ci --role editor --db gantry.db");
  token->require_subcommand(1);
  auto db = std::make_shared<std::string>("gantry.db");
  {
    auto read_only = std::make_shared<bool>(false);
    auto name = std::make_shared<std::string>();
    auto role = std::make_shared<std::string>("admin");
    CLI::App* create =
        token->add_subcommand("create", "Create a token (printed once; only its hash is stored)");
    create->add_option("--db", *db, "The server's database (default gantry.db)");
    CLI::Option* role_opt =
        create
            ->add_option("--role", *role,
                         "admin (everything), editor (change pipelines, runs, sweeps; not tokens "
                         "or the audit log) or viewer (read only); default admin")
            ->check(CLI::IsMember({"admin", "editor", "viewer"}));
    create->add_flag("--read-only", *read_only, "A viewer token (the same as --role viewer)")
        ->excludes(role_opt);
    create->add_option("--name", *name,
                       "Whom or what the token is for, unique among tokens (default: "
                       "<role>-N, the first free N)");
    create->footer("Example: gantry token create --name ci --role editor --db gantry.db");
    create->callback([db, read_only, name, role] {
      auto store = open_token_store(*db);
      const web::TokenRole r = *read_only ? web::TokenRole::kViewer : *web::user_role_from(*role);
      const std::string n = name->empty() ? free_name(*store, r) : *name;
      std::cout << store->create(r, n) << "\n";
      fmt::print(stderr, "token '{}' ({}) created; it is shown only this once\n", n,
                 web::to_string(r));
    });
  }
  {
    CLI::App* list = token->add_subcommand(
        "list", "List the tokens: id, name, role, created, last used (never the tokens)");
    list->add_option("--db", *db, "The server's database (default gantry.db)");
    list->footer("Example: gantry token list --db gantry.db");
    list->callback([db] {
      auto store = open_token_store(*db);
      fmt::print("{:<5} {:<28} {:<7} {:<21} {}\n", "ID", "NAME", "ROLE", "CREATED", "LAST USED");
      for (const web::TokenInfo& t : store->list_users())
        fmt::print("{:<5} {:<28} {:<7} {:<21} {}\n", t.id, t.name, web::to_string(t.role),
                   format_micros(t.created_us), format_micros(t.last_used_us));
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto id = std::make_shared<int64_t>(0);
    CLI::App* revoke = token->add_subcommand(
        "revoke", "Revoke a token by name: a server refuses it at its next request");
    revoke->add_option("--db", *db, "The server's database (default gantry.db)");
    CLI::Option* name_opt = revoke->add_option("name", *name, "The token's name");
    revoke
        ->add_option("--id", *id,
                     "The token's id (gantry token list), for tokens that share a name")
        ->excludes(name_opt);
    revoke->footer("Example: gantry token revoke ci --db gantry.db");
    revoke->callback([db, name, id] {
      auto store = open_token_store(*db);
      if (*id != 0) {
        const auto tokens = store->list_users();
        const auto it = std::find_if(tokens.begin(), tokens.end(),
                                     [&](const web::TokenInfo& t) { return t.id == *id; });
        if (it == tokens.end()) throw GantryError(fmt::format("--id: no token with id {}", *id));
        if (it->role == web::TokenRole::kAdmin &&
            std::count_if(tokens.begin(), tokens.end(), [](const web::TokenInfo& t) {
              return t.role == web::TokenRole::kAdmin;
            }) == 1)
          throw GantryError(fmt::format(
              "--id: token {} '{}' is the only admin token: create another admin token first "
              "(gantry token create --role admin), or nothing could manage tokens",
              it->id, it->name));
        store->revoke(*id);
        fmt::print("revoked token {} '{}' ({})\n", it->id, it->name, web::to_string(it->role));
        return;
      }
      if (name->empty()) throw GantryError("revoke: name the token (or give --id)");
      web::TokenInfo revoked;
      switch (store->revoke_named(*name, &revoked)) {
        case web::RevokeOutcome::kRevoked:
          fmt::print("revoked token '{}' ({})\n", revoked.name, web::to_string(revoked.role));
          return;
        case web::RevokeOutcome::kNotFound:
          throw GantryError("no token named '" + *name + "' (gantry token list shows them)");
        case web::RevokeOutcome::kAmbiguous:
          throw GantryError("several tokens are named '" + *name +
                            "': revoke one with --id ID (gantry token list shows the ids)");
        case web::RevokeOutcome::kLastAdmin:
          throw GantryError("'" + *name +
                            "' is the only admin token: create another admin token first "
                            "(gantry token create --role admin), or nothing could manage tokens");
      }
    });
  }
}

}  // namespace gantry::cli
