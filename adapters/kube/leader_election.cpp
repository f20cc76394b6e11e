#include "adapters/kube/leader_election.hpp"

#include "adapters/kube/request_bodies.hpp"

namespace gantry::kube {

namespace {

std::string string_at(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t int_at(const nlohmann::json& o, const char* key, int64_t fallback) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

}  // namespace

LeaderElector::LeaderElector(KubeClient& client, LeaderElectionOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.clock == nullptr) own_clock_ = std::make_unique<WallClock>();
  clock_ = options_.clock != nullptr ? options_.clock : own_clock_.get();
  collection_path_ =
      "/apis/coordination.k8s.io/v1/namespaces/" + options_.namespace_name + "/leases";
  lease_path_ = collection_path_ + "/" + options_.name;
}

LeaderElector::~LeaderElector() = default;

void LeaderElector::fail(std::string message) {
  std::lock_guard lock(error_mutex_);
  last_error_ = std::move(message);
}

std::string LeaderElector::last_error() const {
  std::lock_guard lock(error_mutex_);
  return last_error_;
}

bool LeaderElector::write(const nlohmann::json& lease, bool create) {
  const WriteResult r =
      create ? client_.create(collection_path_, lease) : client_.update(lease_path_, lease);
  if (r.outcome != WriteOutcome::kOk) {
    fail(std::string("lease ") + (create ? "create: " : "update: ") + to_string(r.outcome));
    leader_.store(false);
    return false;
  }
  observed_spec_ = r.object.value("spec", nlohmann::json::object());
  observed_version_ = resource_version_of(r.object);
  observed_time_ = clock_->now();
  last_renew_ = observed_time_;
  leader_.store(true);
  return true;
}

bool LeaderElector::try_acquire_or_renew() {
  const Time now = clock_->now();
  LeaseSpec next;
  next.namespace_name = options_.namespace_name;
  next.name = options_.name;
  next.holder_identity = options_.identity;
  next.lease_duration_seconds = options_.lease_duration.micros() / 1'000'000;
  next.renew_time = now;
  try {
    const KubeResponse got = client_.request("GET", lease_path_);
    if (got.status == 404) {
      next.acquire_time = now;
      return write(lease_body(next), /*create=*/true);
    }
    if (got.status != 200) throw KubeError(parse_status(got.status, got.body));
    const nlohmann::json lease = nlohmann::json::parse(got.body, nullptr, false);
    if (!lease.is_object()) throw KubeTransportError("lease: the answer is not JSON");
    const nlohmann::json spec = lease.value("spec", nlohmann::json::object());
    if (spec != observed_spec_ || observed_version_.empty()) {
      observed_spec_ = spec;
      observed_time_ = now;
    }
    observed_version_ = resource_version_of(lease);
    const std::string holder = string_at(spec, "holderIdentity");
    const Duration held_for = seconds(int_at(spec, "leaseDurationSeconds", 0));
    if (!holder.empty() && holder != options_.identity && observed_time_ + held_for > now) {
      leader_.store(false);
      return false;  // someone else leads, and their lease has not run out
    }
    if (holder == options_.identity) {
      const auto acquired = parse_kube_time(string_at(spec, "acquireTime"));
      next.acquire_time = acquired ? *acquired : now;
      next.lease_transitions = int_at(spec, "leaseTransitions", 0);
    } else {
      next.acquire_time = now;
      next.lease_transitions = int_at(spec, "leaseTransitions", 0) + 1;
    }
    next.resource_version = observed_version_;
    return write(lease_body(next), /*create=*/false);
  } catch (const GantryError& e) {
    fail(e.what());
    return false;  // leadership is kept until renew_deadline passes (run())
  }
}

bool LeaderElector::release() {
  if (!leader_.load()) return false;
  leader_.store(false);
  const Time now = clock_->now();
  LeaseSpec released;
  released.namespace_name = options_.namespace_name;
  released.name = options_.name;
  released.holder_identity = "";
  released.lease_duration_seconds = 1;
  released.acquire_time = now;
  released.renew_time = now;
  released.lease_transitions = int_at(observed_spec_, "leaseTransitions", 0);
  released.resource_version = observed_version_;
  try {
    const WriteResult r = client_.update(lease_path_, lease_body(released));
    if (r.outcome != WriteOutcome::kOk) {
      fail(std::string("lease release: ") + to_string(r.outcome));
      return false;
    }
    observed_spec_ = r.object.value("spec", nlohmann::json::object());
    observed_version_ = resource_version_of(r.object);
    return true;
  } catch (const GantryError& e) {
    fail(e.what());
    return false;
  }
}

void LeaderElector::run(Sleeper& sleeper, const std::function<void()>& on_started,
                        const std::function<void()>& on_stopped) {
  // Campaign.
  while (!try_acquire_or_renew()) {
    if (!sleeper.sleep_for(options_.retry_period)) return;
  }
  if (on_started) on_started();
  // Lead: renew until that fails for longer than renew_deadline, or we are told to stop.
  while (true) {
    if (!sleeper.sleep_for(options_.retry_period)) {
      release();
      break;
    }
    if (try_acquire_or_renew()) continue;
    const bool someone_else = !leader_.load();
    if (someone_else || !last_renew_ || clock_->now() - *last_renew_ >= options_.renew_deadline) {
      leader_.store(false);
      break;
    }
  }
  if (on_stopped) on_stopped();
}

}  // namespace gantry::kube
