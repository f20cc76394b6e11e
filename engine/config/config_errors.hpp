#pragma once
// Collecting every problem of a file instead of stopping at the first (DESIGN.md, "What users
// write"): a user who fixes one field should not have to run Gantry again to hear about the
// next. Every loader (scenarios, experiments, pipelines, operator events) reads field by field
// and reports into one ConfigErrors; at the end it throws one InputErrors listing them all.
//
//   ConfigErrors errors;
//   const ConfigFields f(node, {"cpu", "memory"}, errors);         // config_fields.hpp
//   f.read("cpu", [&](const ConfigNode& n) { cpu = read_cpu(n); }); // an error is recorded
//   errors.throw_if_any();
//
// Each error keeps the one format of InputError, "file:line:col: field.path: message". The
// list is sorted in file order (files in the order the caller gives, then line and column;
// errors at one position keep the order they were found in).
//
// Bounded: at most `limit` errors are recorded (kMaxReportedErrors by default). Once the limit
// is reached attempt() stops running readers, so a file of a million bad lines costs no more
// than one of a hundred, and the list ends with a note that checking stopped there.
//
// Not thread-safe; one collector per load.

#include <cstddef>
#include <string>
#include <vector>

#include "engine/config/reader.hpp"
#include "engine/core/errors.hpp"

namespace gantry {

// Far more than anyone reads; past this a file is usually not a Gantry file at all.
inline constexpr size_t kMaxReportedErrors = 100;

// Every error found in one or more files. An InputError, so callers that want only the first
// can catch that: where(), field() and detail() are the first error's; what() is every error's
// "file:line:col: field: message", one per line.
class InputErrors : public InputError {
 public:
  // `errors` must not be empty.
  explicit InputErrors(std::vector<InputError> errors);

  const std::vector<InputError>& errors() const { return errors_; }
  const char* what() const noexcept override { return all_.c_str(); }

 private:
  std::vector<InputError> errors_;
  std::string all_;
};

class ConfigErrors {
 public:
  explicit ConfigErrors(size_t limit = kMaxReportedErrors);

  // Records an error. Past the limit it is dropped, and the list says that checking stopped.
  void add(InputError error);
  // Records `message` at `at` (its location and path).
  void add(const ConfigNode& at, std::string message);

  // Runs `read`; an InputError it throws is recorded. Returns whether it finished. Once the
  // limit is reached `read` is not run at all and the answer is false.
  template <typename F>
  bool attempt(F&& read) {
    if (full()) {
      ++passed_over_;
      return false;
    }
    try {
      read();
      return true;
    } catch (const InputError& e) {
      add(e);
      return false;
    }
  }

  // Problems met so far: the errors kept, those dropped at the limit, and the readers not run
  // there. Readers compare counts before and after a block to tell whether its values can be
  // trusted by later checks (no cascade of errors from one mistake); counting what the limit
  // passes over keeps that answer right once it is reached.
  size_t size() const { return list_.size() + passed_over_; }
  bool empty() const { return size() == 0; }
  bool full() const { return list_.size() >= limit_; }

  // The errors in file order: files in `file_order` first, in that order, then the others in
  // the order their first error was found; within a file by line, then column. A last entry
  // says so when checking stopped at the limit. Leaves the collector empty.
  std::vector<InputError> take(const std::vector<std::string>& file_order = {});

  // Throws InputErrors with take() when any error was recorded.
  void throw_if_any(const std::vector<std::string>& file_order = {});

 private:
  size_t limit_;
  std::vector<InputError> list_;
  size_t passed_over_ = 0;  // errors dropped, and readers not run, at the limit
};

}  // namespace gantry
