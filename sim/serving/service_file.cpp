#include "sim/serving/service_file.hpp"

#include "sim/serving/service_loader.hpp"

namespace gantry {

ServiceSpec read_service_file(const Envelope& envelope, ConfigErrors& errors) {
  if (!envelope.spec) {
    ServiceSpec s;
    s.name = envelope.name;
    return s;
  }
  return read_service_spec(*envelope.spec, envelope.name, ServiceContext{}, errors);
}

ServiceSpec load_service_text(const std::string& text, const std::string& file_name) {
  return load_document<ServiceSpec>(text, file_name, {"InferenceService"}, read_service_file);
}

ServiceSpec load_service_file(const std::string& path) {
  return load_service_text(read_text_file(path), path);
}

}  // namespace gantry
