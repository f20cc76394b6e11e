#include "web/server/token_store.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/core/errors.hpp"
#include "engine/store/statement.hpp"

namespace gantry::web {

namespace {

constexpr std::string_view kPrefix = "gty_";

std::string to_hex(const unsigned char* bytes, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TokenRole role_from(const std::string& s) {
  if (s == "admin") return TokenRole::kAdmin;
  if (s == "sweep-worker") return TokenRole::kSweepWorker;
  if (s == "sweep-ended") return TokenRole::kSweepEnded;
  return TokenRole::kViewer;
}

}  // namespace

const char* to_string(TokenRole role) {
  switch (role) {
    case TokenRole::kAdmin:
      return "admin";
    case TokenRole::kSweepWorker:
      return "sweep-worker";
    case TokenRole::kSweepEnded:
      return "sweep-ended";
    case TokenRole::kViewer:
      break;
  }
  return "viewer";
}

std::string sha256_hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  return to_hex(digest, len);
}

bool looks_like_token(std::string_view text) {
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : text.substr(kPrefix.size()))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

TokenStore::TokenStore(const std::string& db_path) : db_(Database::open(db_path, {.wal = true})) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS api_tokens(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, "
      "role TEXT NOT NULL, name TEXT NOT NULL, created_us INTEGER NOT NULL)");
  // A database of a server from before sweep workers' tokens has no scope column yet.
  bool has_scope = false;
  {
    Statement columns = db_.prepare("PRAGMA table_info(api_tokens)");
    while (columns.step()) has_scope = has_scope || columns.column_text(1) == "scope";
  }
  if (!has_scope) db_.exec("ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT ''");
  verify_ = db_.prepare("SELECT id, role, name, created_us, scope FROM api_tokens WHERE hash = ?");
}

std::string TokenStore::create(TokenRole role, const std::string& name, const std::string& scope) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes for a token");
  const std::string token = std::string(kPrefix) + to_hex(bytes, sizeof bytes);
  std::lock_guard lock(mu_);
  db_.prepare("INSERT INTO api_tokens(hash, role, name, created_us, scope) VALUES (?, ?, ?, ?, ?)")
      .bind_all(sha256_hex(token), to_string(role), name, now_us(), scope)
      .step();
  return token;
}

std::optional<TokenInfo> TokenStore::verify(std::string_view token) {
  if (!looks_like_token(token)) return std::nullopt;
  const std::string hash = sha256_hex(token);
  std::lock_guard lock(mu_);
  Statement& s = verify_;
  s.reset();
  s.bind_all(hash);
  if (!s.step()) return std::nullopt;
  TokenInfo info{s.column_int64(0), role_from(s.column_text(1)), s.column_text(2),
                 s.column_int64(3), s.column_text(4)};
  s.reset();  // no read transaction left open between requests
  return info;
}

std::vector<TokenInfo> TokenStore::list() {
  std::lock_guard lock(mu_);
  std::vector<TokenInfo> out;
  Statement s = db_.prepare("SELECT id, role, name, created_us, scope FROM api_tokens ORDER BY id");
  while (s.step())
    out.push_back({s.column_int64(0), role_from(s.column_text(1)), s.column_text(2),
                   s.column_int64(3), s.column_text(4)});
  return out;
}

bool TokenStore::revoke(int64_t id) {
  std::lock_guard lock(mu_);
  db_.prepare("DELETE FROM api_tokens WHERE id = ?").bind_all(id).step();
  return db_.changes() > 0;
}

int64_t TokenStore::revoke_scope(const std::string& scope) {
  if (scope.empty()) return 0;
  std::lock_guard lock(mu_);
  db_.prepare(
         "UPDATE api_tokens SET role = 'sweep-ended' WHERE scope = ? AND role = 'sweep-worker'")
      .bind_all(scope)
      .step();
  return db_.changes();
}

bool TokenStore::ensure_admin(const std::filesystem::path& file) {
  {
    std::lock_guard lock(mu_);
    Statement s = db_.prepare("SELECT count(*) FROM api_tokens WHERE role = 'admin'");
    if (s.step() && s.column_int64(0) > 0) return false;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(file, ec);
  if (fs::exists(status)) {
    const auto refuse = [&](const std::string& what) {
      throw GantryError(file.string() + ": " + what +
                        ", not a Gantry token file; the admin token is written there: move it "
                        "away (or give --db another name)");
    };
    if (fs::is_symlink(status)) refuse("a symbolic link");
    if (fs::is_directory(status)) refuse("a directory");
    if (!fs::is_regular_file(status)) refuse("not a regular file");
    std::ifstream in(file);
    std::string line, rest;
    std::getline(in, line);
    std::getline(in, rest);
    if (!looks_like_token(line) || !rest.empty()) refuse("a file that holds something else");
  }
  const std::string token = create(TokenRole::kAdmin, "admin (first start)");
  // Written to a temporary file of its own (mkostemp: a new name, mode 0600 from the start, so
  // the token is never readable by others and no file of the user's is touched), then renamed.
  std::string tmp = file.string() + ".XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0)
    throw GantryError(file.string() +
                      ": cannot create a temporary file beside it: " + std::strerror(errno));
  const std::string text = token + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fsync(fd) == 0;
  ::close(fd);
  if (!written || std::rename(tmp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw GantryError(file.string() + ": cannot write the token file: " + std::strerror(err));
  }
  return true;
}

}  // namespace gantry::web
