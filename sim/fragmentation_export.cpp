#include "sim/fragmentation_export.hpp"

#include <filesystem>

#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "engine/store/replacement_file.hpp"
#include "engine/store/transaction.hpp"
#include "sim/results_writer.hpp"

namespace gantry {

void write_fragmentation_database(const std::string& path, const std::string& scenario,
                                  const std::vector<NamedResult>& results) {
  check_results_target(path);
  ReplacementFile file(path);  // atomic: see results_writer.hpp
  OpenOptions options;
  options.fast = true;
  Database db = Database::open(file.temp_path(), options);
  claim(db, kResultsDatabase);
  db.exec(
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE curves(variant TEXT, policy TEXT, arrival_pct INTEGER,"
      " allocated_gpu_pct_mean REAL, allocated_gpu_pct_sd REAL,"
      " unallocated_gpu_pct_mean REAL, unallocated_gpu_pct_sd REAL,"
      " fragmentation_pct_mean REAL, fragmentation_pct_sd REAL, failed_pods_mean REAL,"
      " PRIMARY KEY (variant, policy, arrival_pct));");
  {
    Transaction tx(db);
    Statement meta = db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
    const auto put = [&meta](const std::string& k, const std::string& v) {
      meta.bind_all(k, v);
      meta.step();
      meta.reset();
    };
    put("kind", "fragmentation");
    put("scenario", scenario);
    if (!results.empty()) {
      const FragmentationResult& first = results.front().result;
      put("node_list", first.node_list);
      put("capacity_gpus", std::to_string(first.capacity_gpus));
      if (!first.policies.empty()) put("seeds", std::to_string(first.policies.front().seeds));
    }
    Statement row = db.prepare("INSERT INTO curves VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const NamedResult& named : results) {
      for (const PolicyCurves& p : named.result.policies) {
        for (size_t i = 0; i < p.arrival_pct.size(); ++i) {
          row.bind_all(named.variant, p.policy, static_cast<int64_t>(p.arrival_pct[i]),
                       p.allocated_gpu_pct_mean[i], p.allocated_gpu_pct_sd[i],
                       p.unallocated_gpu_pct_mean[i], p.unallocated_gpu_pct_sd[i],
                       p.fragmentation_pct_mean[i], p.fragmentation_pct_sd[i],
                       p.failed_pods_mean[i]);
          row.step();
          row.reset();
        }
      }
    }
    put("complete", "true");  // last, in the one transaction: readers look for it
    tx.commit();
  }
  db.close();
  check_results_target(path);
  remove_sidecars(path);
  file.commit();
}

}  // namespace gantry
