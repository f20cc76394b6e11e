#pragma once
// ServeEngine::guarded() (serve_engine.hpp, STORAGE FAILURES): a request that changes
// something is one transaction, all or nothing. A template, shared by the files the engine's
// requests are split over (serve_engine.cpp, serve_task_actions.cpp).

#include "engine/store/store_error.hpp"
#include "web/server/api_server.hpp"
#include "web/server/publishing_run_store.hpp"
#include "web/server/serve_engine.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry::web {

template <typename F>
nlohmann::json ServeEngine::guarded(F&& change) {
  if (!storage_problem_.empty()) throw storage_answer();
  try {
    sqlite_->begin_group();
  } catch (const StoreError& e) {
    storage_failed(e);
    throw storage_answer();
  }
  store_->hold();
  nlohmann::json out;
  try {
    out = change();
  } catch (const StoreError& e) {
    storage_failed(e);
    throw storage_answer();
  } catch (...) {
    // A refusal decided without a failed write (404, 409, ...): what it wrote (an event
    // `rejected`) is kept.
    commit_request();
    throw;
  }
  commit_request();
  return out;
}

}  // namespace gantry::web
