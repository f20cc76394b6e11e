#pragma once
// Serving the web app's built files (web/ui/dist) safely: only files under the root folder,
// whatever the path says. Refused (404, never an error that tells what exists): ".." or "."
// segments (civetweb has percent-decoded "%2e%2e" to ".." already), backslashes, NUL,
// absolute-looking paths ("//etc/passwd"), hidden files, and any file whose real path — after
// symlinks — is outside the root. A path without a file extension that names no file is the
// app's own route ("/runs/nightly") and gets index.html, as a single-page app needs.

#include <filesystem>
#include <optional>
#include <string>

#include "web/server/http_message.hpp"

namespace gantry::web {

class StaticFiles {
 public:
  // `root` may not exist (the UI was not built): every request then gets a 404 page saying so.
  explicit StaticFiles(std::filesystem::path root);

  // The file for a GET of `path`, or nullopt (404).
  std::optional<std::filesystem::path> resolve(const std::string& path) const;
  // A 200 with the file and its content type, or a 404.
  HttpResponse serve(const std::string& path) const;

 private:
  std::filesystem::path root_;  // canonical, or empty when missing
};

// "text/html; charset=utf-8" for ".html", ... ; "application/octet-stream" when unknown.
std::string content_type_for(const std::filesystem::path& file);

}  // namespace gantry::web
