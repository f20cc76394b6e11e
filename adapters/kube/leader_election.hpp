#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, so that of several `gantry serve`
// replicas exactly one acts on the cluster (client-go's leaderelection with a LeaseLock).
//
// One step (try_acquire_or_renew):
//  - no Lease yet: create it naming us (holderIdentity, acquireTime = renewTime = now,
//    leaseTransitions 0). 409 AlreadyExists: someone else was first — not leader.
//  - held by another identity whose record we have not seen change for leaseDurationSeconds
//    (measured on our own clock from when we first saw that record, as client-go does, so
//    clock skew between replicas does not matter), or released (empty holder): take it over,
//    acquireTime = now, leaseTransitions + 1.
//  - held by us: renew (renewTime = now).
//  - every write is an update carrying the resourceVersion we read; 409 Conflict means another
//    candidate wrote in between — not leader. Two candidates therefore never both succeed on
//    the same version.
// release() hands the lease back (empty holder, leaseDurationSeconds 1) so a successor does not
// wait for expiry.
//
// run() loops: acquire, then renew every retry_period; a leader that has not renewed for
// renew_deadline (< lease_duration) stops leading before anyone else could take over.
//
// Threads: one thread drives an elector (run() or the calls below); is_leader() may be read
// from any thread. The clock and sleeper are injected (VirtualClock and a fake in tests).
// Errors: API failures are never thrown; they count as a failed step (last_error()).

#include <atomic>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/sleeper.hpp"
#include "engine/core/clock.hpp"

namespace gantry::kube {

struct LeaderElectionOptions {
  std::string namespace_name = "default";
  std::string name = "gantry";            // the Lease's name
  std::string identity;                   // this replica: unique (pod name + a random suffix)
  Duration lease_duration = seconds(15);  // client-go's defaults
  Duration renew_deadline = seconds(10);
  Duration retry_period = seconds(2);
  const Clock* clock = nullptr;  // nullptr: a WallClock; must outlive the elector
};

class LeaderElector {
 public:
  // `client` must outlive the elector.
  LeaderElector(KubeClient& client, LeaderElectionOptions options);
  ~LeaderElector();

  // One step as described above; true when we hold the lease afterwards.
  bool try_acquire_or_renew();
  // Gives the lease up if we hold it; true when the release was written.
  bool release();
  bool is_leader() const { return leader_.load(); }

  // Campaigns until `sleeper` is interrupted or leadership is lost; calls on_started when it
  // becomes leader and on_stopped when it stops (lost, or interrupted while leading, after
  // releasing). Returns when not leading.
  void run(Sleeper& sleeper, const std::function<void()>& on_started,
           const std::function<void()>& on_stopped);

  std::string last_error() const;
  const std::string& lease_path() const { return lease_path_; }

 private:
  bool write(const nlohmann::json& lease, bool create);
  void fail(std::string message);

  KubeClient& client_;
  LeaderElectionOptions options_;
  std::unique_ptr<Clock> own_clock_;
  const Clock* clock_;
  std::string collection_path_;
  std::string lease_path_;

  // Driving thread only.
  nlohmann::json observed_spec_;  // the record as last read or written
  std::string observed_version_;  // its resourceVersion
  Time observed_time_;            // when we first saw observed_spec_ (our clock)
  std::optional<Time> last_renew_;

  std::atomic<bool> leader_{false};
  mutable std::mutex error_mutex_;
  std::string last_error_;  // guarded by error_mutex_
};

}  // namespace gantry::kube
