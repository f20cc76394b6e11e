#include "engine/config/config_errors.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gantry {

namespace {

std::string join_errors(const std::vector<InputError>& errors) {
  std::string out;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += '\n';
    out += errors[i].what();
  }
  return out;
}

}  // namespace

InputErrors::InputErrors(std::vector<InputError> errors)
    : InputError(errors.at(0)), errors_(std::move(errors)), all_(join_errors(errors_)) {}

ConfigErrors::ConfigErrors(size_t limit) : limit_(std::max<size_t>(1, limit)) {}

void ConfigErrors::add(InputError error) {
  if (full()) {
    ++passed_over_;
    return;
  }
  list_.push_back(std::move(error));
}

void ConfigErrors::add(const ConfigNode& at, std::string message) {
  add(InputError(at.location(), at.path(), std::move(message)));
}

std::vector<InputError> ConfigErrors::take(const std::vector<std::string>& file_order) {
  std::map<std::string, size_t, std::less<>> rank;
  for (const std::string& file : file_order) rank.emplace(file, rank.size());
  for (const InputError& e : list_) rank.emplace(e.where().file, rank.size());
  std::vector<InputError> out = std::move(list_);
  list_.clear();
  std::stable_sort(out.begin(), out.end(), [&](const InputError& a, const InputError& b) {
    const auto key = [&](const InputError& e) {
      return std::tuple(rank.find(e.where().file)->second, e.where().line, e.where().column);
    };
    return key(a) < key(b);
  });
  if (passed_over_ > 0 && !out.empty()) {
    // Named after the last file reached: the rest of it, and any later file, was not checked.
    out.emplace_back(
        SourceLocation{out.back().where().file, 0, 0}, "",
        "stopped after " + std::to_string(out.size()) + " errors; the rest was not checked");
  }
  passed_over_ = 0;
  return out;
}

void ConfigErrors::throw_if_any(const std::vector<std::string>& file_order) {
  if (empty()) return;
  throw InputErrors(take(file_order));
}

}  // namespace gantry
