#pragma once
// QuotaBook: the admission queues' quotas and usage, and the arithmetic of Kueue's cohorts
// (ClusterQueue nominalQuota, borrowingLimit, lendingLimit) for one flat level of cohorts.
//
// Resources are interned to small indices (the canonical names of admission_config.hpp). Per
// queue q and resource r: nominal N, usage U, an optional borrowing limit B and lending limit L.
// The part of the quota a queue keeps for itself is its guarantee G = N − L (0 without L); the
// rest is lent to its cohort while unused. A cohort's capacity in r is the sum of its queues'
// lendable N − G, and its usage the sum of their usage above their guarantees, max(0, U − G).
// A queue without a cohort is a cohort of its own.
//
// A request R of queue q fits (Kueue's "fits in quota", per resource the queue names):
//   U + R ≤ N + B                                   (B = 0 without a cohort; absent = unlimited)
//   cohort usage + max(0, U + R − G) − max(0, U − G) ≤ cohort capacity
// It borrows when U + R > N for some resource. A resource the queue's quota does not name is
// neither limited nor counted for that queue (usage() ignores it).
//
// Worked example (tests/engine/policy/queues/quota_book_test.cpp): a (N 64 GPUs, L 8) and b
// (N 32) in one cohort. Capacity = 8 + 32 = 40; a using 60 counts max(0, 60 − 56) = 4 of it.
// b may then use 32 + 4 = 36 (the 8 a lends, minus the 4 it uses of them), if its borrowing
// limit allows.
//
// Dominant resource share (Kueue's fair sharing): for each resource, what the queue uses above
// its nominal quota over the cohort's capacity, in thousandths; the largest over resources,
// divided by the queue's weight (weight 0: borrowing gives the maximum share).
//
// Not thread-safe (event loop thread). Every operation is O(resources) (a handful).

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/policy/queues/admission_config.hpp"

namespace gantry {

// Amounts per interned resource, indexed like QuotaBook::resources().
using ResourceVector = std::vector<int64_t>;

class QuotaBook {
 public:
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
  // The largest dominant share (weight 0 while borrowing).
  static constexpr int64_t kMaxShare = std::numeric_limits<int64_t>::max();

  explicit QuotaBook(const AdmissionConfig& config);

  size_t queue_count() const { return queues_.size(); }
  // The queue's index by name, or -1.
  int find_queue(const std::string& name) const;
  const std::string& queue_name(int q) const { return queues_[static_cast<size_t>(q)].name; }
  // Queues sharing a cohort have the same cohort index; a queue without one has its own.
  int cohort_of(int q) const { return queues_[static_cast<size_t>(q)].cohort; }
  const std::vector<int>& cohort_members(int cohort) const {
    return cohorts_[static_cast<size_t>(cohort)].members;
  }
  size_t cohort_count() const { return cohorts_.size(); }
  // Interned resource names; index = position.
  const std::vector<std::string>& resources() const { return resources_; }
  // The index of a resource name, or -1 when no queue names it.
  int find_resource(const std::string& name) const;

  // Does the queue name this resource in its quota?
  bool limits(int q, int r) const;
  // Does the queue limit GPUs per model (and so may use only the models it names)?
  bool per_model_gpus(int q) const { return queues_[static_cast<size_t>(q)].per_model_gpus; }
  // The resource index of "gpu/<model>" for the queue's per-model quota, -1 if it names none.
  int gpu_model_resource(const std::string& model) const;

  // Usage of a request as the queue counts it: GPU milli (under "gpu", or "gpu/<model>" for
  // the model the pods run on), CPU milli and memory bytes, for the resources it names.
  ResourceVector usage(int q, int64_t gpu_milli, const std::string& gpu_model, int64_t cpu_milli,
                       int64_t memory_bytes) const;

  struct Fit {
    bool fits = false;
    bool borrows = false;  // needs quota above its nominal
  };
  Fit fits(int q, const ResourceVector& request) const;
  // Why fits() refuses the request, in words and amounts (GPUs, cores, GiB) a user can act on:
  // "queue research is over its borrowing limit of gpu: 40 used + 16 asked > 32 nominal + 16
  // borrowable" or "the cohort of queue research has no gpu left to lend: 96 of 96 lent, 16
  // more asked"; "" when it fits.
  std::string why_not(int q, const ResourceVector& request) const;
  // Would the request stay within the queue's nominal quota?
  bool within_nominal(int q, const ResourceVector& request) const;
  // Is the queue using less than its nominal quota of every resource `request` asks for (before
  // adding it)? (Kueue's "under nominal in the resources needing preemption".)
  bool under_nominal_in(int q, const ResourceVector& request) const;
  // Is the queue using more than its nominal quota of a resource `request` asks for?
  bool borrowing_in(int q, const ResourceVector& request) const;
  // Is it borrowing at all?
  bool borrowing(int q) const;

  void add(int q, const ResourceVector& usage);
  void remove(int q, const ResourceVector& usage);
  int64_t used(int q, int r) const { return queues_[static_cast<size_t>(q)].used[idx(r)]; }
  int64_t nominal(int q, int r) const { return queues_[static_cast<size_t>(q)].nominal[idx(r)]; }
  // Sum of the cohort's lendable quota of r, and its usage above the members' guarantees.
  int64_t cohort_capacity(int cohort, int r) const;
  int64_t cohort_used(int cohort, int r) const;

  // Dominant resource share of the queue with `extra` added to its usage (may be empty), in
  // thousandths of the cohort's capacity, divided by the queue's weight.
  int64_t dominant_share(int q, std::span<const int64_t> extra = {}) const;

 private:
  static size_t idx(int r) { return static_cast<size_t>(r); }
  int intern(const std::string& name);
  int64_t guarantee(int q, int r) const;

  struct Queue {
    std::string name;
    int cohort = 0;
    double weight = 1;
    bool per_model_gpus = false;
    std::vector<bool> named;         // per resource
    ResourceVector nominal, borrow;  // borrow: kUnlimited when absent
    ResourceVector lend;             // kUnlimited when absent
    ResourceVector used;
  };
  struct Cohort {
    std::vector<int> members;
    ResourceVector capacity;  // sum of lendable
    ResourceVector used;      // sum of max(0, U − G)
  };
  std::vector<Queue> queues_;
  std::vector<Cohort> cohorts_;
  std::vector<std::string> resources_;
  std::unordered_map<std::string, int> resource_ids_;
  std::unordered_map<std::string, int> queue_ids_;
  int gpu_ = -1, cpu_ = -1, memory_ = -1;
};

}  // namespace gantry
