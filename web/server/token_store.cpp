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
  if (s == "editor") return TokenRole::kEditor;
  if (s == "sweep-worker") return TokenRole::kSweepWorker;
  if (s == "sweep-ended") return TokenRole::kSweepEnded;
  return TokenRole::kViewer;
}

constexpr const char* kColumns = "id, role, name, created_us, scope, last_used_us";
constexpr const char* kUserRoles = "role IN ('admin', 'editor', 'viewer')";

TokenInfo read_info(Statement& s) {
  return {s.column_int64(0), role_from(s.column_text(1)),
          s.column_text(2),  s.column_int64(3),
          s.column_text(4),  s.column_int64(5)};
}

void check_name(const std::string& name) {
  if (name.empty()) throw TokenNameError("--name: a token needs a name (what or whom it is for)");
  if (name.size() > 100)
    throw TokenNameError("--name: at most 100 characters, got " + std::to_string(name.size()));
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      throw TokenNameError("--name: control characters are not allowed in '" + name + "'");
}

}  // namespace

std::optional<TokenRole> user_role_from(std::string_view text) {
  if (text == "admin") return TokenRole::kAdmin;
  if (text == "editor") return TokenRole::kEditor;
  if (text == "viewer") return TokenRole::kViewer;
  return std::nullopt;
}

bool is_user_role(TokenRole role) {
  return role == TokenRole::kAdmin || role == TokenRole::kEditor || role == TokenRole::kViewer;
}

const char* to_string(TokenRole role) {
  switch (role) {
    case TokenRole::kAdmin:
      return "admin";
    case TokenRole::kEditor:
      return "editor";
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
  // Nor, before named roles, a record of each token's last use.
  bool has_last_used = false;
  {
    Statement columns = db_.prepare("PRAGMA table_info(api_tokens)");
    while (columns.step())
      has_last_used = has_last_used || columns.column_text(1) == "last_used_us";
  }
  if (!has_last_used)
    db_.exec("ALTER TABLE api_tokens ADD COLUMN last_used_us INTEGER NOT NULL DEFAULT 0");
  verify_ = db_.prepare(std::string("SELECT ") + kColumns + " FROM api_tokens WHERE hash = ?");
  touch_db_ = Database::open(db_path, {.wal = true, .busy_timeout = microseconds(0)});
  touch_ = touch_db_.prepare("UPDATE api_tokens SET last_used_us = ? WHERE id = ?");
}

std::string TokenStore::create(TokenRole role, const std::string& name, const std::string& scope) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes for a token");
  const std::string token = std::string(kPrefix) + to_hex(bytes, sizeof bytes);
  if (is_user_role(role)) check_name(name);
  std::lock_guard lock(mu_);
  if (is_user_role(role)) {
    Statement taken = db_.prepare(std::string("SELECT role FROM api_tokens WHERE name = ? AND ") +
                                  kUserRoles + " LIMIT 1");
    taken.bind_all(name);
    if (taken.step())
      throw TokenNameError("--name: there is already a token named '" + name + "' (" +
                           taken.column_text(0) +
                           "); give another name, or revoke that one first (gantry token revoke)");
  }
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
  TokenInfo info = read_info(s);
  s.reset();  // no read transaction left open between requests
  const int64_t now = now_us();
  if (now - info.last_used_us >= kLastUsedResolutionUs) {
    try {
      touch_.reset();
      touch_.bind_all(now, info.id);
      touch_.step();
      info.last_used_us = now;
    } catch (const StoreError&) {
      // Locked by another writer, or a full disk: the request is still answered; the record
      // waits for the next.
    }
    touch_.reset();
  }
  return info;
}

std::vector<TokenInfo> TokenStore::list() {
  std::lock_guard lock(mu_);
  std::vector<TokenInfo> out;
  Statement s = db_.prepare(std::string("SELECT ") + kColumns + " FROM api_tokens ORDER BY id");
  while (s.step()) out.push_back(read_info(s));
  return out;
}

std::vector<TokenInfo> TokenStore::list_users() {
  std::vector<TokenInfo> out = list();
  std::erase_if(out, [](const TokenInfo& t) { return !is_user_role(t.role); });
  return out;
}

RevokeOutcome TokenStore::revoke_named(const std::string& name, TokenInfo* revoked) {
  std::lock_guard lock(mu_);
  std::vector<TokenInfo> named;
  int64_t admins = 0;
  {
    Statement s = db_.prepare(std::string("SELECT ") + kColumns + " FROM api_tokens WHERE " +
                              kUserRoles + " AND (name = ? OR role = 'admin')");
    s.bind_all(name);
    while (s.step()) {
      TokenInfo t = read_info(s);
      admins += t.role == TokenRole::kAdmin;
      if (t.name == name) named.push_back(std::move(t));
    }
  }
  if (named.empty()) return RevokeOutcome::kNotFound;
  if (named.size() > 1) return RevokeOutcome::kAmbiguous;
  if (named[0].role == TokenRole::kAdmin && admins == 1) return RevokeOutcome::kLastAdmin;
  db_.prepare("DELETE FROM api_tokens WHERE id = ?").bind_all(named[0].id).step();
  if (revoked) *revoked = named[0];
  return RevokeOutcome::kRevoked;
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
  // The name of the first start's token, or, should a person's token have taken it, the first
  // free "admin (first start N)".
  std::string name = "admin (first start)";
  for (int n = 2;; ++n) {
    std::lock_guard lock(mu_);
    Statement taken =
        db_.prepare(std::string("SELECT 1 FROM api_tokens WHERE name = ? AND ") + kUserRoles);
    taken.bind_all(name);
    if (!taken.step()) break;
    name = "admin (first start " + std::to_string(n) + ")";
  }
  const std::string token = create(TokenRole::kAdmin, name);
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
