#include "adapters/kube/world/kube_pod_evictor.hpp"

#include <algorithm>

namespace gantry::kube {

KubePodEvictor::KubePodEvictor(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                               PodEvictorOptions options)
    : client_(client), workers_(workers), loop_(loop), options_(options) {}

KubePodEvictor::~KubePodEvictor() {
  for (const auto& [serial, timer] : retries_) loop_.cancel(timer);
}

void KubePodEvictor::evict(const PodRef& pod, std::function<void(Status)> done) {
  auto e = std::make_shared<Eviction>();
  e->pod = pod;
  e->done = std::move(done);
  send(std::move(e));
}

void KubePodEvictor::send(std::shared_ptr<Eviction> e) {
  ++stats_.requests;
  workers_.submit([this, e] {
    Answer a;
    try {
      const WriteResult r = client_.evict(e->pod.namespace_name, e->pod.name, e->pod.uid);
      switch (r.outcome) {
        case WriteOutcome::kOk:
          a.kind = Answer::Kind::kAccepted;
          break;
        case WriteOutcome::kNotFound:
        case WriteOutcome::kConflict:  // the uid precondition: another incarnation has the name
          a.kind = Answer::Kind::kGone;
          break;
        case WriteOutcome::kTooManyRequests:
          a.kind = Answer::Kind::kThrottled;
          a.retry_after = r.status.retry_after;
          break;
        case WriteOutcome::kAlreadyExists:
          a.error = "unexpected answer " + std::string(to_string(r.outcome));
          break;
      }
    } catch (const std::exception& ex) {
      a.error = ex.what();
    }
    loop_.post([this, e, a] { answered(e, a); });
  });
}

void KubePodEvictor::answered(std::shared_ptr<Eviction> e, const Answer& a) {
  switch (a.kind) {
    case Answer::Kind::kAccepted:
      ++stats_.accepted;
      e->done(Status::ok());
      return;
    case Answer::Kind::kGone:
      ++stats_.gone;
      e->done(Status::ok());
      return;
    case Answer::Kind::kThrottled: {
      ++stats_.throttled;
      Duration wait = a.retry_after.value_or(Duration(0));
      if (wait <= Duration(0)) wait = options_.default_retry_after;
      again_after(std::move(e), std::min(wait, options_.max_retry_after));
      return;
    }
    case Answer::Kind::kError:
      break;
  }
  ++stats_.errors;
  if (e->errors >= options_.max_error_retries) {
    ++stats_.given_up;
    e->done(Status::error("evicting pod " + e->pod.key() + ": " + a.error + " (gave up after " +
                          std::to_string(e->errors + 1) + " tries)"));
    return;
  }
  // error_backoff · 2^errors, capped; by doubling so it cannot overflow.
  Duration wait = options_.error_backoff;
  for (int i = 0; i < e->errors && wait < options_.error_backoff_max; ++i) wait = wait + wait;
  ++e->errors;
  again_after(std::move(e), std::min(wait, options_.error_backoff_max));
}

void KubePodEvictor::again_after(std::shared_ptr<Eviction> e, Duration wait) {
  const uint64_t serial = next_retry_++;
  retries_[serial] = loop_.schedule_after(wait, [this, serial, e] {
    retries_.erase(serial);
    send(e);
  });
}

}  // namespace gantry::kube
