// Every file of tests/data/k8s-captures (real kube-apiserver v1.24 bytes) goes through the
// parsers of adapters/kube; the expected values are read off the files by hand.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/watch_event.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace {

using testing::captures_dir;
using testing::read_text;

std::string response(const std::string& name) {
  return read_text(captures_dir() + "/responses/" + name);
}
nlohmann::json request_json(const std::string& name) {
  return nlohmann::json::parse(read_text(captures_dir() + "/requests/" + name));
}

// The status code and Retry-After of a captured `.headers.txt` ("HTTP/2 429 ", "retry-after: 10").
std::pair<int, std::string> headers_of(const std::string& name) {
  const std::string text = response(name);
  const int code = std::stoi(text.substr(text.find(' ') + 1, 3));
  std::string retry;
  const size_t at = text.find("retry-after:");
  if (at != std::string::npos) {
    const size_t end = text.find('\n', at);
    retry = text.substr(at + 12, end - at - 12);
    while (!retry.empty() && (retry.back() == '\r' || retry.back() == ' ')) retry.pop_back();
    while (!retry.empty() && retry.front() == ' ') retry.erase(0, 1);
  }
  return {code, retry};
}

struct StatusCase {
  const char* file;
  int code;
  const char* status;  // "Success" / "Failure"
  const char* reason;
  const char* kind;  // details.kind
  const char* name;  // details.name
};

// From the files themselves (code = the name's status and the body's "code").
const StatusCase kStatusCases[] = {
    {"apply-409-field-conflict.json", 409, "Failure", "Conflict", "", ""},
    {"apply-422-no-fieldmanager.json", 422, "Failure", "Invalid", "PatchOptions", ""},
    {"binding-201.json", 201, "Success", "", "", ""},
    {"binding-404-pod-missing.json", 404, "Failure", "NotFound", "pods", "nope"},
    {"binding-409-already-assigned.json", 409, "Failure", "Conflict", "pods/binding", "job-a-0"},
    {"delete-409-uid-precondition.json", 409, "Failure", "Conflict", "Pod", "job-a-1"},
    {"eviction-201.json", 201, "Success", "", "", ""},
    {"eviction-429-pdb-violated.json", 429, "Failure", "TooManyRequests", "", ""},
    {"jsonpatch-422-test-failed.json", 422, "Failure", "Invalid", "", ""},
    {"list-410-continue-expired.json", 410, "Failure", "Expired", "", ""},
    {"list-410-rv-too-old.json", 410, "Failure", "Expired", "", ""},
    {"patch-415-wrong-content-type.json", 415, "Failure", "UnsupportedMediaType", "", ""},
    {"pod-create-403-no-serviceaccount.json", 403, "Failure", "Forbidden", "pods", "job-a-0"},
    {"put-409-conflict.json", 409, "Failure", "Conflict", "nodes", "fake-node-1"},
};

TEST(KubeCaptures, StatusBodiesDecode) {
  for (const StatusCase& c : kStatusCases) {
    SCOPED_TRACE(c.file);
    const KubeStatus s = parse_status(c.code, response(c.file));
    EXPECT_TRUE(s.is_status_object);
    EXPECT_EQ(s.code, c.code);
    EXPECT_EQ(s.status, c.status);
    EXPECT_EQ(s.reason, c.reason);
    EXPECT_EQ(s.kind, c.kind);
    EXPECT_EQ(s.name, c.name);
    EXPECT_FALSE(s.retry_after.has_value());
  }
}

TEST(KubeCaptures, MessagesAreKept) {
  EXPECT_EQ(parse_status(404, response("binding-404-pod-missing.json")).message,
            "pods \"nope\" not found");
  EXPECT_EQ(parse_status(409, response("binding-409-already-assigned.json")).message,
            "Operation cannot be fulfilled on pods/binding \"job-a-0\": pod job-a-0 is already "
            "assigned to node \"fake-node-1\"");
  EXPECT_EQ(parse_status(410, response("list-410-rv-too-old.json")).message,
            "The resourceVersion for the provided list is too old.");
}

TEST(KubeCaptures, EvictionRetryAfterFromHeaderAndBody) {
  const auto [code, retry] = headers_of("eviction-429-pdb-unprocessed.headers.txt");
  EXPECT_EQ(code, 429);
  const std::string body = response("eviction-429-pdb-unprocessed.json");
  const KubeStatus with_header = parse_status(code, body, retry);
  EXPECT_EQ(with_header.reason, "TooManyRequests");
  ASSERT_TRUE(with_header.retry_after.has_value());
  EXPECT_EQ(*with_header.retry_after, seconds(10));  // "retry-after: 10"
  // Without the header, details.retryAfterSeconds (10) says the same.
  const KubeStatus body_only = parse_status(code, body);
  ASSERT_TRUE(body_only.retry_after.has_value());
  EXPECT_EQ(*body_only.retry_after, seconds(10));
}

TEST(KubeCaptures, MaxInFlightPlainText429) {
  const auto [code, retry] = headers_of("maxinflight-429.headers.txt");
  EXPECT_EQ(code, 429);
  EXPECT_EQ(retry, "1");
  const KubeStatus s = parse_status(code, response("maxinflight-429.body.txt"), retry);
  EXPECT_FALSE(s.is_status_object);
  EXPECT_EQ(s.code, 429);
  EXPECT_EQ(s.reason, "TooManyRequests");
  EXPECT_EQ(s.message, "Too many requests, please try again later.");
  ASSERT_TRUE(s.retry_after.has_value());
  EXPECT_EQ(*s.retry_after, seconds(1));
}

TEST(KubeCaptures, CreatedObjects) {
  const auto node = nlohmann::json::parse(response("node-create-201.json"));
  EXPECT_EQ(name_of(node), "fake-node-1");
  EXPECT_EQ(resource_version_of(node), "85");
  EXPECT_EQ(node["status"]["capacity"]["nvidia.com/gpu"], "8");
  const auto pod = nlohmann::json::parse(response("pod-create-201.json"));
  EXPECT_EQ(name_of(pod), "job-a-0");
  EXPECT_EQ(namespace_of(pod), "default");
  EXPECT_EQ(resource_version_of(pod), "87");
  EXPECT_EQ(pod["spec"]["schedulerName"], "my-gpu-scheduler");
  EXPECT_EQ(pod["status"]["phase"], "Pending");
}

TEST(KubeCaptures, WatchErrorEvent410) {
  const std::string text = response("watch-410-too-old-as-error-event.ndjson");
  std::vector<WatchEvent> events;
  LineSplitter lines;
  ASSERT_TRUE(lines.feed(text, [&](std::string_view line) {
    auto e = parse_watch_event(line);
    EXPECT_TRUE(e.has_value());
    if (e) events.push_back(*e);
    return true;
  }));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kError);
  ASSERT_TRUE(events[0].status.has_value());
  EXPECT_EQ(events[0].status->code, 410);
  EXPECT_EQ(events[0].status->reason, "Expired");
  EXPECT_EQ(events[0].status->message, "too old resource version: 2 (108)");
}

// Feeds a stream in chunks of `chunk` bytes, as curl would hand it over.
std::vector<WatchEvent> events_of(const std::string& text, size_t chunk) {
  std::vector<WatchEvent> out;
  LineSplitter lines;
  for (size_t i = 0; i < text.size(); i += chunk) {
    const bool ok = lines.feed(std::string_view(text).substr(i, chunk), [&](std::string_view l) {
      std::string why;
      auto e = parse_watch_event(l, &why);
      EXPECT_TRUE(e.has_value()) << why;
      if (e) out.push_back(std::move(*e));
      return true;
    });
    EXPECT_TRUE(ok);
  }
  EXPECT_TRUE(lines.pending().empty());
  return out;
}

TEST(KubeCaptures, WatchWithBookmarks) {
  const std::string text = response("watch-pods-with-bookmark.ndjson");
  // Read off the file: 11 pod events, then two bookmarks at 103.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"MODIFIED", "88"}, {"ADDED", "89"},    {"MODIFIED", "90"},  {"MODIFIED", "92"},
      {"MODIFIED", "93"}, {"MODIFIED", "94"}, {"MODIFIED", "95"},  {"MODIFIED", "96"},
      {"MODIFIED", "97"}, {"MODIFIED", "98"}, {"MODIFIED", "103"}, {"BOOKMARK", "103"},
      {"BOOKMARK", "103"}};
  for (size_t chunk : {size_t{7}, size_t{4096}, text.size()}) {
    SCOPED_TRACE(chunk);
    const auto events = events_of(text, chunk);
    ASSERT_EQ(events.size(), expected.size());
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(to_string(events[i].type), expected[i].first) << i;
      EXPECT_EQ(events[i].resource_version, expected[i].second) << i;
    }
    EXPECT_EQ(name_of(events[1].object), "job-a-1");
    EXPECT_EQ(events[2].object["spec"]["nodeName"], "fake-node-1");
    EXPECT_EQ(name_of(events[11].object), "");  // a bookmark carries only the version
  }
}

TEST(KubeCaptures, FieldSelectorWatchDeletesOnceBound) {
  const auto events =
      events_of(response("watch-fieldselector-unbound-added-then-deleted.ndjson"), 1000);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(events[0].resource_version, "115");
  EXPECT_EQ(events[1].type, WatchEventType::kDeleted);
  EXPECT_EQ(events[1].resource_version, "116");
  EXPECT_EQ(name_of(events[1].object), "job-b-0");
  EXPECT_EQ(events[0].object["metadata"]["uid"], events[1].object["metadata"]["uid"]);
}

TEST(KubeCaptures, RequestsMatchTheBuilders) {
  // Gantry's binding body is byte-for-byte the JSON the capture sent.
  EXPECT_EQ(binding_body("default", "job-a-0", "fake-node-1"), request_json("binding.json"));
  const auto eviction = request_json("eviction.json");
  EXPECT_EQ(eviction["kind"], "Eviction");
  EXPECT_EQ(eviction["deleteOptions"]["gracePeriodSeconds"], 30);
  const auto node = request_json("node.json");
  EXPECT_EQ(node["status"]["allocatable"]["nvidia.com/gpu"], "8");
  const auto pod = request_json("pod.json");
  EXPECT_EQ(pod["spec"]["schedulerName"], "my-gpu-scheduler");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2");
}

// The fake API server (fake_api_server.hpp) answers the captured requests as the real server
// did, field by field: every field the real server added to (or changed in) the Node and the
// Pod it was sent, the fake adds with the same value, and the fake adds nothing else. The
// fields that differ from one server to the next are checked for their form: uid,
// resourceVersion, creationTimestamp, and the token volume's random suffix
// ("kube-api-access-957d9"). managedFields (server-side apply's bookkeeping) the fake does
// not write: Gantry never reads them.
struct Added {
  std::map<std::string, nlohmann::json> real;  // pointer -> the captured value
  std::map<std::string, nlohmann::json> fake;  // pointer -> the fake's value, when it has one
  std::set<std::string> fake_only;             // pointers the fake added and the real did not
};

Added server_added(const nlohmann::json& sent, const nlohmann::json& captured,
                   const nlohmann::json& faked) {
  const nlohmann::json s = sent.flatten();
  const nlohmann::json c = captured.flatten();
  const nlohmann::json f = faked.flatten();
  Added out;
  for (const auto& [pointer, value] : c.items()) {
    if (pointer.rfind("/metadata/managedFields", 0) == 0) continue;
    if (s.contains(pointer) && s[pointer] == value) continue;
    out.real[pointer] = value;
    if (f.contains(pointer)) out.fake[pointer] = f[pointer];
  }
  for (const auto& [pointer, value] : f.items())
    if (!c.contains(pointer) && !s.contains(pointer)) out.fake_only.insert(pointer);
  return out;
}

// What differs between servers: present, and of the right form.
void expect_instance_fields(const Added& a) {
  for (const char* p : {"/metadata/uid", "/metadata/resourceVersion"}) {
    ASSERT_TRUE(a.fake.count(p)) << p;
    EXPECT_TRUE(a.fake.at(p).is_string() && !a.fake.at(p).get<std::string>().empty()) << p;
  }
  ASSERT_TRUE(a.fake.count("/metadata/creationTimestamp"));
  Time t;
  EXPECT_TRUE(parse_rfc3339(a.fake.at("/metadata/creationTimestamp").get<std::string>(), t));
}

TEST(KubeCaptures, TheFakeCreatesTheCapturedNodeAsTheRealServerDid) {
  testing::FakeApiServer fake;
  KubeClient client(testing::config_for(fake.url()));
  const nlohmann::json sent = request_json("node.json");
  const WriteResult r = client.create("/api/v1/nodes", sent);
  ASSERT_EQ(r.outcome, WriteOutcome::kOk);
  const Added a =
      server_added(sent, nlohmann::json::parse(response("node-create-201.json")), r.object);
  expect_instance_fields(a);
  // By hand from the files: the not-ready taint, the daemon endpoint, the ten nodeInfo fields
  // (empty strings), and the three instance fields.
  EXPECT_EQ(a.real.size(), 2u + 1u + 10u + 3u);
  for (const auto& [pointer, value] : a.real) {
    if (pointer.rfind("/metadata/", 0) == 0) continue;  // the instance fields, above
    ASSERT_TRUE(a.fake.count(pointer)) << "the fake does not write " << pointer;
    EXPECT_EQ(a.fake.at(pointer), value) << pointer;
  }
  EXPECT_TRUE(a.fake_only.empty()) << ::testing::PrintToString(a.fake_only);
  EXPECT_EQ(
      r.object["spec"]["taints"],
      nlohmann::json::parse(R"([{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
}

TEST(KubeCaptures, TheFakeCreatesTheCapturedPodAsTheRealServerDid) {
  testing::FakeApiServer fake;
  KubeClient client(testing::config_for(fake.url()));
  const nlohmann::json sent = request_json("pod.json");
  const WriteResult r = client.create("/api/v1/namespaces/default/pods", sent);
  ASSERT_EQ(r.outcome, WriteOutcome::kOk);
  const Added a =
      server_added(sent, nlohmann::json::parse(response("pod-create-201.json")), r.object);
  expect_instance_fields(a);
  // The token volume's name: "kube-api-access-" and five characters, the same in the volume
  // and in the container's mount.
  const std::string volume = "/spec/volumes/0/name";
  const std::string mount = "/spec/containers/0/volumeMounts/0/name";
  ASSERT_TRUE(a.fake.count(volume) && a.fake.count(mount));
  const std::string name = a.fake.at(volume);
  EXPECT_EQ(name.rfind("kube-api-access-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("kube-api-access-957d9").size()) << name;
  EXPECT_EQ(a.fake.at(mount), name);
  // Every other field the real server added, with its value. By hand from the files: the
  // volume (name, 8 leaves of sources, defaultMode), the mount (3), 3 container defaults, 7
  // pod defaults (restartPolicy, terminationGracePeriodSeconds, dnsPolicy, serviceAccountName,
  // serviceAccount, securityContext, enableServiceLinks), 2 tolerations of 4 fields, priority,
  // preemptionPolicy, phase, qosClass, and the three instance fields.
  EXPECT_EQ(a.real.size(), 10u + 3u + 3u + 7u + 8u + 2u + 2u + 3u);
  for (const auto& [pointer, value] : a.real) {
    if (pointer.rfind("/metadata/", 0) == 0 || pointer == volume || pointer == mount) continue;
    ASSERT_TRUE(a.fake.count(pointer)) << "the fake does not write " << pointer;
    EXPECT_EQ(a.fake.at(pointer), value) << pointer;
  }
  EXPECT_TRUE(a.fake_only.empty()) << ::testing::PrintToString(a.fake_only);
}

// Found by tests/fuzz/kube_fuzz: a body whose own code disagrees with the HTTP status and that
// gives no reason must not borrow the body's code's reason (200 has none); a non-string reason
// is ignored rather than thrown on.
TEST(KubeStatusParsing, HttpStatusChoosesTheMissingReason) {
  const KubeStatus s = parse_status(503, R"({"kind":"Status","code":200})");
  EXPECT_EQ(s.code, 503);
  EXPECT_EQ(s.reason, "ServiceUnavailable");
  const KubeStatus odd = parse_status(429, R"({"kind":"Status","code":7,"reason":5})");
  EXPECT_EQ(odd.reason, "TooManyRequests");
  EXPECT_EQ(parse_status(410, "").reason, "Expired");
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT").has_value());
  EXPECT_EQ(parse_retry_after(" 10 "), seconds(10));
}

// A JSON body that is not a Status (a proxy's, a webhook's) is read, but its message is capped
// like a plain-text body's; a Status keeps its whole message. Found by kube_fuzz.
TEST(KubeStatusParsing, ForeignJsonMessagesAreCapped) {
  const std::string long_text(2000, 'x');
  const KubeStatus foreign = parse_status(502, R"({"message":")" + long_text + R"("})");
  EXPECT_FALSE(foreign.is_status_object);
  EXPECT_EQ(foreign.message, std::string(512, 'x'));
  const KubeStatus status =
      parse_status(422, R"({"kind":"Status","message":")" + long_text + R"("})");
  EXPECT_EQ(status.message, long_text);
}

// Every file in the folder is one of those used above: a new capture must get a test.
TEST(KubeCaptures, EveryFileIsCovered) {
  std::set<std::string> covered = {
      "requests/binding.json",
      "requests/eviction.json",
      "requests/node.json",
      "requests/pod.json",
      "responses/eviction-429-pdb-unprocessed.json",
      "responses/eviction-429-pdb-unprocessed.headers.txt",
      "responses/maxinflight-429.body.txt",
      "responses/maxinflight-429.headers.txt",
      "responses/node-create-201.json",
      "responses/pod-create-201.json",
      "responses/watch-410-too-old-as-error-event.ndjson",
      "responses/watch-pods-with-bookmark.ndjson",
      "responses/watch-fieldselector-unbound-added-then-deleted.ndjson",
      "README.md"};
  for (const StatusCase& c : kStatusCases) covered.insert(std::string("responses/") + c.file);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(captures_dir())) {
    if (entry.is_regular_file())
      present.insert(std::filesystem::relative(entry.path(), captures_dir()).string());
  }
  EXPECT_EQ(present, covered);
  EXPECT_EQ(present.size(), 28u);  // 4 requests + 23 responses + README
}

}  // namespace
}  // namespace gantry::kube
