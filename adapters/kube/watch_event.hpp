#pragma once
// The events of a Kubernetes watch stream and their framing.
//
// A watch (GET ...?watch=true) answers 200 with a chunked body of JSON objects, one per line:
//   {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}
// Chunk boundaries fall anywhere, so LineSplitter reassembles lines across chunks. A BOOKMARK's
// object carries only metadata.resourceVersion (and the kind); an ERROR's object is a Status
// (410 Expired when the watch's resourceVersion is too old).
//
// Thread-safety: plain values; a LineSplitter belongs to one stream.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/kube/kube_error.hpp"

namespace gantry::kube {

enum class WatchEventType {
  kAdded,     // a new object, or one that newly matches the selector
  kModified,  // an object changed
  kDeleted,   // an object is gone, or no longer matches the selector (object = last state)
  kBookmark,  // no change; only the resourceVersion moved on
  kError,     // the stream failed; `status` says why (410 Expired: relist)
};

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  nlohmann::json object;             // the object as sent (a Status for kError)
  std::string resource_version;      // object.metadata.resourceVersion; may be empty for kError
  std::optional<KubeStatus> status;  // set for kError only
};

// "ADDED" → kAdded, ...; nullopt for anything else.
std::optional<WatchEventType> watch_event_type_from(std::string_view name);
const char* to_string(WatchEventType type);

// Parses one line of a watch stream. Returns nullopt, with `error` saying why, for a line that
// is not JSON, has no known `type`, or whose object is not a JSON object. Never throws.
std::optional<WatchEvent> parse_watch_event(std::string_view line, std::string* error = nullptr);

// metadata.resourceVersion, metadata.name, metadata.namespace of an object ("" when absent).
std::string resource_version_of(const nlohmann::json& object);
std::string name_of(const nlohmann::json& object);
std::string namespace_of(const nlohmann::json& object);

// Splits a byte stream into '\n'-terminated lines (a trailing '\r' is dropped; empty lines are
// skipped). A line longer than `max_line_bytes` is an error: feed() returns false and the
// stream should be abandoned (a watch event is one object; 16 MiB is far above any real one).
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line_bytes = 16u << 20) : max_(max_line_bytes) {}

  // Appends `bytes` and calls `on_line(std::string_view)` for every complete line, in order.
  // on_line returns false to stop early (the rest is kept). Returns false when a line is too
  // long or on_line asked to stop.
  template <typename F>
  bool feed(std::string_view bytes, F&& on_line) {
    buffer_.append(bytes);
    size_t start = 0;
    while (true) {
      const size_t nl = buffer_.find('\n', start);
      if (nl == std::string::npos) break;
      std::string_view line(buffer_.data() + start, nl - start);
      start = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      if (!on_line(line)) {
        buffer_.erase(0, start);
        return false;
      }
    }
    buffer_.erase(0, start);
    return buffer_.size() <= max_;
  }

  // Bytes received after the last newline (a stream that ended mid-line).
  const std::string& pending() const { return buffer_; }

 private:
  size_t max_;
  std::string buffer_;
};

}  // namespace gantry::kube
