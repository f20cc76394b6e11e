// The informer against the fake API server: paged list, watch, bookmarks, 410 relists (as an
// ERROR event and as a status), 410 on a continue token, reconnects with backoff. Handlers run
// on the test thread through a PostQueue, as they will through EventLoop::post().

#include "adapters/kube/informer.hpp"

#include <gtest/gtest.h>

#include "tests/adapters/kube/captured_log.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/post_queue.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace informer_test {

using testing::CapturedLog;
using testing::FakeApiServer;
using testing::Fault;
using testing::PostQueue;
using testing::RecordingSleeper;

const char* kPods = "/api/v1/namespaces/default/pods";
const char* kNodes = "/api/v1/nodes";

nlohmann::json pod(const std::string& name, const std::string& label = "x") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"labels", {{"v", label}}},
            {"managedFields", nlohmann::json::array({{{"manager", "test"}}})}}},
          {"spec", {{"containers", nlohmann::json::array()}}}};
}

struct InformerFixture : ::testing::Test {
  FakeApiServer server;
  KubeClient client{testing::config_for(server.url()), [] {
                      KubeClientOptions o;
                      o.qps = 0;
                      return o;
                    }()};
  RecordingSleeper sleeper;
  PostQueue loop;
  std::vector<std::string> seen;  // "h1 added default/a", ... (test thread only)

  std::unique_ptr<Informer> make(int64_t page_size = 1) {
    InformerOptions o;
    o.path = "/api/v1/pods";
    o.page_size = page_size;
    o.seed = 42;
    o.sleeper = &sleeper;
    o.dispatch = [this](std::function<void()> f) { loop.post(std::move(f)); };
    auto informer = std::make_unique<Informer>(client, o);
    for (const char* name : {"h1", "h2"}) {
      informer->add_handler([this, name](const InformerEvent& e) {
        seen.push_back(std::string(name) + " " + to_string(e.type) + " " + cache_key_of(e.object));
      });
    }
    return informer;
  }

  // Runs handlers until `n` more lines were seen; returns those lines of handler h1.
  std::vector<std::string> next(size_t n) {
    const size_t target = seen.size() + 2 * n;
    const size_t from = seen.size();
    EXPECT_TRUE(loop.run_until([&] { return seen.size() >= target; }));
    std::vector<std::string> out;
    for (size_t i = from; i < seen.size(); i += 2) {
      EXPECT_EQ(seen[i].substr(3), seen[i + 1].substr(3));  // h2 right after h1, same event
      out.push_back(seen[i].substr(3));
    }
    return out;
  }

  using Lines = std::vector<std::string>;
};

TEST_F(InformerFixture, ListWatchBookmarkAndReconnect) {
  for (const char* n : {"c", "a", "b"}) server.apply(kPods, pod(n));
  auto informer = make();
  informer->start();
  ASSERT_TRUE(informer->wait_for_sync());
  // The list arrives in key order, in three pages of one.
  EXPECT_EQ(next(3), (Lines{"added default/a", "added default/b", "added default/c"}));
  EXPECT_EQ(informer->stats().list_pages, 3);
  EXPECT_EQ(informer->cache().size(), 3u);
  EXPECT_FALSE(informer->cache().get("default", "a")->at("metadata").contains("managedFields"));

  ASSERT_TRUE(server.wait_for_watches_started(1));
  server.apply(kPods, pod("a", "y"));
  server.remove(kPods, "b");
  EXPECT_EQ(next(2), (Lines{"updated default/a", "deleted default/b"}));
  EXPECT_EQ(informer->cache().get("default", "a")->at("metadata").at("labels").at("v"), "y");
  EXPECT_FALSE(informer->cache().get("default", "b").has_value());

  // A node write moves the global resourceVersion without a pod event; the bookmark carries
  // it; a pod written after it proves (stream order) the bookmark was handled.
  const nlohmann::json node = server.apply(kNodes, {{"metadata", {{"name", "n1"}}}});
  const std::string bookmark_rv = resource_version_of(node);
  server.send_bookmarks();
  server.apply(kPods, pod("d"));
  EXPECT_EQ(next(1), (Lines{"added default/d"}));
  EXPECT_EQ(informer->stats().bookmarks, 1);

  // Cut the stream: the informer waits one backoff and watches again from the pod's version.
  const std::string last_rv = informer->resource_version();
  EXPECT_GT(std::stoll(last_rv), std::stoll(bookmark_rv));
  server.drop_watches();
  ASSERT_TRUE(server.wait_for_watches_started(2));
  const auto requests = server.requests();
  EXPECT_NE(requests.back().query.find("resourceVersion=" + last_rv), std::string::npos)
      << requests.back().query;
  EXPECT_NE(requests.back().query.find("allowWatchBookmarks=true"), std::string::npos);
  ASSERT_EQ(sleeper.waits().size(), 1u);
  // Backoff 0 with seed 42: 800 ms + 800 ms × u, u the first draw of "kube.informer".
  RandomStream u = RandomStreams(42).stream("kube.informer");
  EXPECT_EQ(sleeper.waits()[0], milliseconds(800) + Duration::from_seconds(0.8 * u.uniform()));
  server.apply(kPods, pod("e"));
  EXPECT_EQ(next(1), (Lines{"added default/e"}));
  informer->stop();
  EXPECT_EQ(informer->cache().keys(), (Lines{"default/a", "default/c", "default/d", "default/e"}));
}

TEST_F(InformerFixture, BookmarkVersionIsWhereTheNextWatchStarts) {
  server.apply(kPods, pod("a"));
  auto informer = make();
  informer->start();
  EXPECT_EQ(next(1), (Lines{"added default/a"}));
  ASSERT_TRUE(server.wait_for_watches_started(1));
  const std::string node_rv =
      resource_version_of(server.apply(kNodes, {{"metadata", {{"name", "n1"}}}}));
  // Hold the next watch so that the bookmark is the last thing the first stream carried.
  Fault hold;
  hold.path_prefix = "/api/v1/pods";
  hold.match = Fault::Match::kWatch;
  hold.hold = true;
  server.inject(hold);
  server.send_bookmarks();
  // The fake sends what precedes a drop before cutting the stream, as a real server's socket
  // delivers what was written before it closed: the bookmark is the last thing received.
  server.drop_watches();
  ASSERT_TRUE(server.wait_for_held(1));
  EXPECT_EQ(informer->stats().bookmarks, 1);
  EXPECT_EQ(informer->resource_version(), node_rv);
  const auto requests = server.requests();
  EXPECT_NE(requests.back().query.find("resourceVersion=" + node_rv), std::string::npos)
      << requests.back().query;
  server.release_held();
  informer->stop();
}

// Changes made while the informer is between streams, then 410: the relist must turn them
// into updates, adds and deletes (adds/updates in key order, then deletes).
void relist_after_gone(InformerFixture& f, bool as_status) {
  for (const char* n : {"a", "b", "c"}) f.server.apply(kPods, pod(n));
  auto informer = f.make(2);
  informer->start();
  EXPECT_EQ(f.next(3),
            (InformerFixture::Lines{"added default/a", "added default/b", "added default/c"}));
  ASSERT_TRUE(f.server.wait_for_watches_started(1));
  Fault hold;
  hold.path_prefix = "/api/v1/pods";
  hold.match = Fault::Match::kWatch;
  hold.hold = true;
  if (as_status) hold.status = 410;
  f.server.inject(hold);
  f.server.drop_watches();
  ASSERT_TRUE(f.server.wait_for_held(1));
  f.server.apply(kPods, pod("a", "changed"));
  f.server.remove(kPods, "c");
  f.server.apply(kPods, pod("aa"));
  f.server.compact();  // history gone: watching from the old version is 410
  f.server.release_held();
  EXPECT_EQ(f.next(3),
            (InformerFixture::Lines{"updated default/a", "added default/aa", "deleted default/c"}));
  EXPECT_EQ(informer->stats().relists_410, 1);
  EXPECT_EQ(informer->stats().lists, 2);
  EXPECT_EQ(informer->resource_version(), std::to_string(f.server.resource_version()));
  // And it keeps watching from the new list's version.
  ASSERT_TRUE(f.server.wait_for_watches_started(as_status ? 2 : 3));
  f.server.apply(kPods, pod("z"));
  EXPECT_EQ(f.next(1), (InformerFixture::Lines{"added default/z"}));
  informer->stop();
  EXPECT_EQ(informer->cache().keys(),
            (InformerFixture::Lines{"default/a", "default/aa", "default/b", "default/z"}));
}

TEST_F(InformerFixture, RelistOn410ErrorEvent) { relist_after_gone(*this, false); }
TEST_F(InformerFixture, RelistOn410Status) { relist_after_gone(*this, true); }

// A server that answers 410 to every watch, even from the version its own list just gave
// (issue 22: kubelet-sim relisted 46 times a second, silently). The first 410 relists at once
// (client-go's reflector does); each further one in a row waits the informer's backoff first,
// and says so in the log. Five 410s: lists 1..6, waits before lists 3, 4, 5, 6: bases 800 ms,
// 1.6 s, 3.2 s, 6.4 s, each + base × u (jitter 1, seed 42). The sixth watch is a real one.
TEST_F(InformerFixture, Repeated410sBackOffAndAreLogged) {
  CapturedLog log;
  Fault gone;
  gone.path_prefix = "/api/v1/pods";
  gone.match = Fault::Match::kWatch;
  gone.status = 410;
  gone.times = 5;
  server.inject(gone);
  auto informer = make();
  informer->start();
  ASSERT_TRUE(server.wait_for_watches_started(1));  // faults answer before a stream starts
  server.apply(kPods, pod("a"));
  EXPECT_EQ(next(1), (Lines{"added default/a"}));
  informer->stop();
  const InformerStats stats = informer->stats();
  EXPECT_EQ(stats.relists_410, 5);
  EXPECT_EQ(stats.lists, 6);
  EXPECT_EQ(stats.backoffs, 4);
  const auto waits = sleeper.waits();
  ASSERT_EQ(waits.size(), 4u);
  RandomStream u = RandomStreams(42).stream("kube.informer");
  Duration base = milliseconds(800);
  for (const Duration w : waits) {
    EXPECT_EQ(w, base + Duration::from_seconds(base.seconds() * u.uniform()));
    base = base * 2;
  }
  const std::vector<std::string> lines = log.lines();
  ASSERT_EQ(lines.size(), 5u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0].rfind("info informer /api/v1/pods: watch: 410 Expired", 0), 0u) << lines[0];
  for (size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(lines[i].rfind("warning informer /api/v1/pods: 410 Gone " + std::to_string(i + 1) +
                                 " times in a row right after a fresh list",
                             0),
              0u)
        << lines[i];
    EXPECT_NE(lines[i].find("trying again in"), std::string::npos) << lines[i];
  }
}

// A list page whose body never ends (a lying server): the client abandons it at its limit
// (kube_client.hpp), the informer logs that, backs off and lists again, and syncs once the
// server answers properly. Nothing grows without bound and the thread never dies.
TEST_F(InformerFixture, AListThatNeverEndsIsAbandonedAndRetried) {
  CapturedLog log;
  KubeClientOptions o;
  o.qps = 0;
  o.max_response_bytes = 1 << 20;
  KubeClient small(testing::config_for(server.url()), o);
  server.apply(kPods, pod("a"));
  Fault endless;
  endless.path_prefix = "/api/v1/pods";
  endless.match = Fault::Match::kNotWatch;
  endless.endless_body = true;
  server.inject(endless);
  InformerOptions io;
  io.path = "/api/v1/pods";
  io.seed = 42;
  io.sleeper = &sleeper;
  Informer informer(small, io);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync());
  EXPECT_EQ(informer.cache().keys(), (Lines{"default/a"}));
  informer.stop();
  EXPECT_EQ(informer.stats().backoffs, 1);
  EXPECT_EQ(informer.stats().lists, 1);
  const std::vector<std::string> lines = log.lines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_NE(lines[0].find("warning informer /api/v1/pods: list: GET " + server.url() +
                          "/api/v1/pods?limit=500: the answer is longer than the client's "
                          "limit of 1 MiB"),
            std::string::npos)
      << lines[0];
}

TEST_F(InformerFixture, ExpiredContinueTokenRestartsTheList) {
  for (const char* n : {"a", "b", "c"}) server.apply(kPods, pod(n));
  Fault expired;
  expired.path_prefix = "/api/v1/pods";
  expired.query_contains = "continue=";
  expired.status = 410;
  expired.body =
      testing::read_text(testing::captures_dir() + "/responses/list-410-continue-expired.json");
  server.inject(expired);
  auto informer = make(1);
  informer->start();
  EXPECT_EQ(next(3), (Lines{"added default/a", "added default/b", "added default/c"}));
  // Pages: a, then the 410 on b's continue token, then a, b, c again: 5.
  const InformerStats stats = informer->stats();
  EXPECT_EQ(stats.list_pages, 5);
  EXPECT_EQ(stats.lists, 1);
  informer->stop();
}

TEST_F(InformerFixture, ListFailuresBackOffAndRetry) {
  server.apply(kPods, pod("a"));
  Fault busy;
  busy.path_prefix = "/api/v1/pods";
  busy.match = Fault::Match::kNotWatch;
  busy.status = 500;
  busy.times = 3;
  server.inject(busy);
  auto informer = make();
  informer->start();
  EXPECT_EQ(next(1), (Lines{"added default/a"}));
  // Three failed lists, three backoffs: base 800 ms, 1.6 s, 3.2 s, each + base × u.
  const auto waits = sleeper.waits();
  ASSERT_EQ(waits.size(), 3u);
  RandomStream u = RandomStreams(42).stream("kube.informer");
  Duration base = milliseconds(800);
  for (const Duration w : waits) {
    EXPECT_EQ(w, base + Duration::from_seconds(base.seconds() * u.uniform()));
    base = base * 2;
  }
  EXPECT_EQ(informer->stats().backoffs, 3);
  informer->stop();
}

TEST_F(InformerFixture, StopInterruptsABackoff) {
  // A real sleeper and a server that always fails: stop() must not wait out the backoff.
  InformerOptions o;
  o.path = "/api/v1/pods";
  o.backoff.initial = hours(1);
  Informer informer(client, o);
  Fault first;
  first.path_prefix = "/api/v1/pods";
  first.hold = true;
  first.status = 503;
  server.inject(first);
  informer.start();
  ASSERT_TRUE(server.wait_for_held(1));  // the first list is on its way ...
  server.release_held();                 // ... and fails: an hour's backoff follows
  informer.stop();  // returns at once: the wait is interrupted (or never starts)
  EXPECT_FALSE(informer.has_synced());
  EXPECT_LE(informer.stats().backoffs, 1);
}

}  // namespace informer_test
}  // namespace gantry::kube
