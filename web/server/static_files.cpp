#include "web/server/static_files.hpp"

#include <zlib.h>

#ifdef GANTRY_HAVE_BROTLI
#include <brotli/decode.h>
#include <brotli/encode.h>
#endif

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

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

HttpResponse StaticFiles::serve(const std::string& path, std::string_view accept_encoding) const {
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
  const bool is_index = file->filename() == "index.html";
  // Vite puts a content hash in every asset's name; index.html must always be fresh.
  r.headers.emplace_back("Cache-Control",
                         is_index ? "no-cache" : "public, max-age=31536000, immutable");
  if (is_index) r.headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
  if (is_compressible(r.content_type)) {
    r.headers.emplace_back("Vary", "Accept-Encoding");
    const char* coding = brotli_available() && accepts_encoding(accept_encoding, "br") ? "br"
                         : accepts_encoding(accept_encoding, "gzip")                   ? "gzip"
                                                                                       : nullptr;
    if (coding) {
      r.body = compressed(*file, r.body, coding);
      r.headers.emplace_back("Content-Encoding", coding);
    }
  }
  return r;
}

std::string StaticFiles::compressed(const fs::path& file, const std::string& body,
                                    const std::string& coding) const {
  std::error_code ec;
  const fs::file_time_type mtime = fs::last_write_time(file, ec);
  const std::string key = coding + ":" + file.string();
  {
    std::lock_guard lock(mutex_);
    const auto it = compressed_.find(key);
    if (!ec && it != compressed_.end() && it->second.size == body.size() &&
        it->second.mtime == mtime)
      return it->second.bytes;
  }
  std::string bytes = coding == "br" ? brotli_compress(body) : gzip_compress(body);
  if (!ec) {
    std::lock_guard lock(mutex_);
    compressed_[key] = Compressed{body.size(), mtime, bytes};
  }
  return bytes;
}

bool accepts_encoding(std::string_view header, std::string_view wanted) {
  std::string lower(header);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  std::string_view rest = lower;
  bool star = false;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string_view coding = trim(item.substr(0, semi));
    bool refused = false;
    if (semi != std::string_view::npos) {
      std::string_view param = trim(item.substr(semi + 1));
      if (param.substr(0, 2) == "q=") {
        // q=0, q=0.0, q=0.000: refused; any other weight accepts.
        std::string_view q = param.substr(2);
        refused = !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (coding == wanted) return !refused;
    if (coding == "*") star = !refused;
  }
  return star;
}

std::string gzip_compress(std::string_view data) {
  z_stream z{};
  // 15 window bits + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip: zlib could not start (out of memory)");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip: zlib could not compress");
  out.resize(written);
  return out;
}

#ifdef GANTRY_HAVE_BROTLI
bool brotli_available() { return true; }

std::string brotli_compress(std::string_view data) {
  size_t size = BrotliEncoderMaxCompressedSize(data.size());
  if (size == 0) size = data.size() + 1024;  // 0: too large to bound; let the encoder say
  std::string out(size, '\0');
  if (!BrotliEncoderCompress(9, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, data.size(),
                             reinterpret_cast<const uint8_t*>(data.data()), &size,
                             reinterpret_cast<uint8_t*>(out.data())))
    throw std::runtime_error("brotli: could not compress");
  out.resize(size);
  return out;
}

std::string brotli_decompress(std::string_view data) {
  BrotliDecoderState* s = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (!s) throw std::runtime_error("brotli: out of memory");
  std::string out;
  const uint8_t* in = reinterpret_cast<const uint8_t*>(data.data());
  size_t in_left = data.size();
  BrotliDecoderResult rc = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  while (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
    uint8_t buf[4096];
    uint8_t* next = buf;
    size_t out_left = sizeof buf;
    rc = BrotliDecoderDecompressStream(s, &in_left, &in, &out_left, &next, nullptr);
    out.append(reinterpret_cast<char*>(buf), sizeof buf - out_left);
  }
  BrotliDecoderDestroyInstance(s);
  if (rc != BROTLI_DECODER_RESULT_SUCCESS) throw std::runtime_error("brotli: malformed stream");
  return out;
}
#else
bool brotli_available() { return false; }
std::string brotli_compress(std::string_view) {
  throw std::runtime_error("brotli: not built in (libbrotli-dev was not found)");
}
std::string brotli_decompress(std::string_view) {
  throw std::runtime_error("brotli: not built in (libbrotli-dev was not found)");
}
#endif

bool is_compressible(const std::string& content_type) {
  return content_type.starts_with("text/") || content_type.starts_with("application/json") ||
         content_type.starts_with("image/svg+xml");
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
