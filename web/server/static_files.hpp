#pragma once
// Serving the web app's built files (web/ui/dist) safely: only files under the root folder,
// whatever the path says. Refused (404, never an error that tells what exists): ".." or "."
// segments (civetweb has percent-decoded "%2e%2e" to ".." already), backslashes, NUL,
// absolute-looking paths ("//etc/passwd"), hidden files, and any file whose real path — after
// symlinks — is outside the root. A path without a file extension that names no file is the
// app's own route ("/runs/nightly") and gets index.html, as a single-page app needs.
//
// Text files (HTML, JavaScript, CSS, JSON, SVG) go out compressed to a client whose
// Accept-Encoding allows it — brotli when built with libbrotli (brotli_available()) and asked
// for, else gzip — with `Vary: Accept-Encoding` either way (a cache must not hand the compressed
// bytes to a client that did not ask for them). Each compressed copy is made once per file
// version (size and modification time) and kept in memory: the built app is a few files.
// index.html carries a Content-Security-Policy (kContentSecurityPolicy).

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "web/server/http_message.hpp"

namespace gantry::web {

class StaticFiles {
 public:
  // `root` may not exist (the UI was not built): every request then gets a 404 page saying so.
  explicit StaticFiles(std::filesystem::path root);

  // The file for a GET of `path`, or nullopt (404).
  std::optional<std::filesystem::path> resolve(const std::string& path) const;
  // A 200 with the file and its content type, or a 404. `accept_encoding` is the request's
  // Accept-Encoding header (empty when absent): gzip is used when it allows it.
  HttpResponse serve(const std::string& path, std::string_view accept_encoding = {}) const;

 private:
  struct Compressed {
    uintmax_t size = 0;
    std::filesystem::file_time_type mtime;
    std::string bytes;
  };
  // `body` (the content of `file`) in `coding` ("gzip" or "br"), made once per version of the
  // file.
  std::string compressed(const std::filesystem::path& file, const std::string& body,
                         const std::string& coding) const;

  std::filesystem::path root_;  // canonical, or empty when missing
  mutable std::mutex mutex_;    // guards compressed_ (requests are served on several threads)
  mutable std::map<std::string, Compressed> compressed_;
};

// The policy sent with index.html: everything from this origin only (scripts, styles, fetch and
// the event stream, fonts); images also as data: URLs (the studies' charts); inline style
// attributes allowed, as React's `style` props, React Flow and ECharts set them; no plugins, no
// framing, no <base> elsewhere.
inline constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

// True when an Accept-Encoding header value allows `coding` ("gzip", "br"): the coding or "*"
// listed without q=0 ("gzip, deflate, br"; "gzip;q=0.5"; not "gzip;q=0", not "identity"; an
// explicit "gzip;q=0" wins over "*"). Case-insensitive.
bool accepts_encoding(std::string_view accept_encoding, std::string_view coding);
inline bool accepts_gzip(std::string_view accept_encoding) {
  return accepts_encoding(accept_encoding, "gzip");
}

// `data` as a gzip stream (RFC 1952) at zlib's default level. Throws std::runtime_error if zlib
// fails (out of memory).
std::string gzip_compress(std::string_view data);

// True when this build has brotli (Debian's libbrotli-dev was found by CMake).
bool brotli_available();
// `data` as a brotli stream (RFC 7932) at quality 9 (most of the gain of 11 at a fraction of the
// time, for a file compressed once). Throws std::runtime_error if brotli fails or is not built in.
std::string brotli_compress(std::string_view data);
// The inverse, for tests; throws std::runtime_error on a malformed stream or without brotli.
std::string brotli_decompress(std::string_view data);

// True for the content types worth compressing (text, JavaScript, JSON, SVG).
bool is_compressible(const std::string& content_type);

// "text/html; charset=utf-8" for ".html", ... ; "application/octet-stream" when unknown.
std::string content_type_for(const std::filesystem::path& file);

}  // namespace gantry::web
