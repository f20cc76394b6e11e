#pragma once
// GET /api/v1/pipelines?q=&tag=&owner=&state= (issue #26 §6): which pipelines a search keeps.
// Filters combine (all must hold); an absent one keeps everything.

#include <optional>
#include <string>

#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::web {

struct PipelineFilter {
  std::string q;      // a substring of the name or the description, case-insensitive
  std::string tag;    // one of metadata.tags, exactly
  std::string owner;  // metadata.owner, exactly
  // "paused" (its schedule is paused), "active" (not paused) or "failing" (its latest run
  // failed); "" for any.
  std::string state;
};

// The words of PipelineFilter::state; nullopt for "" and these, else the message of a 400.
std::optional<std::string> pipeline_state_error(const std::string& state);

// Whether `spec` (paused or not, its latest run's state if it has runs) passes `filter`.
bool pipeline_matches(const PipelineFilter& filter, const PipelineSpec& spec, bool paused,
                      const std::optional<std::string>& last_run_state);

}  // namespace gantry::web
