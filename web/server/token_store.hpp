#pragma once
// API tokens of `gantry serve`: bearer tokens, stored hashed in the server's database.
//
// A token is "gty_" and 64 hex digits (256 random bits from OpenSSL's RAND_bytes). Only its
// SHA-256 is stored: with 256 random bits there is nothing to brute-force, so no salt or slow
// hash is needed (the practice of GitHub's and Kubernetes' bearer tokens). Roles: admin (every
// route), viewer (GET only: `gantry token create --read-only`) and sweep-worker: made by the
// sweep coordinator for one distributed sweep (its `scope`, the sweep's id), it may only use
// the routes marked for workers, for that sweep (api_server.hpp). When the sweep ends its
// tokens become sweep-ended: they grant nothing, but a request with one is told that the sweep
// is over (410) rather than that the token is unknown (401), so a pod started late exits
// cleanly instead of failing its Job's index.
//
// The first start of a server on a database without an admin token makes one and writes it to
// a file beside the database with mode 0600 (ensure_admin()), so it is never printed to a log.
//
// Storage: table api_tokens in the database file (the column `scope` added to databases of
// servers before it, on open), on this store's own connection (WAL), so
// `gantry token create` can add a token while a server runs and the server sees it at the next
// request. Thread-safe: every call takes the store's mutex (verify() is one indexed SELECT).

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/database.hpp"

namespace gantry::web {

enum class TokenRole { kAdmin, kViewer, kSweepWorker, kSweepEnded };
const char* to_string(TokenRole role);

struct TokenInfo {
  int64_t id = 0;
  TokenRole role = TokenRole::kViewer;
  std::string name;
  int64_t created_us = 0;
  std::string scope;  // kSweepWorker: the sweep's id; "" otherwise
};

class TokenStore {
 public:
  // Opens the database at `db_path` (created if missing) and creates the table if needed.
  // Throws StoreError naming the path.
  explicit TokenStore(const std::string& db_path);

  // A new token; the returned text is the only copy (shown once).
  std::string create(TokenRole role, const std::string& name, const std::string& scope = "");
  // The token's record, or nullopt for an unknown, revoked or malformed token.
  std::optional<TokenInfo> verify(std::string_view token);
  std::vector<TokenInfo> list();
  // Revokes a token by id; false when there is none.
  bool revoke(int64_t id);
  // Ends every sweep-worker token of `scope` (a sweep's): they become kSweepEnded, which
  // grants nothing; returns how many.
  int64_t revoke_scope(const std::string& scope);

  // When no admin token exists: creates one and writes it (one line) to `file` with mode 0600,
  // returning true. A file already there is replaced only if it holds nothing but a token (an
  // earlier start's); anything else there (another file, a symbolic link, a directory) throws
  // GantryError naming the file and what it is, as does a file that cannot be written. The
  // token goes to a temporary file of a new name beside `file`, renamed over it.
  bool ensure_admin(const std::filesystem::path& file);

 private:
  std::mutex mu_;
  Database db_;
  // verify() runs on every request: compiled once (destroyed before db_, declared after it).
  Statement verify_;
};

// Lower-case hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);
// Does `text` have the shape of a token ("gty_" + 64 hex digits)?
bool looks_like_token(std::string_view text);

}  // namespace gantry::web
