#pragma once
// How SqliteRunStore's two writers (a change at a time: sqlite_run_store.cpp; whole rows:
// sqlite_run_rows.cpp) turn a run's values into column values, so both write the same bytes.
// Internal to workflow/store.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/core/time.hpp"

namespace gantry::run_columns {

// Run::params as stored: a JSON object of the literals, NULL (nullopt) when there are none.
inline std::optional<std::string> params_text(const std::map<std::string, std::string>& params) {
  if (params.empty()) return std::nullopt;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, literal] : params) j[name] = nlohmann::json::parse(literal);
  return j.dump();
}

inline std::optional<int64_t> micros(std::optional<Time> t) {
  return t ? std::optional<int64_t>(t->micros()) : std::nullopt;
}

// An attempt's reason as stored: NULL when the executor gave none.
inline std::optional<std::string_view> reason_or_null(std::string_view reason) {
  return reason.empty() ? std::nullopt : std::optional<std::string_view>(reason);
}

}  // namespace gantry::run_columns
