#include "adapters/kube/informer.hpp"

#include <fmt/format.h>

#include <map>

#include "adapters/kube/kube_log.hpp"

namespace gantry::kube {

InformerOptions bound_pods_on(EventLoop& loop) {
  InformerOptions io;
  io.path = "/api/v1/pods";
  io.field_selector = "spec.nodeName!=";
  io.dispatch = [&loop](std::function<void()> fn) { loop.post(std::move(fn)); };
  return io;
}

const char* to_string(InformerEventType type) {
  switch (type) {
    case InformerEventType::kAdded:
      return "added";
    case InformerEventType::kUpdated:
      return "updated";
    case InformerEventType::kDeleted:
      return "deleted";
  }
  return "?";
}

Informer::Informer(KubeClient& client, InformerOptions options)
    : client_(client),
      options_(std::move(options)),
      sleeper_(options_.sleeper),
      handlers_(std::make_shared<std::vector<InformerHandler>>()) {
  if (sleeper_ == nullptr) {
    own_sleeper_ = std::make_unique<InterruptibleSleeper>();
    sleeper_ = own_sleeper_.get();
  }
}

Informer::~Informer() { stop(); }

void Informer::add_handler(InformerHandler handler) { handlers_->push_back(std::move(handler)); }

void Informer::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  synced_cv_.notify_all();
  canceller_.cancel();
  sleeper_->interrupt();
  if (thread_.joinable()) thread_.join();
}

bool Informer::has_synced() const {
  std::lock_guard lock(mutex_);
  return synced_;
}

bool Informer::wait_for_watch_lines(int64_t n) {
  std::unique_lock lock(mutex_);
  synced_cv_.wait(lock, [&] { return stopping_ || stats_.watch_lines >= n; });
  return stats_.watch_lines >= n;
}

bool Informer::wait_for_sync() {
  std::unique_lock lock(mutex_);
  synced_cv_.wait(lock, [this] { return synced_ || stopping_; });
  return synced_;
}

std::string Informer::resource_version() const {
  std::lock_guard lock(mutex_);
  return resource_version_;
}

InformerStats Informer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string Informer::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

void Informer::set_error(std::string message) {
  std::lock_guard lock(mutex_);
  last_error_ = std::move(message);
}

nlohmann::json Informer::prepared(nlohmann::json object) const {
  if (options_.strip_managed_fields && object.is_object()) {
    const auto m = object.find("metadata");
    if (m != object.end() && m->is_object()) m->erase("managedFields");
  }
  return object;
}

std::string Informer::query(bool watch, const std::string& resource_version,
                            const std::string& continue_token) const {
  std::string q = options_.path + "?";
  if (watch) {
    q += "watch=true&allowWatchBookmarks=true&resourceVersion=" + query_escape(resource_version) +
         "&timeoutSeconds=" + std::to_string(options_.watch_timeout_seconds);
  } else {
    q += "limit=" + std::to_string(options_.page_size);
    if (!continue_token.empty()) q += "&continue=" + query_escape(continue_token);
  }
  if (!options_.label_selector.empty())
    q += "&labelSelector=" + query_escape(options_.label_selector);
  if (!options_.field_selector.empty())
    q += "&fieldSelector=" + query_escape(options_.field_selector);
  return q;
}

void Informer::apply(InformerEventType type, nlohmann::json object, nlohmann::json old_object) {
  auto handlers = handlers_;
  auto call = [handlers, event = InformerEvent{type, std::move(object), std::move(old_object)}] {
    for (const InformerHandler& h : *handlers) h(event);
  };
  if (options_.dispatch) {
    options_.dispatch(std::move(call));
  } else {
    call();
  }
}

bool Informer::list_all() {
  // A 410 on a continue token means the snapshot expired: start the list again. A few times
  // in a row is a server under churn; then back off like any other failure.
  for (int restart = 0; restart < 3; ++restart) {
    // Objects are encoded as they come (object_cache.hpp): a list of 100,000 pods is never
    // held as parsed documents, only one page at a time.
    std::map<std::string, ObjectCache::Bytes> fresh;
    std::string continue_token;
    std::string version;
    bool expired = false;
    while (true) {
      KubeResponse r;
      try {
        r = client_.request("GET", query(false, "", continue_token));
      } catch (const KubeTransportError& e) {
        set_error(std::string("list: ") + e.what());
        return false;
      }
      {
        std::lock_guard lock(mutex_);
        ++stats_.list_pages;
      }
      if (r.status == 410 && !continue_token.empty()) {
        expired = true;
        break;
      }
      if (r.status != 200) {
        set_error(std::string("list: ") + KubeError(parse_status(r.status, r.body)).what());
        return false;
      }
      nlohmann::json page = nlohmann::json::parse(r.body, nullptr, false);
      r.body.clear();
      r.body.shrink_to_fit();
      if (!page.is_object() || !page.contains("items") || !page["items"].is_array()) {
        set_error("list: the answer is not a list");
        return false;
      }
      for (auto& item : page["items"]) {
        if (!item.is_object()) continue;
        std::string key = cache_key_of(item);
        fresh[std::move(key)] = ObjectCache::encode(prepared(std::move(item)));
      }
      const nlohmann::json& meta = page.contains("metadata") ? page["metadata"] : nlohmann::json();
      continue_token = meta.is_object() && meta.contains("continue") && meta["continue"].is_string()
                           ? meta["continue"].get<std::string>()
                           : "";
      // Every page of one list carries the snapshot's resourceVersion; the first one counts.
      if (version.empty() && meta.is_object() && meta.contains("resourceVersion") &&
          meta["resourceVersion"].is_string())
        version = meta["resourceVersion"].get<std::string>();
      if (continue_token.empty()) break;
    }
    if (expired) continue;

    // What changed against the cache: adds and updates in key order, then deletes in key
    // order. Only the previous state of what changed is kept for the handlers.
    struct Change {
      InformerEventType type;
      std::string key;
      std::optional<ObjectCache::Bytes> old;
    };
    std::vector<Change> changes;
    for (const auto& [key, bytes] : fresh) {
      std::optional<ObjectCache::Bytes> previous = cache_.get_encoded(key);
      if (!previous) {
        changes.push_back({InformerEventType::kAdded, key, std::nullopt});
      } else if (*previous != bytes && resource_version_of(ObjectCache::decode(*previous)) !=
                                           resource_version_of(ObjectCache::decode(bytes))) {
        changes.push_back({InformerEventType::kUpdated, key, std::move(previous)});
      }
    }
    std::map<std::string, ObjectCache::Bytes> old = cache_.replace_encoded(std::move(fresh));
    {
      std::lock_guard lock(mutex_);
      resource_version_ = version;
      ++stats_.lists;
    }
    // Handlers run after the cache holds the list (the order the header promises).
    for (Change& c : changes) {
      nlohmann::json object = *cache_.get(c.key);
      if (c.type == InformerEventType::kAdded) {
        apply(InformerEventType::kAdded, std::move(object), nullptr);
      } else {
        apply(InformerEventType::kUpdated, std::move(object), ObjectCache::decode(*c.old));
      }
    }
    for (auto& [key, bytes] : old) {
      if (!cache_.get_encoded(key))
        apply(InformerEventType::kDeleted, ObjectCache::decode(bytes), nullptr);
    }
    return true;
  }
  set_error("list: the continue token expired three times in a row");
  return false;
}

WatchEnd Informer::watch_once(bool& relist, bool& delivered) {
  {
    std::lock_guard lock(mutex_);
    ++stats_.watches;
  }
  const std::string path = query(true, resource_version(), "");
  const WatchResult result = client_.watch(
      path,
      [&](WatchEvent& event) {
        // Counted once the line is fully handled (dispatched), whatever the return below.
        struct CountLine {
          Informer& self;
          ~CountLine() {
            {
              std::lock_guard lock(self.mutex_);
              ++self.stats_.watch_lines;
            }
            self.synced_cv_.notify_all();
          }
        } count{*this};
        switch (event.type) {
          case WatchEventType::kBookmark: {
            std::lock_guard lock(mutex_);
            ++stats_.bookmarks;
            if (!event.resource_version.empty()) resource_version_ = event.resource_version;
            return true;
          }
          case WatchEventType::kError:
            if (event.status && event.status->code == 410) relist = true;
            set_error("watch: ERROR event: " + std::to_string(event.status->code) + " " +
                      event.status->reason + ": " + event.status->message);
            return false;
          case WatchEventType::kAdded:
          case WatchEventType::kModified:
          case WatchEventType::kDeleted:
            break;
        }
        delivered = true;
        nlohmann::json object = prepared(std::move(event.object));
        const std::string key = cache_key_of(object);
        {
          std::lock_guard lock(mutex_);
          if (!event.resource_version.empty()) resource_version_ = event.resource_version;
        }
        if (event.type == WatchEventType::kDeleted) {
          cache_.erase(key);
          apply(InformerEventType::kDeleted, std::move(object), nullptr);
        } else {
          std::optional<nlohmann::json> previous = cache_.set(key, object);
          if (previous)
            apply(InformerEventType::kUpdated, std::move(object), std::move(*previous));
          else
            apply(InformerEventType::kAdded, std::move(object), nullptr);
        }
        return true;
      },
      &canceller_);
  if (result.end == WatchEnd::kHttpError) {
    if (result.status.code == 410) relist = true;
    set_error("watch: " + std::to_string(result.status.code) + " " + result.status.reason + ": " +
              result.status.message);
  } else if (result.end == WatchEnd::kTransportError || result.end == WatchEnd::kBadEvent) {
    set_error("watch: " + result.detail);
  }
  return result.end;
}

void Informer::run() {
  Backoff backoff(options_.backoff, RandomStreams(options_.seed).stream("kube.informer"));
  const auto stopping = [this] {
    std::lock_guard lock(mutex_);
    return stopping_;
  };
  // Waits the next backoff; `why` is logged with the wait (a warning: something failed).
  const auto back_off = [&](const std::string& why) {
    const Duration wait = backoff.next();
    {
      std::lock_guard lock(mutex_);
      ++stats_.backoffs;
    }
    kube_log().warn("informer {}: {}; trying again in {:.1f} s", options_.path, why,
                    wait.seconds());
    return sleeper_->sleep_for(wait);
  };
  bool need_list = true;
  int gone_in_a_row = 0;  // 410s with no event delivered since the list before them
  while (!stopping()) {
    if (need_list) {
      if (!list_all()) {
        if (!back_off(last_error())) break;
        continue;
      }
      need_list = false;
      {
        std::lock_guard lock(mutex_);
        synced_ = true;
      }
      synced_cv_.notify_all();
    }
    bool relist = false;
    bool delivered = false;
    const WatchEnd end = watch_once(relist, delivered);
    if (delivered) {
      backoff.reset();
      gone_in_a_row = 0;
    }
    if (end == WatchEnd::kCancelled || stopping()) break;
    if (relist) {
      {
        std::lock_guard lock(mutex_);
        ++stats_.relists_410;
      }
      need_list = true;
      // The first 410 relists at once, as client-go does: the watch fell behind the server's
      // history. Another with no event in between means the fresh list's version is refused
      // too (a server or proxy that answers 410 to everything): back off, or the informer
      // would list in a tight loop.
      if (++gone_in_a_row == 1) {
        kube_log().info("informer {}: {}; listing again", options_.path, last_error());
        continue;
      }
      if (!back_off(fmt::format("410 Gone {} times in a row right after a fresh list ({})",
                                gone_in_a_row, last_error())))
        break;
      continue;
    }
    if (end == WatchEnd::kClosed && delivered) continue;
    if (!back_off(end == WatchEnd::kClosed ? "the watch closed before any event" : last_error()))
      break;
  }
}

}  // namespace gantry::kube
