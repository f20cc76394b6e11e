#include "web/client/sweep_coordinator_client.hpp"

namespace gantry::web {

namespace {

constexpr const char* kBase = "/api/v1/distributed-sweeps/";

// The server's error, as one message: {"error":{"code","message"}} or {"errors":[...]}.
SweepServerError server_error(const std::string& url, const ClientResponse& r) {
  const nlohmann::json b = nlohmann::json::parse(r.body, nullptr, false);
  std::string code = "http_" + std::to_string(r.status);
  std::string message = r.body.substr(0, 500);
  if (b.is_object() && b.contains("error") && b["error"].is_object()) {
    code = b["error"].value("code", code);
    message = b["error"].value("message", message);
  } else if (b.is_object() && b.contains("errors") && b["errors"].is_array()) {
    code = "invalid";
    message = "the sweep is not valid:";
    for (const nlohmann::json& e : b["errors"]) {
      if (!e.is_object()) continue;
      message += "\n  " + e.value("file", std::string()) + ":" +
                 std::to_string(e.value("line", 0)) + ":" + std::to_string(e.value("column", 0)) +
                 ": " + e.value("path", std::string()) + ": " + e.value("message", std::string());
    }
  }
  return SweepServerError(
      r.status, code,
      "gantry serve at " + url + ": " + std::to_string(r.status) + " " + code + ": " + message);
}

}  // namespace

SweepCoordinatorClient::SweepCoordinatorClient(std::string server_url, std::string token,
                                               std::string ca_file,
                                               const std::atomic<bool>* abandon)
    : url_(std::move(server_url)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  // Long polls last up to 60 s: the transfer's own bound is above that.
  http_ =
      std::make_unique<HttpClient>(url_, ClientOptions{.token = std::move(token),
                                                       .ca_file = std::move(ca_file),
                                                       .timeout = std::chrono::milliseconds(90'000),
                                                       .abandon = abandon});
}

nlohmann::json SweepCoordinatorClient::call(const std::string& method, const std::string& path,
                                            const nlohmann::json& body) {
  ClientResponse r;
  try {
    r = http_->request(method, path, body.is_null() ? std::string() : body.dump(),
                       body.is_null() ? std::string_view() : std::string_view("application/json"));
  } catch (const std::exception& e) {
    throw SweepServerUnreachable("cannot reach gantry serve at " + url_ + ": " + e.what());
  }
  if (r.status >= 400) throw server_error(url_, r);
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded())
    throw SweepServerError(r.status, "bad_answer",
                           "gantry serve at " + url_ + ": " + method + " " + path +
                               " answered something that is not JSON");
  return j;
}

SweepSubmission SweepCoordinatorClient::submit(const SweepDocuments& documents, size_t shards) {
  nlohmann::json body = documents_json(documents);
  body["shards"] = shards;
  const nlohmann::json j = call("POST", "/api/v1/distributed-sweeps", body);
  return {j.at("id"), j.at("shards"), j.at("runs"), j.at("token"), j.at("url")};
}

SweepShard SweepCoordinatorClient::shard(const std::string& id, size_t shard) {
  const nlohmann::json j = call("GET", kBase + id + "/shards/" + std::to_string(shard));
  SweepShard s;
  try {
    s.documents = documents_from_json(j);
    s.state = j.at("state");
    s.shard = j.at("shard");
    s.shards = j.at("shards");
    s.range = {j.at("begin"), j.at("end")};
    for (const nlohmann::json& r : j.at("recorded")) s.recorded.insert(r.get<size_t>());
  } catch (const nlohmann::json::exception& e) {
    throw SweepServerError(200, "bad_answer",
                           "gantry serve at " + url_ + ": a shard without " + e.what());
  }
  return s;
}

PostedRunsAnswer SweepCoordinatorClient::post_runs(const std::string& id, size_t shard,
                                                   const std::vector<PostedRun>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const PostedRun& r : runs) list.push_back(run_json(r));
  const nlohmann::json j =
      call("POST", kBase + id + "/shards/" + std::to_string(shard) + "/runs", {{"runs", list}});
  return {j.at("recorded"), j.at("duplicates"), j.at("runs").at("done"), j.at("runs").at("total"),
          j.at("state")};
}

void SweepCoordinatorClient::report_failure(const std::string& id, size_t shard,
                                            const std::string& message) {
  call("POST", kBase + id + "/shards/" + std::to_string(shard) + "/failure",
       {{"message", message}});
}

SweepProgress SweepCoordinatorClient::wait(const std::string& id, long long after,
                                           std::chrono::seconds timeout) {
  const long long t = std::min<long long>(60, std::max<long long>(0, timeout.count()));
  const nlohmann::json j =
      call("GET", kBase + id + "/progress?after=" + std::to_string(after < 0 ? -1 : after) +
                      "&timeout=" + std::to_string(t));
  return {j.at("state"), j.at("runs").at("done"), j.at("runs").at("total"), j.at("failures"),
          j.value("retry_after_ms", 0LL)};
}

nlohmann::json SweepCoordinatorClient::get(const std::string& id) {
  return call("GET", kBase + id);
}

nlohmann::json SweepCoordinatorClient::cancel(const std::string& id) {
  return call("DELETE", kBase + id);
}

}  // namespace gantry::web
