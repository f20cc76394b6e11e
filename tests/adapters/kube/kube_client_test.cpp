// KubeClient against the fake API server: retries on 429/503 with Retry-After (waits recorded,
// never slept), write outcomes, bearer tokens, watches and their cancellation.

#include "adapters/kube/kube_client.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace kube_client_test {

using testing::FakeApiServer;
using testing::Fault;
using testing::RecordingSleeper;

const char* kPods = "/api/v1/namespaces/default/pods";

nlohmann::json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"schedulerName", "gantry"}, {"containers", nlohmann::json::array()}}}};
}

struct ClientFixture : ::testing::Test {
  FakeApiServer server;
  VirtualClock clock{Time::from_micros(0)};
  RecordingSleeper sleeper{&clock};
  KubeClient client{testing::config_for(server.url()), [this] {
                      KubeClientOptions o;
                      o.qps = 0;  // unlimited unless a test says otherwise
                      o.clock = &clock;
                      o.sleeper = &sleeper;
                      return o;
                    }()};
};

TEST_F(ClientFixture, RetriesPlainText429WithRetryAfter) {
  // The API server's max-in-flight answer, as captured: plain text and Retry-After: 1.
  const std::string body =
      testing::read_text(testing::captures_dir() + "/responses/maxinflight-429.body.txt");
  Fault f;
  f.path_prefix = kPods;
  f.status = 429;
  f.body = body;
  f.content_type = "text/plain; charset=utf-8";
  f.retry_after_seconds = 1;
  f.times = 2;
  server.inject(f);
  const KubeResponse r = client.request("GET", kPods);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(client.retries(), 2);
  EXPECT_EQ(client.requests_sent(), 3);
  EXPECT_EQ(sleeper.waits(), (std::vector<Duration>{seconds(1), seconds(1)}));
}

TEST_F(ClientFixture, Retries503ThenGivesUpAfterMaxRetries) {
  Fault f;
  f.path_prefix = kPods;
  f.status = 503;
  f.retry_after_seconds = 3;
  f.times = 100;
  server.inject(f);
  // 1 try + 5 retries (the default max_retries), then the 503 comes back as a KubeError.
  try {
    client.get(kPods);
    ADD_FAILURE() << "no error";
  } catch (const KubeError& e) {
    EXPECT_EQ(e.code(), 503);
    EXPECT_EQ(e.retry_after(), seconds(3));
  }
  EXPECT_EQ(client.requests_sent(), 6);
  EXPECT_EQ(sleeper.waits(), std::vector<Duration>(5, seconds(3)));
}

TEST_F(ClientFixture, No429RetryWithoutRetryAfter) {
  Fault f;
  f.path_prefix = kPods;
  f.status = 429;
  server.inject(f);
  EXPECT_EQ(client.request("GET", kPods).status, 429);
  EXPECT_EQ(client.retries(), 0);
  EXPECT_TRUE(sleeper.waits().empty());
}

TEST_F(ClientFixture, QpsLimitWaitsThroughTheSleeper) {
  KubeClientOptions o;
  o.qps = 10;  // interval 100 ms
  o.burst = 2;
  o.clock = &clock;
  o.sleeper = &sleeper;
  KubeClient limited(testing::config_for(server.url()), o);
  // Burst 2 go at once; the 3rd waits 100 ms. The sleeper advances the clock by that wait, so
  // the 4th finds the bucket at -100 + 100 = 0 and waits 100 ms again.
  for (int i = 0; i < 4; ++i) limited.request("GET", kPods);
  EXPECT_EQ(sleeper.waits(), (std::vector<Duration>{milliseconds(100), milliseconds(100)}));
}

TEST_F(ClientFixture, CreateTwiceIsAlreadyExists) {
  const WriteResult first = client.create(kPods, pod("p"));
  EXPECT_EQ(first.outcome, WriteOutcome::kOk);
  EXPECT_EQ(first.object["metadata"]["uid"], "uid-1");
  const WriteResult second = client.create(kPods, pod("p"));
  EXPECT_EQ(second.outcome, WriteOutcome::kAlreadyExists);
  EXPECT_EQ(second.status.code, 409);
  EXPECT_EQ(second.status.reason, "AlreadyExists");
}

TEST_F(ClientFixture, InjectedCreateConflictIsNotAlreadyExists) {
  Fault f;
  f.method = "POST";
  f.path_prefix = kPods;
  f.status = 409;  // reason Conflict, not AlreadyExists: the caller must not assume it exists
  server.inject(f);
  EXPECT_THROW(client.create(kPods, pod("p")), KubeError);
}

TEST_F(ClientFixture, UpdateWithStaleVersionIsConflict) {
  nlohmann::json stored = client.create(kPods, pod("p")).object;
  nlohmann::json stale = stored;
  stored["metadata"]["labels"] = {{"a", "1"}};
  const WriteResult ok = client.update(std::string(kPods) + "/p", stored);
  EXPECT_EQ(ok.outcome, WriteOutcome::kOk);
  EXPECT_NE(resource_version_of(ok.object), resource_version_of(stale));
  stale["metadata"]["labels"] = {{"a", "2"}};
  const WriteResult conflict = client.update(std::string(kPods) + "/p", stale);
  EXPECT_EQ(conflict.outcome, WriteOutcome::kConflict);
  EXPECT_EQ(conflict.status.reason, "Conflict");
  EXPECT_EQ(client.update(std::string(kPods) + "/nope", stale).outcome, WriteOutcome::kNotFound);
}

TEST_F(ClientFixture, DeleteWithPreconditions) {
  const nlohmann::json stored = client.create(kPods, pod("p")).object;
  DeleteOptions wrong_uid;
  wrong_uid.uid = "00000000-0000-0000-0000-000000000000";
  const WriteResult refused = client.remove(std::string(kPods) + "/p", wrong_uid);
  EXPECT_EQ(refused.outcome, WriteOutcome::kConflict);
  DeleteOptions right;
  right.uid = stored["metadata"]["uid"];
  right.resource_version = resource_version_of(stored);
  EXPECT_EQ(client.remove(std::string(kPods) + "/p", right).outcome, WriteOutcome::kOk);
  EXPECT_EQ(client.remove(std::string(kPods) + "/p", right).outcome, WriteOutcome::kNotFound);
  // The body sent is a DeleteOptions with the preconditions.
  const auto requests = server.requests();
  const auto body = nlohmann::json::parse(requests.back().body);
  EXPECT_EQ(body["kind"], "DeleteOptions");
  EXPECT_EQ(body["preconditions"]["uid"], stored["metadata"]["uid"]);
}

TEST_F(ClientFixture, BindOnceThenConflict) {
  client.create(kPods, pod("p"));
  EXPECT_EQ(client.bind("default", "p", "node-1").outcome, WriteOutcome::kOk);
  EXPECT_EQ(server.get(kPods, "p").value()["spec"]["nodeName"], "node-1");
  const WriteResult again = client.bind("default", "p", "node-2");
  EXPECT_EQ(again.outcome, WriteOutcome::kConflict);
  EXPECT_NE(again.status.message.find("already assigned to node \"node-1\""), std::string::npos);
  EXPECT_EQ(client.bind("default", "ghost", "node-1").outcome, WriteOutcome::kNotFound);
  EXPECT_EQ(server.get(kPods, "p").value()["spec"]["nodeName"], "node-1");
}

// The Eviction API: one attempt each, its 429 (a PodDisruptionBudget) returned with the wait
// the server asked for rather than slept on; 404 for a pod that is not there, 409 for another
// incarnation; the pod deleted when accepted.
TEST_F(ClientFixture, EvictOnceWithOutcomes) {
  const std::string uid = client.create(kPods, pod("p")).object["metadata"]["uid"];
  EXPECT_EQ(client.evict("default", "p", "00000000-0000-0000-0000-000000000000").outcome,
            WriteOutcome::kConflict);
  server.refuse_evictions(1, 7);
  const WriteResult refused = client.evict("default", "p", uid);
  EXPECT_EQ(refused.outcome, WriteOutcome::kTooManyRequests);
  EXPECT_EQ(refused.status.reason, "TooManyRequests");
  EXPECT_EQ(refused.status.retry_after, seconds(7));
  EXPECT_TRUE(sleeper.waits().empty()) << "not retried by the client";
  EXPECT_EQ(client.retries(), 0);
  ASSERT_TRUE(server.get(kPods, "p").has_value());
  EXPECT_EQ(client.evict("default", "p", uid).outcome, WriteOutcome::kOk);
  EXPECT_FALSE(server.get(kPods, "p").has_value());
  EXPECT_EQ(client.evict("default", "p", uid).outcome, WriteOutcome::kNotFound);
  // What was sent: a policy/v1 Eviction of that incarnation, to the eviction subresource.
  const testing::RecordedRequest last = server.requests().back();
  EXPECT_EQ(last.method, "POST");
  EXPECT_EQ(last.path, std::string(kPods) + "/p/eviction");
  EXPECT_EQ(nlohmann::json::parse(last.body), eviction_body("default", "p", uid));
  EXPECT_EQ(client.requests_sent(), 5);
}

TEST_F(ClientFixture, PatchContentTypes) {
  client.create(kPods, pod("p"));
  const std::string path = std::string(kPods) + "/p";
  const auto merged =
      client.patch(path, {{"metadata", {{"annotations", {{"k", "v"}}}}}}, PatchType::kMerge);
  EXPECT_EQ(merged["metadata"]["annotations"]["k"], "v");
  const nlohmann::json failing_test =
      nlohmann::json::array({{{"op", "test"}, {"path", "/metadata/name"}, {"value", "other"}}});
  try {
    client.patch(path, failing_test, PatchType::kJson);
    ADD_FAILURE() << "no error";
  } catch (const KubeError& e) {
    EXPECT_EQ(e.code(), 422);
  }
  EXPECT_EQ(client.request("PATCH", path, "{}", "application/json").status, 415);
  EXPECT_EQ(server.requests().back().headers.at("content-type"), "application/json");
}

TEST_F(ClientFixture, CreateEventPostsToEventsApi) {
  EventSpec e;
  e.regarding.namespace_name = "default";
  e.regarding.name = "p";
  e.reason = "Scheduled";
  e.action = "Binding";
  e.note = "bound to node-1";
  e.reporting_instance = "gantry-0";
  e.event_time = Time::from_micros(0x10);
  EXPECT_EQ(client.create_event(e).outcome, WriteOutcome::kOk);
  // The name is "<pod>.<µs in hex>", so the same decision recorded twice is AlreadyExists.
  EXPECT_TRUE(server.get("/apis/events.k8s.io/v1/namespaces/default/events", "p.10").has_value());
  EXPECT_EQ(client.create_event(e).outcome, WriteOutcome::kAlreadyExists);
}

TEST_F(ClientFixture, BearerTokenFileIsReReadWhenItChanges) {
  testing::TempDir dir;
  const std::string token_path = dir.write("token", "first\n");
  KubeConfig config = testing::config_for(server.url());
  config.token = "ignored-when-a-file-is-set";
  config.token_file = token_path;
  KubeClientOptions o;
  o.qps = 0;
  KubeClient c(config, o);
  c.request("GET", kPods);
  // A different size makes the change visible even within one mtime tick.
  dir.write("token", "second-token\n");
  c.request("GET", kPods);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer first");
  EXPECT_EQ(requests[1].headers.at("authorization"), "Bearer second-token");
}

TEST_F(ClientFixture, TransportErrorsThrow) {
  Fault f;
  f.path_prefix = kPods;
  f.drop = true;
  server.inject(f);
  EXPECT_THROW(client.request("GET", kPods), KubeTransportError);
  KubeClient nowhere(testing::config_for("http://127.0.0.1:1"));
  EXPECT_THROW(nowhere.request("GET", kPods), KubeTransportError);
}

// A lying server (issue 22): a 200 whose chunked body never ends grew the client's memory until
// bad_alloc. The answer is abandoned at max_response_bytes with an error naming the method, the
// URL and the limit, and the client goes on working.
TEST_F(ClientFixture, AnAnswerThatNeverEndsIsAbandonedAtTheLimit) {
  KubeClientOptions o;
  o.qps = 0;
  o.max_response_bytes = 1 << 20;
  KubeClient limited(testing::config_for(server.url()), o);
  Fault f;
  f.path_prefix = "/api/v1/nodes";
  f.endless_body = true;
  server.inject(f);
  try {
    limited.get("/api/v1/nodes?limit=500");
    ADD_FAILURE() << "no error";
  } catch (const KubeResponseTooLarge& e) {
    EXPECT_STREQ(e.what(), ("GET " + server.url() +
                            "/api/v1/nodes?limit=500: the answer is longer than the client's limit "
                            "of 1 MiB (KubeClientOptions::max_response_bytes); abandoned")
                               .c_str());
  }
  EXPECT_TRUE(limited.get("/api/v1/nodes")["items"].empty()) << "the next answer is read";
}

// An answer whose Content-Length is over the limit is refused before its body is read; one
// exactly at the limit is read.
TEST_F(ClientFixture, AnAnnouncedLengthAboveTheLimitIsRefused) {
  KubeClientOptions o;
  o.qps = 0;
  o.max_response_bytes = 1000;
  KubeClient limited(testing::config_for(server.url()), o);
  Fault f;
  f.path_prefix = kPods;
  f.status = 200;
  f.body = "\"" + std::string(1000, 'x') + "\"";  // 1,002 bytes
  server.inject(f);
  EXPECT_THROW(limited.request("GET", kPods), KubeResponseTooLarge);
  f.body = "\"" + std::string(998, 'x') + "\"";  // 1,000 bytes
  server.inject(f);
  EXPECT_EQ(limited.request("GET", kPods).body.size(), 1000u);
}

TEST_F(ClientFixture, SlowAnswerTimesOut) {
  KubeClientOptions o;
  o.request_timeout = milliseconds(100);
  KubeClient impatient(testing::config_for(server.url()), o);
  Fault f;
  f.path_prefix = kPods;
  f.delay_ms = 5000;  // ended early by the server's destructor when the test is over
  server.inject(f);
  EXPECT_THROW(impatient.request("GET", kPods), KubeTransportError);
}

TEST_F(ClientFixture, WatchDeliversEventsUntilStopped) {
  client.create(kPods, pod("a"));
  const std::string from = std::to_string(server.resource_version());
  std::thread writer([&] {
    server.wait_for_watches_started(1);
    server.apply(kPods, pod("b"));
    server.remove(kPods, "a");
  });
  std::vector<std::pair<std::string, std::string>> seen;
  const WatchResult r =
      client.watch(std::string(kPods) + "?watch=true&resourceVersion=" + from, [&](WatchEvent& e) {
        seen.emplace_back(to_string(e.type), name_of(e.object));
        return seen.size() < 2;
      });
  writer.join();
  EXPECT_EQ(r.end, WatchEnd::kStopped);
  EXPECT_EQ(r.events, 2);
  EXPECT_EQ(seen,
            (std::vector<std::pair<std::string, std::string>>{{"ADDED", "b"}, {"DELETED", "a"}}));
}

TEST_F(ClientFixture, WatchCancelledFromAnotherThread) {
  WatchCanceller canceller;
  std::thread canceler([&] {
    server.wait_for_watches_started(1);
    canceller.cancel();
  });
  const WatchResult r = client.watch(
      std::string(kPods) + "?watch=true&resourceVersion=1", [](WatchEvent&) { return true; },
      &canceller);
  canceler.join();
  EXPECT_EQ(r.end, WatchEnd::kCancelled);
}

TEST_F(ClientFixture, WatchOutcomes) {
  // A 410 as the HTTP status.
  Fault gone;
  gone.path_prefix = kPods;
  gone.match = Fault::Match::kWatch;
  gone.status = 410;
  server.inject(gone);
  WatchResult r = client.watch(std::string(kPods) + "?watch=true&resourceVersion=1",
                               [](WatchEvent&) { return true; });
  EXPECT_EQ(r.end, WatchEnd::kHttpError);
  EXPECT_EQ(r.status.code, 410);
  EXPECT_EQ(r.status.reason, "Expired");

  // A 410 as an ERROR event inside a 200 stream (the history before it was compacted).
  client.create(kPods, pod("a"));
  server.compact();
  std::vector<WatchEvent> events;
  r = client.watch(std::string(kPods) + "?watch=true&resourceVersion=1", [&](WatchEvent& e) {
    events.push_back(e);
    return true;
  });
  EXPECT_EQ(r.end, WatchEnd::kClosed);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kError);
  EXPECT_EQ(events[0].status->code, 410);

  // A stream cut mid-body.
  std::thread dropper([&] {
    server.wait_for_watches_started(2);  // the 410 fault never started a stream
    server.drop_watches();
  });
  r = client.watch(std::string(kPods) +
                       "?watch=true&resourceVersion=" + std::to_string(server.resource_version()),
                   [](WatchEvent&) { return true; });
  dropper.join();
  EXPECT_EQ(r.end, WatchEnd::kTransportError);
}

}  // namespace kube_client_test
}  // namespace gantry::kube
