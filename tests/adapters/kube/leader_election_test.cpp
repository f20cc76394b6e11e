// Leader election on a Lease in the fake API server, on a virtual clock: expiry, takeover,
// release, and the race where two candidates write the same version (only one wins).

#include "adapters/kube/leader_election.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace gantry::kube {
namespace {

using testing::FakeApiServer;
using testing::Fault;

const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/gantry/leases";
constexpr Time kStart = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

struct LeaderFixture : ::testing::Test {
  FakeApiServer server;
  VirtualClock clock{kStart};
  KubeClient client{testing::config_for(server.url()), [] {
                      KubeClientOptions o;
                      o.qps = 0;
                      return o;
                    }()};
  // The Lease's namespace, which a real API server needs to exist.
  LeaderFixture() { server.create_namespace("gantry"); }

  LeaderElectionOptions options(const std::string& identity) {
    LeaderElectionOptions o;
    o.namespace_name = "gantry";
    o.name = "gantry-scheduler";
    o.identity = identity;
    o.clock = &clock;  // lease 15 s, renew deadline 10 s, retry 2 s (the defaults)
    return o;
  }
  nlohmann::json lease_spec() { return server.get(kLeases, "gantry-scheduler").value().at("spec"); }
  void at(int64_t s) { clock.jump_to(kStart + seconds(s)); }
};

TEST_F(LeaderFixture, OneLeaderThenTakeoverAfterExpiry) {
  LeaderElector a(client, options("a"));
  LeaderElector b(client, options("b"));
  EXPECT_TRUE(a.try_acquire_or_renew());   // t=0: creates the lease
  EXPECT_FALSE(b.try_acquire_or_renew());  // B first sees A's record at t=0
  EXPECT_TRUE(a.is_leader());
  EXPECT_FALSE(b.is_leader());
  nlohmann::json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(spec["acquireTime"], "2026-01-01T00:00:00.000000Z");

  at(10);
  EXPECT_TRUE(a.try_acquire_or_renew());  // renew: renewTime moves, acquireTime stays
  spec = lease_spec();
  EXPECT_EQ(spec["renewTime"], "2026-01-01T00:00:10.000000Z");
  EXPECT_EQ(spec["acquireTime"], "2026-01-01T00:00:00.000000Z");

  at(14);
  EXPECT_FALSE(b.try_acquire_or_renew());  // B sees the renewed record at 14: expires at 29
  at(28);
  EXPECT_FALSE(b.try_acquire_or_renew());  // 14 + 15 = 29 > 28
  at(29);
  EXPECT_TRUE(b.try_acquire_or_renew());  // A has not renewed since 10: B takes over
  spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["acquireTime"], "2026-01-01T00:00:29.000000Z");

  at(30);
  EXPECT_FALSE(a.try_acquire_or_renew());  // A sees B's new record: not leader any more
  EXPECT_FALSE(a.is_leader());
  EXPECT_TRUE(b.is_leader());
}

TEST_F(LeaderFixture, ReleaseLetsTheNextCandidateInAtOnce) {
  LeaderElector a(client, options("a"));
  LeaderElector b(client, options("b"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  EXPECT_FALSE(b.try_acquire_or_renew());
  at(1);
  EXPECT_TRUE(a.release());
  EXPECT_FALSE(a.is_leader());
  nlohmann::json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "");
  EXPECT_EQ(spec["leaseDurationSeconds"], 1);
  EXPECT_TRUE(b.try_acquire_or_renew());  // an empty holder needs no wait
  EXPECT_EQ(lease_spec()["leaseTransitions"], 1);
  EXPECT_FALSE(a.release());  // not leader: nothing written
}

TEST_F(LeaderFixture, TwoCandidatesOnTheSameVersionNeverBothLead) {
  LeaderElector a(client, options("a"));
  LeaderElector b(client, options("b"));
  LeaderElector c(client, options("c"));
  ASSERT_TRUE(c.try_acquire_or_renew());
  ASSERT_TRUE(c.release());  // free: both A and B may take it, on the same version
  // A reads the lease, and its update is held at the server ...
  Fault hold;
  hold.method = "PUT";
  hold.path_prefix = kLeases;
  hold.hold = true;
  server.inject(hold);
  bool a_leads = true;
  std::thread a_thread([&] { a_leads = a.try_acquire_or_renew(); });
  ASSERT_TRUE(server.wait_for_held(1));
  // ... while B reads the same version and writes first.
  EXPECT_TRUE(b.try_acquire_or_renew());
  server.release_held();
  a_thread.join();
  EXPECT_FALSE(a_leads);  // 409 Conflict on the stale version
  EXPECT_FALSE(a.is_leader());
  EXPECT_TRUE(b.is_leader());
  EXPECT_EQ(lease_spec()["holderIdentity"], "b");
}

TEST_F(LeaderFixture, CreateRaceIsAlreadyExists) {
  LeaderElector a(client, options("a"));
  LeaderElector b(client, options("b"));
  Fault hold;
  hold.method = "POST";
  hold.path_prefix = kLeases;
  hold.hold = true;
  server.inject(hold);
  bool a_leads = true;
  std::thread a_thread([&] { a_leads = a.try_acquire_or_renew(); });
  ASSERT_TRUE(server.wait_for_held(1));
  EXPECT_TRUE(b.try_acquire_or_renew());  // B creates the lease first
  server.release_held();
  a_thread.join();
  EXPECT_FALSE(a_leads);
  EXPECT_EQ(lease_spec()["holderIdentity"], "b");
}

// Returns true `n` times (advancing the clock by each wait), then false: a stop after n waits.
class StopAfter final : public Sleeper {
 public:
  StopAfter(int n, VirtualClock& clock) : left_(n), clock_(clock) {}
  bool sleep_for(Duration d) override {
    if (left_-- <= 0) return false;
    clock_.jump_to(clock_.now() + d);
    return true;
  }
  void interrupt() override { left_ = 0; }
  void reset() override {}

 private:
  int left_;
  VirtualClock& clock_;
};

TEST_F(LeaderFixture, RunLeadsRenewsAndReleasesOnStop) {
  LeaderElector a(client, options("a"));
  StopAfter sleeper(3, clock);
  std::vector<std::string> calls;
  a.run(
      sleeper, [&] { calls.push_back("started"); }, [&] { calls.push_back("stopped"); });
  EXPECT_EQ(calls, (std::vector<std::string>{"started", "stopped"}));
  // Acquired at 0, renewed at 2, 4 and 6 (three waits of 2 s), released on the fourth wait.
  const nlohmann::json spec = lease_spec();
  EXPECT_EQ(spec["holderIdentity"], "");
  EXPECT_EQ(spec["renewTime"], "2026-01-01T00:00:06.000000Z");
  EXPECT_FALSE(a.is_leader());
}

}  // namespace
}  // namespace gantry::kube
