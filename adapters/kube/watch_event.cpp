#include "adapters/kube/watch_event.hpp"

namespace gantry::kube {

namespace {

std::string metadata_string(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return {};
  const auto v = m->find(key);
  return v != m->end() && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace

std::optional<WatchEventType> watch_event_type_from(std::string_view name) {
  if (name == "ADDED") return WatchEventType::kAdded;
  if (name == "MODIFIED") return WatchEventType::kModified;
  if (name == "DELETED") return WatchEventType::kDeleted;
  if (name == "BOOKMARK") return WatchEventType::kBookmark;
  if (name == "ERROR") return WatchEventType::kError;
  return std::nullopt;
}

const char* to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "?";
}

std::string resource_version_of(const nlohmann::json& object) {
  return metadata_string(object, "resourceVersion");
}
std::string name_of(const nlohmann::json& object) { return metadata_string(object, "name"); }
std::string namespace_of(const nlohmann::json& object) {
  return metadata_string(object, "namespace");
}

std::optional<WatchEvent> parse_watch_event(std::string_view line, std::string* error) {
  const auto fail = [&](const char* why) -> std::optional<WatchEvent> {
    if (error != nullptr) *error = why;
    return std::nullopt;
  };
  nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return fail("watch event is not a JSON object");
  const auto type_it = parsed.find("type");
  if (type_it == parsed.end() || !type_it->is_string())
    return fail("watch event has no string \"type\"");
  const auto type = watch_event_type_from(type_it->get_ref<const std::string&>());
  if (!type) return fail("watch event type is not ADDED, MODIFIED, DELETED, BOOKMARK or ERROR");
  const auto object_it = parsed.find("object");
  if (object_it == parsed.end() || !object_it->is_object())
    return fail("watch event has no \"object\" object");
  WatchEvent event;
  event.type = *type;
  event.object = std::move(*object_it);
  event.resource_version = resource_version_of(event.object);
  // An ERROR without a code is still an error; 500 is what client-go assumes then.
  if (event.type == WatchEventType::kError) event.status = status_from_json(event.object, 500);
  return event;
}

}  // namespace gantry::kube
