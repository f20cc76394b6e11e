#include "sim/admission_file.hpp"

#include "engine/cluster/topology.hpp"
#include "sim/admission_loader.hpp"

namespace gantry {

AdmissionFile read_admission_file(const Envelope& envelope, ConfigErrors& errors) {
  AdmissionFile out;
  out.name = envelope.name;
  out.file = envelope.file;
  if (!envelope.spec) return out;
  Topology catalog;
  catalog.gpus = GpuCatalog::with_defaults();
  DeclaredQueues declared;
  const AdmissionContext ctx{catalog, true,
                             "a live cluster's models are not known before it is watched: "
                             "per-model quotas name models of the default catalog"};
  out.admission = read_admission(*envelope.spec, ctx, errors, declared);
  return out;
}

AdmissionFile load_admission_text(const std::string& text, const std::string& file_name) {
  return load_document<AdmissionFile>(text, file_name, {"Admission"}, read_admission_file);
}

AdmissionFile load_admission_file(const std::string& path) {
  return load_admission_text(read_text_file(path), path);
}

}  // namespace gantry
