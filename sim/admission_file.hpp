#pragma once
// A `kind: Admission` file: the admission queues of a live scheduler (`gantry serve --world kube
// --admission FILE`), written as the block a Scenario has under spec.policy.admission
// (admission_loader.hpp), so that a team's queues move between a what-if and the cluster
// unchanged:
//
//   apiVersion: gantry.dev/v1
//   kind: Admission
//   metadata: {name: research}
//   spec:
//     queues: [...]
//     fairSharing: {...}
//     waitForPodsReady: {...}
//
// GPU model names of per-model quotas are checked against the default GPU catalog
// (GpuCatalog::with_defaults()): the models of a live cluster are not known when the file is
// read.
//
// Throws InputErrors (every problem, file:line:col and field path each), or FileError for a file
// that cannot be read.

#include <string>

#include "engine/config/envelope.hpp"
#include "engine/policy/queues/admission_config.hpp"

namespace gantry {

struct AdmissionFile {
  std::string name;  // metadata.name
  std::string file;
  AdmissionConfig admission;
};

// Reads an Admission document's spec, recording problems in `errors`.
AdmissionFile read_admission_file(const Envelope& envelope, ConfigErrors& errors);

AdmissionFile load_admission_text(const std::string& text, const std::string& file_name);
AdmissionFile load_admission_file(const std::string& path);

}  // namespace gantry
