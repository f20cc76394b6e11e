#include "sim/gang_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace gantry {

namespace {

std::string format_bytes(int64_t bytes) {
  char buf[64];
  if (bytes >= (1ll << 30) && bytes % (1ll << 30) == 0)
    std::snprintf(buf, sizeof buf, "%lldGi", static_cast<long long>(bytes >> 30));
  else if (bytes >= (1ll << 20) && bytes % (1ll << 20) == 0)
    std::snprintf(buf, sizeof buf, "%lldMi", static_cast<long long>(bytes >> 20));
  else
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(bytes));
  return buf;
}

// Whether a node of class `c` may hold pods of `request` (GPU type `type` for GPU pods).
bool class_eligible(const NodeClass& c, const Resources& request, GpuTypeId type) {
  return !(request.needs_gpu() && type >= 0 && c.gpu_type != type) && request.fits_in(c.capacity);
}

// How many pods of `request` an empty node of class `c` holds (a large number for an empty
// request).
int64_t pods_per_node(const NodeClass& c, const Resources& request) {
  int64_t n = std::numeric_limits<int32_t>::max();
  if (request.cpu_milli > 0) n = std::min(n, c.capacity.cpu_milli / request.cpu_milli);
  if (request.memory_bytes > 0) n = std::min(n, c.capacity.memory_bytes / request.memory_bytes);
  if (request.gpus > 0) n = std::min<int64_t>(n, c.capacity.gpus / request.gpus);
  // Shares of one GPU do not straddle GPUs: 300 milli fits three times in each.
  if (request.gpu_milli > 0)
    n = std::min<int64_t>(n, int64_t{c.capacity.gpus} * (kMilliPerGpu / request.gpu_milli));
  return n;
}

}  // namespace

std::string describe_request(const Resources& r) {
  std::string gpu = std::to_string(r.gpus);
  if (r.gpu_milli > 0) {
    // As written in files: "0.5", "0.25", "0.125".
    char buf[16];
    std::snprintf(buf, sizeof buf, "0.%03d", static_cast<int>(r.gpu_milli));
    gpu = buf;
    while (gpu.back() == '0') gpu.pop_back();
  }
  return "cpu " + std::to_string(r.cpu_milli) + "m, memory " + format_bytes(r.memory_bytes) +
         ", gpu " + gpu;
}

std::vector<int64_t> nodes_per_class(const Topology& topology) {
  std::vector<int64_t> nodes_of(topology.classes.size(), 0);
  for (const NodeInfo& n : topology.nodes) ++nodes_of[static_cast<size_t>(n.node_class)];
  return nodes_of;
}

std::string gang_misfit(const Topology& topology, const std::vector<int64_t>& nodes_of,
                        const std::vector<RoleSpec>& roles, GpuTypeId type) {
  // int64 sums: GPU counts of a 100,000-node cluster or of a task with many roles pass int32.
  // Each role's product is bounded by the loaders (a pod <= 64Ti and 10^6 CPUs, <= 10,000
  // replicas, so <= 7e17); the job's sums saturate, a saturated sum being more than any
  // cluster has.
  struct Sums {
    int64_t cpu_milli = 0, memory_bytes = 0, gpus = 0;
  } total, capacity;
  const auto add = [](int64_t& sum, int64_t v) {
    if (__builtin_add_overflow(sum, v, &sum)) sum = std::numeric_limits<int64_t>::max();
  };
  for (size_t c = 0; c < topology.classes.size(); ++c) {
    const NodeClass& nc = topology.classes[c];
    capacity.cpu_milli += nc.capacity.cpu_milli * nodes_of[c];
    capacity.memory_bytes += nc.capacity.memory_bytes * nodes_of[c];
    if (type < 0 || nc.gpu_type == type) capacity.gpus += int64_t{nc.capacity.gpus} * nodes_of[c];
  }
  for (const RoleSpec& role : roles) {
    int64_t room = 0;
    for (size_t c = 0; c < topology.classes.size(); ++c)
      if (class_eligible(topology.classes[c], role.per_replica, type))
        room += pods_per_node(topology.classes[c], role.per_replica) * nodes_of[c];
    if (room < role.replicas)
      return std::to_string(role.replicas) + " " + std::string(to_string(role.kind)) + " pods of " +
             describe_request(role.per_replica) + ", but the whole cluster holds at most " +
             std::to_string(room) + " of them at once";
    add(total.cpu_milli, role.per_replica.cpu_milli * role.replicas);
    add(total.memory_bytes, role.per_replica.memory_bytes * role.replicas);
    add(total.gpus, int64_t{role.per_replica.gpus} * role.replicas);
  }
  const std::string of_type = type >= 0 ? " of type " + topology.gpus.at(type).name : "";
  if (total.gpus > capacity.gpus)
    return std::to_string(total.gpus) + " GPUs" + of_type + " at once, but the cluster has " +
           std::to_string(capacity.gpus);
  if (total.cpu_milli > capacity.cpu_milli)
    return std::to_string(total.cpu_milli) + "m CPU at once, but the cluster has " +
           std::to_string(capacity.cpu_milli) + "m";
  if (total.memory_bytes > capacity.memory_bytes)
    return format_bytes(total.memory_bytes) + " of memory at once, but the cluster has " +
           format_bytes(capacity.memory_bytes);
  return "";
}

}  // namespace gantry
