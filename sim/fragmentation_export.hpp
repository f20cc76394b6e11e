#pragma once
// Writes fragmentation experiment results to a SQLite database, atomically and only over a
// Gantry results database, as ResultsWriter does (results_writer.hpp):
//
//   meta(key TEXT PRIMARY KEY, value TEXT)      kind = fragmentation, scenario, seeds, limit,
//                                               complete = true (written last)
//   curves(variant TEXT, policy TEXT, arrival_pct INTEGER,
//          allocated_gpu_pct_mean REAL, allocated_gpu_pct_sd REAL,
//          unallocated_gpu_pct_mean REAL, unallocated_gpu_pct_sd REAL,
//          fragmentation_pct_mean REAL, fragmentation_pct_sd REAL, failed_pods_mean REAL,
//          PRIMARY KEY (variant, policy, arrival_pct))
//
// Byte-identical for identical results. Throws StoreError (or FileError when the finished
// file cannot be moved into place), naming the path.

#include <string>
#include <vector>

#include "sim/fragmentation_result.hpp"

namespace gantry {

struct NamedResult {
  std::string variant;  // the pod list's variant name
  FragmentationResult result;
};

void write_fragmentation_database(const std::string& path, const std::string& scenario,
                                  const std::vector<NamedResult>& results);

}  // namespace gantry
