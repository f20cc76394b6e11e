// kubelet-sim against the fake API server, on a virtual-time loop stepped by the LiveHarness,
// with no scheduler: the test creates and binds the pods itself, as the live world would. What
// is checked is what a real API server (v1.24, with no kube-controller-manager) needs from a
// kubelet and its node lifecycle controller (issue #23, a rehearsal against a real server):
//   - the not-ready taint every new Node gets is taken off once the node is Ready, and a node
//     taken down by a fault is tainted unreachable until it is up;
//   - a pod deleted gracefully (an eviction) is ended and deleted with grace 0 after its grace
//     period, on the loop's clock whatever the speed;
//   - status writes keep the PodScheduled condition the binding wrote;
//   - times written are never after the server's clock, also when the loop runs ahead of it;
//   - nodes carry gantry.dev/nic.

#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"

#include <gtest/gtest.h>

#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "engine/config/units.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/adapters/kube/world/live_harness.hpp"

namespace gantry::kube {
namespace kubelet_sim_test {

using nlohmann::json;
using testing::FakeApiServer;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kNodes = "/api/v1/nodes";
constexpr int64_t kGi = int64_t{1} << 30;

// Two nodes of 8 A100s with 1600 Gbps of NIC (200e9 B/s) in rack r1; r1-n001 has a taint of
// its own (gpu=dedicated:NoSchedule), which kubelet-sim must leave alone.
Topology topology() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass c{"a100x8", Resources{96'000, 1024 * kGi, 8, 0}, t.gpus.find("A100-80G"), 8};
  c.nic_bytes_per_s = 200e9;
  t.classes.push_back(c);
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0},
             NodeInfo{"r1-n001", 0, 0, {}, {Taint{"gpu", "dedicated", TaintEffect::kNoSchedule}}}};
  return t;
}

// A pod of one GPU as a controller creates it (POST: the server's defaults, among them
// terminationGracePeriodSeconds 30 unless `grace` says otherwise).
json pod(const std::string& name, std::optional<int> grace = std::nullopt,
         const std::string& duration = "") {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"annotations", json::object()}}},
            {"spec",
             {{"schedulerName", "gantry"},
              {"containers",
               {{{"name", "main"},
                 {"image", "registry.local/train:1"},
                 {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}}};
  if (grace) p["spec"]["terminationGracePeriodSeconds"] = *grace;
  if (!duration.empty()) p["metadata"]["annotations"]["gantry.dev/simulate-duration"] = duration;
  return p;
}

// kubelet-sim playing topology() against the fake, started and synced. The API server's clock
// is T0 + (loop − T0) / wall_speed: the wall clock of `--speed wall_speed` started at T0.
struct Rig {
  explicit Rig(KubeletSimOptions options, int64_t wall_speed = 1)
      : kubelet(client, workers, *loop, topology(), with_server_clock(options, wall_speed)) {
    kubelet.start();
    harness.add(workers);
    harness.add(*kubelet.informer(), "/api/v1/pods", "spec.nodeName!=");
    const_cast<Informer*>(kubelet.informer())->wait_for_sync();
    fake.wait_for_watches_started(1);
    harness.settle();
  }
  ~Rig() { kubelet.stop(); }
  KubeletSimOptions with_server_clock(KubeletSimOptions o, int64_t wall_speed) {
    o.server_now = [this, wall_speed] {
      return kT0 + Duration((loop->now() - kT0).micros() / wall_speed);
    };
    return o;
  }
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;

  // Creates the pod (POST) and binds it to `node`, as the live world does.
  void place(const json& p, const std::string& node) {
    ASSERT_EQ(client.create(kPods, p).outcome, WriteOutcome::kOk);
    ASSERT_EQ(client.bind("default", p["metadata"]["name"], node).outcome, WriteOutcome::kOk);
  }
  json status_of(const std::string& name) const { return (*fake.get(kPods, name))["status"]; }
  json taints_of(const std::string& node) const {
    return (*fake.get(kNodes, node))["spec"].value("taints", json::array());
  }

  FakeApiServer fake;
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(kT0);
  KubeClient client{testing::config_for(fake.url())};
  ApiWorkers workers{2};
  KubeletSim kubelet;
  testing::LiveHarness harness{*loop, fake};
};

KubeletSimOptions options(double speed = 1) {
  return {.pod_startup = seconds(5), .speed = speed, .renew_leases = false};
}

// Finding 1: every pod stayed Pending on a real server, whose TaintNodesByCondition admission
// taints each new Node not-ready:NoSchedule.
TEST(KubeletSim, ARegisteredNodeIsReadyWithoutTheNotReadyTaint) {
  Rig rig(options());
  EXPECT_EQ(rig.taints_of("r1-n000"), json::array()) << "the not-ready taint is off";
  EXPECT_EQ(rig.taints_of("r1-n001"),
            json::array({{{"key", "gpu"}, {"value", "dedicated"}, {"effect", "NoSchedule"}}}))
      << "the node's own taint stays, the lifecycle one is off";
  const json node = *rig.fake.get(kNodes, "r1-n000");
  ASSERT_EQ(node["status"]["conditions"].size(), 1u);
  EXPECT_EQ(node["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(node["status"]["conditions"][0]["status"], "True");
}

// A node taken down is tainted unreachable (NoSchedule; NoExecute with its timeAdded) after it
// is marked not ready, and untainted when it is up again.
TEST(KubeletSim, ANodeDownIsTaintedUnreachableUntilItIsUp) {
  Rig rig(options());
  rig.kubelet.schedule_faults({FaultEvent{kT0 + minutes(1), FaultAction::kNodeDown, 1},
                               FaultEvent{kT0 + hours(1), FaultAction::kNodeUp, 1}});
  rig.harness.run_until(kT0 + minutes(1));
  const json own = {{"key", "gpu"}, {"value", "dedicated"}, {"effect", "NoSchedule"}};
  EXPECT_EQ(rig.taints_of("r1-n001"),
            json::array({own,
                         {{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoSchedule"}},
                         {{"key", "node.kubernetes.io/unreachable"},
                          {"effect", "NoExecute"},
                          {"timeAdded", "2026-01-01T00:01:00Z"}}}));
  EXPECT_EQ((*rig.fake.get(kNodes, "r1-n001"))["status"]["conditions"][0]["status"], "Unknown");
  EXPECT_EQ(rig.taints_of("r1-n000"), json::array()) << "the other node is untouched";
  rig.harness.run_until(kT0 + hours(1));
  EXPECT_EQ(rig.taints_of("r1-n001"), json::array({own}));
  EXPECT_EQ((*rig.fake.get(kNodes, "r1-n001"))["status"]["conditions"][0]["status"], "True");
}

// Finding 2: a pod evicted while it runs is Terminating for its grace period, then ended and
// deleted by kubelet-sim with grace 0 and its uid; the grace is loop time, so at speed 10 it
// takes a tenth of it in wall time and the same on the loop's clock.
TEST(KubeletSim, APodEvictedWhileRunningIsGoneAfterItsGracePeriod) {
  for (const double speed : {1.0, 10.0}) {
    SCOPED_TRACE(speed);
    Rig rig(options(speed));
    rig.place(pod("a"), "r1-n000");
    rig.harness.run_until(kT0 + seconds(10));
    ASSERT_EQ(rig.status_of("a")["phase"], "Running");
    const std::string uid = (*rig.fake.get(kPods, "a"))["metadata"]["uid"];
    rig.fake.clear_requests();
    ASSERT_EQ(rig.client.evict("default", "a", uid).outcome, WriteOutcome::kOk);
    // Evicted at T0+10s with the default grace of 30 s: gone at T0+40s, not a microsecond before.
    rig.harness.run_until(kT0 + seconds(40) - Duration(1));
    const std::optional<json> terminating = rig.fake.get(kPods, "a");
    ASSERT_TRUE(terminating) << "still there during its grace period";
    EXPECT_EQ(terminating->at("metadata").value("deletionGracePeriodSeconds", 0), 30);
    rig.harness.run_until(kT0 + seconds(40));
    EXPECT_FALSE(rig.fake.get(kPods, "a")) << "confirmed after 30 s of loop time";
    EXPECT_EQ(rig.kubelet.stats().deletions_confirmed, 1);
    EXPECT_EQ(rig.kubelet.stats().write_errors, 0);
    // The kubelet's confirmation: the container's end, then a delete of grace 0 for that uid.
    std::vector<std::string> writes;
    json last_delete;
    for (const testing::RecordedRequest& r : rig.fake.requests()) {
      if (r.method == "GET") continue;
      writes.push_back(r.method + " " + r.path);
      if (r.method == "DELETE") last_delete = json::parse(r.body);
    }
    EXPECT_EQ(writes, (std::vector<std::string>{"POST /api/v1/namespaces/default/pods/a/eviction",
                                                "PATCH /api/v1/namespaces/default/pods/a/status",
                                                "DELETE /api/v1/namespaces/default/pods/a"}));
    EXPECT_EQ(last_delete["gracePeriodSeconds"], 0);
    EXPECT_EQ(last_delete["preconditions"]["uid"], uid);
  }
}

// A pod's own terminationGracePeriodSeconds counts (a DELETE without a grace of its own), and
// a pod deleted before it started goes the same way.
TEST(KubeletSim, APodDeletedIsGoneAfterItsOwnGracePeriod) {
  Rig rig(options());
  rig.place(pod("b", 12), "r1-n000");
  rig.harness.run_until(kT0 + seconds(2));  // still starting (running at +5 s)
  const std::string uid = (*rig.fake.get(kPods, "b"))["metadata"]["uid"];
  ASSERT_EQ(rig.client.remove(std::string(kPods) + "/b", {.uid = uid}).outcome, WriteOutcome::kOk);
  rig.harness.run_until(kT0 + seconds(14) - Duration(1));  // 2 + 12 = 14 s
  ASSERT_TRUE(rig.fake.get(kPods, "b"));
  EXPECT_EQ(rig.status_of("b")["phase"], "Pending") << "its start was called off";
  rig.harness.run_until(kT0 + seconds(14));
  EXPECT_FALSE(rig.fake.get(kPods, "b"));
  EXPECT_EQ(rig.kubelet.stats().pods_started, 0);
}

// Finding 5: kubelet-sim's merge patches replaced the whole conditions list, dropping the
// PodScheduled condition the binding wrote; a kubelet's status update keeps it.
TEST(KubeletSim, StatusWritesKeepThePodScheduledCondition) {
  Rig rig(options());
  rig.place(pod("c", std::nullopt, "1m"), "r1-n000");
  const auto types = [&] {
    std::map<std::string, std::string> out;
    for (const json& c : rig.status_of("c").value("conditions", json::array()))
      out[c["type"]] = c["status"];
    return out;
  };
  rig.harness.run_until(kT0 + seconds(10));
  EXPECT_EQ(types(),
            (std::map<std::string, std::string>{{"PodScheduled", "True"}, {"Ready", "True"}}));
  rig.harness.run_until(kT0 + minutes(2));  // ended at 5 s + 1 min
  ASSERT_EQ(rig.status_of("c")["phase"], "Succeeded");
  EXPECT_EQ(types(),
            (std::map<std::string, std::string>{{"PodScheduled", "True"}, {"Ready", "False"}}));
}

// Finding 5: at --speed 10 the loop runs ten times ahead of the wall (the server's) clock, and
// the planned instants were written as they were, in the server's future. Here the server's
// clock is T0 + (loop − T0) / 10, as with `--speed 10` started at T0.
TEST(KubeletSim, TimesWrittenAreNeverAfterTheServersClock) {
  KubeletSimOptions o = options(10);
  o.renew_leases = true;
  Rig rig(o, 10);
  rig.place(pod("d", std::nullopt, "100s"), "r1-n000");
  // Running at loop T0+5s, when the server's clock reads T0+0.5s; Succeeded at loop T0+105s,
  // server T0+10.5s. The Lease, renewed every 10 s of wall time (100 s of loop), was last
  // renewed at loop T0+100s: server T0+10s.
  rig.harness.run_until(kT0 + seconds(6));
  const json running = rig.status_of("d");
  ASSERT_EQ(running["phase"], "Running");
  EXPECT_EQ(running["startTime"], "2026-01-01T00:00:00.5Z");
  EXPECT_EQ(running["containerStatuses"][0]["state"]["running"]["startedAt"],
            "2026-01-01T00:00:00.5Z");
  rig.harness.run_until(kT0 + seconds(106));
  const json ended = rig.status_of("d");
  ASSERT_EQ(ended["phase"], "Succeeded");
  EXPECT_EQ(ended["containerStatuses"][0]["state"]["terminated"]["finishedAt"],
            "2026-01-01T00:00:10.5Z");
  EXPECT_EQ(ended["containerStatuses"][0]["state"]["terminated"]["startedAt"],
            "2026-01-01T00:00:00.5Z")
      << "the start as it was written when the pod started";
  const auto lease =
      rig.fake.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "r1-n000");
  ASSERT_TRUE(lease);
  EXPECT_EQ((*lease)["spec"]["renewTime"], "2026-01-01T00:00:10.000000Z");
}

// Finding 5: snapshots of kubelet-sim's nodes said "assumed" for the NIC: the label is written,
// in a form a scenario's `nic` reads back as the same bandwidth.
TEST(KubeletSim, NodesCarryTheirNicLabel) {
  Rig rig(options());
  EXPECT_EQ((*rig.fake.get(kNodes, "r1-n000"))["metadata"]["labels"]["gantry.dev/nic"],
            "1600Gbps");                              // 200e9 B/s × 8 = 1.6e12 bit/s
  EXPECT_EQ(nic_label_value(125e9), "1Tbps");         // 1e12 bit/s
  EXPECT_EQ(nic_label_value(1.5625e9), "12500Mbps");  // 12.5e9 bit/s: not whole in Gbps
  EXPECT_EQ(nic_label_value(3.125e9), "25Gbps");      // the PAI scenario's 25Gbps
  for (const double bytes : {200e9, 125e9, 1.5625e9, 3.125e9}) {
    const Result<double> back = parse_bandwidth(nic_label_value(bytes));
    ASSERT_TRUE(back);
    EXPECT_EQ(back.value(), bytes);
  }
}

}  // namespace kubelet_sim_test
}  // namespace gantry::kube
