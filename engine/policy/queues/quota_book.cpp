#include "engine/policy/queues/quota_book.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>

namespace gantry {

namespace {

int64_t above(int64_t used, int64_t guarantee) { return std::max<int64_t>(0, used - guarantee); }

}  // namespace

int QuotaBook::intern(const std::string& name) {
  if (const auto it = resource_ids_.find(name); it != resource_ids_.end()) return it->second;
  const int id = static_cast<int>(resources_.size());
  resources_.push_back(name);
  resource_ids_.emplace(name, id);
  return id;
}

QuotaBook::QuotaBook(const AdmissionConfig& config) {
  // Resources first, so every vector below has its final size.
  for (const QueueSpec& spec : config.queues)
    for (const auto& [name, amount] : spec.nominal) intern(name);
  gpu_ = find_resource(kQuotaGpu);
  cpu_ = find_resource(kQuotaCpu);
  memory_ = find_resource(kQuotaMemory);
  const size_t n = resources_.size();

  std::map<std::string, int> cohort_ids;
  for (const QueueSpec& spec : config.queues) {
    Queue q;
    q.name = spec.name;
    q.weight = spec.fair_weight;
    q.named.assign(n, false);
    q.nominal.assign(n, 0);
    q.borrow.assign(n, spec.cohort.empty() ? 0 : kUnlimited);
    q.lend.assign(n, kUnlimited);
    q.used.assign(n, 0);
    for (const auto& [name, amount] : spec.nominal) {
      const auto r = idx(find_resource(name));
      q.named[r] = true;
      q.nominal[r] = amount;
      if (name.starts_with("gpu/")) q.per_model_gpus = true;
    }
    for (const auto& [name, amount] : spec.borrowing)
      if (const int r = find_resource(name); r >= 0 && !spec.cohort.empty())
        q.borrow[idx(r)] = amount;
    for (const auto& [name, amount] : spec.lending)
      if (const int r = find_resource(name); r >= 0) q.lend[idx(r)] = amount;

    int cohort = -1;
    if (!spec.cohort.empty()) {
      const auto [it, added] = cohort_ids.emplace(spec.cohort, static_cast<int>(cohorts_.size()));
      if (added) cohorts_.push_back(Cohort{});
      cohort = it->second;
    } else {
      cohort = static_cast<int>(cohorts_.size());
      cohorts_.push_back(Cohort{});
    }
    q.cohort = cohort;
    const int id = static_cast<int>(queues_.size());
    queue_ids_.emplace(q.name, id);
    queues_.push_back(std::move(q));
    Cohort& c = cohorts_[static_cast<size_t>(cohort)];
    c.members.push_back(id);
    c.capacity.resize(n, 0);
    c.used.resize(n, 0);
    for (size_t r = 0; r < n; ++r)
      if (queues_.back().named[r])
        c.capacity[r] += queues_.back().nominal[r] - guarantee(id, static_cast<int>(r));
  }
}

int QuotaBook::find_queue(const std::string& name) const {
  const auto it = queue_ids_.find(name);
  return it == queue_ids_.end() ? -1 : it->second;
}

int QuotaBook::find_resource(const std::string& name) const {
  const auto it = resource_ids_.find(name);
  return it == resource_ids_.end() ? -1 : it->second;
}

bool QuotaBook::limits(int q, int r) const {
  return r >= 0 && queues_[static_cast<size_t>(q)].named[idx(r)];
}

int QuotaBook::gpu_model_resource(const std::string& model) const {
  return find_resource(quota_gpu_model(model));
}

int64_t QuotaBook::guarantee(int q, int r) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  const int64_t lend = queue.lend[idx(r)];
  return lend == kUnlimited ? 0 : std::max<int64_t>(0, queue.nominal[idx(r)] - lend);
}

ResourceVector QuotaBook::usage(int q, int64_t gpu_milli, const std::string& gpu_model,
                                int64_t cpu_milli, int64_t memory_bytes) const {
  ResourceVector u(resources_.size(), 0);
  if (limits(q, gpu_)) u[idx(gpu_)] = gpu_milli;
  if (gpu_milli > 0 && !gpu_model.empty())
    if (const int r = gpu_model_resource(gpu_model); limits(q, r)) u[idx(r)] = gpu_milli;
  if (limits(q, cpu_)) u[idx(cpu_)] = cpu_milli;
  if (limits(q, memory_)) u[idx(memory_)] = memory_bytes;
  return u;
}

QuotaBook::Fit QuotaBook::fits(int q, const ResourceVector& request) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  const Cohort& cohort = cohorts_[static_cast<size_t>(queue.cohort)];
  Fit fit{true, false};
  for (size_t r = 0; r < request.size(); ++r) {
    if (request[r] == 0 || !queue.named[r]) continue;
    const int64_t after = queue.used[r] + request[r];
    if (after > queue.nominal[r]) {
      fit.borrows = true;
      const int64_t limit = queue.borrow[r];
      if (limit != kUnlimited && after > queue.nominal[r] + limit) return Fit{};
    }
    const int64_t g = guarantee(q, static_cast<int>(r));
    const int64_t more = above(after, g) - above(queue.used[r], g);
    if (cohort.used[r] + more > cohort.capacity[r]) return Fit{};
  }
  return fit;
}

namespace {

// An amount of resource `name` as a user reads it: GPUs and cores from milli, memory in GiB.
std::string amount(const std::string& name, int64_t v) {
  if (name == "gpu" || name.rfind("gpu/", 0) == 0 || name == "cpu")
    return fmt::format("{:g}", static_cast<double>(v) / 1000.0);
  if (name == "memory")
    return fmt::format("{:g} GiB", static_cast<double>(v) / static_cast<double>(int64_t{1} << 30));
  return std::to_string(v);
}

}  // namespace

std::string QuotaBook::why_not(int q, const ResourceVector& request) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  const Cohort& cohort = cohorts_[static_cast<size_t>(queue.cohort)];
  for (size_t r = 0; r < request.size(); ++r) {
    if (request[r] == 0 || !queue.named[r]) continue;
    const std::string& name = resources_[r];
    const int64_t after = queue.used[r] + request[r];
    const int64_t limit = queue.borrow[r];
    if (after > queue.nominal[r] && limit != kUnlimited && after > queue.nominal[r] + limit)
      return fmt::format(
          "queue {} is over its borrowing limit of {}: {} used + {} asked > {} "
          "nominal + {} borrowable",
          queue.name, name, amount(name, queue.used[r]), amount(name, request[r]),
          amount(name, queue.nominal[r]), amount(name, limit));
    const int64_t g = guarantee(q, static_cast<int>(r));
    const int64_t more = above(after, g) - above(queue.used[r], g);
    if (cohort.used[r] + more > cohort.capacity[r])
      return fmt::format(
          "the cohort of queue {} has no {} left to lend: {} of {} lent, {} more asked", queue.name,
          name, amount(name, cohort.used[r]), amount(name, cohort.capacity[r]), amount(name, more));
  }
  return {};
}

bool QuotaBook::within_nominal(int q, const ResourceVector& request) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  for (size_t r = 0; r < request.size(); ++r)
    if (request[r] > 0 && queue.named[r] && queue.used[r] + request[r] > queue.nominal[r])
      return false;
  return true;
}

bool QuotaBook::under_nominal_in(int q, const ResourceVector& request) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  for (size_t r = 0; r < request.size(); ++r)
    if (request[r] > 0 && queue.named[r] && queue.used[r] >= queue.nominal[r]) return false;
  return true;
}

bool QuotaBook::borrowing_in(int q, const ResourceVector& request) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  for (size_t r = 0; r < request.size() && r < queue.used.size(); ++r)
    if (request[r] > 0 && queue.named[r] && queue.used[r] > queue.nominal[r]) return true;
  return false;
}

bool QuotaBook::borrowing(int q) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  for (size_t r = 0; r < queue.used.size(); ++r)
    if (queue.named[r] && queue.used[r] > queue.nominal[r]) return true;
  return false;
}

void QuotaBook::add(int q, const ResourceVector& usage) {
  Queue& queue = queues_[static_cast<size_t>(q)];
  Cohort& cohort = cohorts_[static_cast<size_t>(queue.cohort)];
  for (size_t r = 0; r < usage.size(); ++r) {
    if (usage[r] == 0 || !queue.named[r]) continue;
    const int64_t g = guarantee(q, static_cast<int>(r));
    cohort.used[r] += above(queue.used[r] + usage[r], g) - above(queue.used[r], g);
    queue.used[r] += usage[r];
  }
}

void QuotaBook::remove(int q, const ResourceVector& usage) {
  Queue& queue = queues_[static_cast<size_t>(q)];
  Cohort& cohort = cohorts_[static_cast<size_t>(queue.cohort)];
  for (size_t r = 0; r < usage.size(); ++r) {
    if (usage[r] == 0 || !queue.named[r]) continue;
    assert(queue.used[r] >= usage[r] && "removing usage the queue does not hold");
    const int64_t g = guarantee(q, static_cast<int>(r));
    cohort.used[r] -= above(queue.used[r], g) - above(queue.used[r] - usage[r], g);
    queue.used[r] -= usage[r];
  }
}

int64_t QuotaBook::cohort_capacity(int cohort, int r) const {
  return cohorts_[static_cast<size_t>(cohort)].capacity[idx(r)];
}

int64_t QuotaBook::cohort_used(int cohort, int r) const {
  return cohorts_[static_cast<size_t>(cohort)].used[idx(r)];
}

int64_t QuotaBook::dominant_share(int q, std::span<const int64_t> extra) const {
  const Queue& queue = queues_[static_cast<size_t>(q)];
  const Cohort& cohort = cohorts_[static_cast<size_t>(queue.cohort)];
  int64_t dominant = 0;
  for (size_t r = 0; r < queue.used.size(); ++r) {
    if (!queue.named[r]) continue;
    const int64_t used = queue.used[r] + (r < extra.size() ? extra[r] : 0);
    const int64_t borrowed = used - queue.nominal[r];
    if (borrowed <= 0) continue;
    if (cohort.capacity[r] <= 0) return kMaxShare;
    dominant = std::max(dominant, borrowed * 1000 / cohort.capacity[r]);
  }
  if (dominant == 0) return 0;
  if (queue.weight <= 0) return kMaxShare;
  return static_cast<int64_t>(static_cast<double>(dominant) / queue.weight);
}

}  // namespace gantry
