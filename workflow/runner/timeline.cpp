#include "workflow/runner/timeline.hpp"

#include <optional>
#include <sstream>

namespace gantry {
namespace {

nlohmann::ordered_json time_or_null(const std::optional<Time>& t) {
  if (!t) return nullptr;
  return format_rfc3339(*t);
}

// "HH:MM:SSZ" when `t` falls on the same UTC date as `day`, the full form otherwise.
std::string short_time(const std::optional<Time>& t, Time day) {
  if (!t) return "?";
  std::string full = format_rfc3339(*t);
  std::string d = format_rfc3339(day);
  if (full.compare(0, 11, d, 0, 11) == 0) return full.substr(11);
  return full;
}

}  // namespace

nlohmann::ordered_json run_json(const Run& run) {
  nlohmann::ordered_json r;
  r["pipeline"] = run.pipeline;
  r["logicalTime"] = format_rfc3339(run.logical_time);
  r["trigger"] = std::string(to_string(run.trigger));
  r["state"] = std::string(to_string(run.state));
  r["start"] = time_or_null(run.start);
  r["end"] = time_or_null(run.end);
  // Only for a run with params: the timelines of pipelines without any stay as they were.
  if (!run.params.empty()) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [name, literal] : run.params)
      params[name] = nlohmann::ordered_json::parse(literal, nullptr, false);
    r["params"] = std::move(params);
  }
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const TaskInstance& t : run.tasks) {
    nlohmann::ordered_json task;
    task["name"] = t.name;
    task["state"] = std::string(to_string(t.state));
    nlohmann::ordered_json attempts = nlohmann::ordered_json::array();
    for (const Attempt& a : t.attempts) {
      nlohmann::ordered_json attempt;
      attempt["start"] = format_rfc3339(a.start);
      // Only when the executor queued the attempt first: the usual case stays as it was.
      if (a.running && *a.running != a.start) attempt["running"] = format_rfc3339(*a.running);
      attempt["end"] = time_or_null(a.end);
      attempt["state"] = std::string(to_string(a.state));
      if (!a.reason.empty()) attempt["reason"] = a.reason;
      attempts.push_back(std::move(attempt));
    }
    task["attempts"] = std::move(attempts);
    tasks.push_back(std::move(task));
  }
  r["tasks"] = std::move(tasks);
  return r;
}

nlohmann::ordered_json timeline_json(const std::vector<Run>& runs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Run& run : runs) list.push_back(run_json(run));
  nlohmann::ordered_json out;
  out["runs"] = std::move(list);
  return out;
}

TimelineWriter::TimelineWriter(std::ostream& out, Format format, int indent)
    : out_(out), format_(format), indent_(indent) {}

void TimelineWriter::add(const Run& run) {
  if (format_ == Format::kText) {
    out_ << write_timeline_text({run});
    return;
  }
  const bool pretty = indent_ >= 0;
  const std::string pad = pretty ? std::string(static_cast<size_t>(indent_), ' ') : "";
  if (runs_ == 0)
    out_ << (pretty ? "{\n" + pad + "\"runs\": [\n" : "{\"runs\":[");
  else
    out_ << (pretty ? ",\n" : ",");
  ++runs_;
  const std::string one = run_json(run).dump(indent_);
  if (!pretty) {
    out_ << one;
    return;
  }
  // Indent the run's lines two levels deeper, as the whole document's dump would.
  const std::string deeper = pad + pad;
  out_ << deeper;
  size_t from = 0;
  for (size_t nl = one.find('\n'); nl != std::string::npos; nl = one.find('\n', from)) {
    out_.write(one.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    out_ << deeper;
    from = nl + 1;
  }
  out_.write(one.data() + from, static_cast<std::streamsize>(one.size() - from));
}

void TimelineWriter::finish() {
  if (format_ == Format::kText) return;
  if (runs_ == 0) {
    out_ << timeline_json({}).dump(indent_) << "\n";
    return;
  }
  const bool pretty = indent_ >= 0;
  const std::string pad = pretty ? std::string(static_cast<size_t>(indent_), ' ') : "";
  out_ << (pretty ? "\n" + pad + "]\n}\n" : "]}\n");
}

std::string write_timeline_json(const std::vector<Run>& runs, int indent) {
  std::ostringstream out;
  TimelineWriter writer(out, TimelineWriter::Format::kJson, indent);
  for (const Run& run : runs) writer.add(run);
  writer.finish();
  return out.str();
}

std::string write_timeline_text(const std::vector<Run>& runs) {
  std::string out;
  for (const Run& run : runs) {
    out += run.pipeline + " " + format_rfc3339(run.logical_time) + " " +
           std::string(to_string(run.trigger)) + " " + std::string(to_string(run.state));
    if (run.start) {
      out += " " + format_rfc3339(*run.start) + ".." +
             (run.end ? format_rfc3339(*run.end) : std::string("?"));
    }
    out += "\n";
    for (const TaskInstance& t : run.tasks) {
      if (t.state == TaskState::kSucceeded && t.attempts.size() == 1) continue;
      out += "  " + t.name + " " + std::string(to_string(t.state));
      const char* sep = ": ";
      for (const Attempt& a : t.attempts) {
        out += sep + short_time(a.start, run.logical_time) + "-" +
               short_time(a.end, run.logical_time) + " " + std::string(to_string(a.state));
        if (!a.reason.empty()) out += " (" + a.reason + ")";
        sep = ", ";
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace gantry
