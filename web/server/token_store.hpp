#pragma once
// API tokens of `gantry serve`: bearer tokens, stored hashed in the server's database.
//
// A token is "gty_" and 64 hex digits (256 random bits from OpenSSL's RAND_bytes). Only its
// SHA-256 is stored: with 256 random bits there is nothing to brute-force, so no salt or slow
// hash is needed (the practice of GitHub's and Kubernetes' bearer tokens). Roles (what each may
// do: api_server.hpp and web/API.md): admin (every route, and alone the tokens and the audit
// log), editor (every route but those), viewer (GET only: `gantry token create --role viewer`,
// or `--read-only`) and sweep-worker: made by the
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
// request. There is no cache: verify() reads the table at every request, so a revoked token is
// refused at its next request. Thread-safe: every call takes the store's mutex (verify() is one
// indexed SELECT, and at most once a minute per token an UPDATE of its last use).
//
// Names: the tokens of people (admin, editor, viewer) have names unique among them, so
// `gantry token revoke NAME` names one token. Tokens of databases from before this rule may
// share a name; revoke_named() then refuses and list() shows their ids (revoke(id) takes them).

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/store/database.hpp"

namespace gantry::web {

enum class TokenRole { kAdmin, kEditor, kViewer, kSweepWorker, kSweepEnded };
const char* to_string(TokenRole role);
// "admin", "editor" or "viewer": the roles a person's token may have; nullopt otherwise.
std::optional<TokenRole> user_role_from(std::string_view text);
// admin, editor or viewer (not a sweep's worker token).
bool is_user_role(TokenRole role);

// A token name that cannot be used (empty, too long, control characters, taken).
class TokenNameError : public GantryError {
 public:
  using GantryError::GantryError;
};

enum class RevokeOutcome { kRevoked, kNotFound, kAmbiguous, kLastAdmin };

struct TokenInfo {
  int64_t id = 0;
  TokenRole role = TokenRole::kViewer;
  std::string name;
  int64_t created_us = 0;
  std::string scope;         // kSweepWorker: the sweep's id; "" otherwise
  int64_t last_used_us = 0;  // 0: never used; otherwise to within kLastUsedResolutionUs
};

// The last use of a token is written at most this often (one UPDATE a minute per token, not one
// per request), so `last used` is exact to a minute.
inline constexpr int64_t kLastUsedResolutionUs = 60'000'000;

class TokenStore {
 public:
  // Opens the database at `db_path` (created if missing) and creates the table if needed.
  // Throws StoreError naming the path.
  explicit TokenStore(const std::string& db_path);

  // A new token; the returned text is the only copy (shown once). For a person's role (admin,
  // editor, viewer) `name` must be 1 to 100 characters without control characters and not the
  // name of another such token: TokenNameError saying which otherwise.
  std::string create(TokenRole role, const std::string& name, const std::string& scope = "");
  // The token's record, or nullopt for an unknown, revoked or malformed token. Records the use
  // (last_used_us) when the last record is older than kLastUsedResolutionUs; a failure to write
  // it (a full disk) is ignored: it never refuses the request.
  std::optional<TokenInfo> verify(std::string_view token);
  // Every token, sweep workers' too, oldest first.
  std::vector<TokenInfo> list();
  // The tokens of people (admin, editor, viewer), oldest first.
  std::vector<TokenInfo> list_users();
  // Revokes a token by id; false when there is none.
  bool revoke(int64_t id);
  // Revokes the person's token named `name`: kNotFound when none has it, kAmbiguous when
  // several (of a database from before names were unique: revoke(id) then), kLastAdmin when it
  // is the only admin token (nothing could then manage tokens until a restart made a new one:
  // create another admin first). `revoked`, when given, receives the token's record.
  RevokeOutcome revoke_named(const std::string& name, TokenInfo* revoked = nullptr);
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
  // The last use is written on a connection of its own that never waits for a lock (busy
  // timeout 0): a write of the orchestrator in progress makes it skip the record (made at the
  // next request) rather than hold every request's verify() behind the store's mutex.
  Database touch_db_;
  Statement touch_;
};

// Lower-case hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);
// Does `text` have the shape of a token ("gty_" + 64 hex digits)?
bool looks_like_token(std::string_view text);

}  // namespace gantry::web
