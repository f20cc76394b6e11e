#pragma once
// The JSON a distributed sweep's parts exchange (web/API.md, "Distributed sweeps"): the
// documents the CLI submits and each worker fetches, and the runs the workers post.
//
//   documents: {"root": "/home/me/what-if", "sweep": "sweeps/grid.yaml",
//               "documents": {"sweeps/grid.yaml": "...", "quickstart.yaml": "..."}}
//   run:       {"run": 5, "seed": 43, "fingerprint": 1234567890123, "metrics": [1.5, null]}
//
// A run's metrics are JSON numbers written so that they read back to the same double (nlohmann's
// shortest round-trip form); a NaN (no value) is null. The fingerprint and seed are unsigned
// 64-bit integers.
//
// Errors: the readers throw GantryError naming the field that is missing or of the wrong type.

#include <cstddef>
#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_documents.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace gantry {

nlohmann::json documents_json(const SweepDocuments& docs);
// Reads the three fields of documents_json() from `j` (other fields are left alone).
SweepDocuments documents_from_json(const nlohmann::json& j);

// A posted run: its index in the sweep (run = point × seeds + seed_index) and its figures.
struct PostedRun {
  size_t run = 0;
  uint64_t seed = 0;
  uint64_t fingerprint = 0;
  std::vector<double> metrics;
};

nlohmann::json run_json(const PostedRun& run);
// `where` names the run in messages ("runs[2]").
PostedRun run_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gantry
