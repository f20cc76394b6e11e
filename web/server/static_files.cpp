#include "web/server/static_files.hpp"

#include <fstream>
#include <sstream>

#include "web/server/router.hpp"

namespace gantry::web {

namespace fs = std::filesystem;

StaticFiles::StaticFiles(fs::path root) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (!ec && fs::is_directory(canonical, ec)) root_ = std::move(canonical);
}

std::optional<fs::path> StaticFiles::resolve(const std::string& path) const {
  if (root_.empty() || path.empty() || path[0] != '/') return std::nullopt;
  if (path.find('\\') != std::string::npos || path.find('\0') != std::string::npos)
    return std::nullopt;
  fs::path relative;
  const std::vector<std::string> segments = split_path(path);
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& s = segments[i];
    if (s.empty()) {
      if (i + 1 == segments.size()) break;  // a trailing slash
      return std::nullopt;                  // "//": an absolute path in disguise
    }
    if (s == "." || s == ".." || s[0] == '.') return std::nullopt;
    relative /= s;
  }
  if (relative.empty()) relative = "index.html";
  std::error_code ec;
  fs::path candidate = fs::weakly_canonical(root_ / relative, ec);
  if (ec) return std::nullopt;
  const auto inside = [&](const fs::path& p) {
    const auto [r, c] = std::mismatch(root_.begin(), root_.end(), p.begin(), p.end());
    return r == root_.end();
  };
  if (fs::is_regular_file(candidate, ec) && inside(fs::canonical(candidate, ec)) && !ec)
    return candidate;
  // The app's own routes: no extension, no such file.
  if (!relative.has_extension()) {
    fs::path index = root_ / "index.html";
    if (fs::is_regular_file(index, ec)) return index;
  }
  return std::nullopt;
}

HttpResponse StaticFiles::serve(const std::string& path) const {
  if (root_.empty())
    return HttpResponse::text(
        404,
        "<!doctype html><title>Gantry</title><p>The web app is not built: run "
        "<code>npm ci &amp;&amp; npm run build</code> in web/ui.</p>\n",
        "text/html; charset=utf-8");
  const std::optional<fs::path> file = resolve(path);
  if (!file) return HttpResponse::text(404, "not found\n");
  std::ifstream in(*file, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  HttpResponse r = HttpResponse::text(200, body.str(), content_type_for(*file));
  // Vite puts a content hash in every asset's name; index.html must always be fresh.
  r.headers.emplace_back("Cache-Control", file->filename() == "index.html"
                                              ? "no-cache"
                                              : "public, max-age=31536000, immutable");
  return r;
}

std::string content_type_for(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".map") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".woff2") return "font/woff2";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace gantry::web
