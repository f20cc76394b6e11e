#include "engine/core/errors.hpp"

namespace gantry {

std::string SourceLocation::to_string() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

namespace {
std::string compose(const SourceLocation& where, const std::string& field,
                    const std::string& message) {
  std::string out = where.to_string() + ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}
}  // namespace

InputError::InputError(SourceLocation where, std::string field, std::string message)
    : GantryError(compose(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      detail_(std::move(message)) {}

}  // namespace gantry
