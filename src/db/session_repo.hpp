#pragma once
// Server-side sessions (svc_sessions, sql/017_sessions.sql): one row per
// sign-in; the refresh token's rotation is one conditional UPDATE.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

struct SessionRow {
  std::string id;
  long long site_id = 0;
  std::string table;
  long long user_id = 0;
  long long generation = 1;
  long long created_at = 0;
  long long last_seen_at = 0;
  long long rotated_at = 0;
  long long expires_at = 0;
  long long auth_time = 0;
  std::string amr;  // space-separated
  std::string ip;
  std::string user_agent;
  std::optional<long long> revoked_at;
  std::string revoked_reason;
  // SHA-256 hex of the sign-in's device cookie (auth/session/device.hpp,
  // sql/035): written by insert(), read by seen_device() only, so not among
  // kSessionColumns ("" when read).
  std::string device_key;
  // Whether the session was granted to an OAuth client (svc_oauth_grants);
  // read only by SessionRepo::find_with_grant, false elsewhere.
  bool oauth_grant = false;
};

// The columns of a SessionRow, for a read that joins svc_sessions
// (db::qualified_columns), and their reader, in that order.
inline constexpr const char* kSessionColumns =
    "id, site_id, auth_table, user_id, generation, created_at, last_seen_at, rotated_at, expires_at, auth_time, amr,"
    " ip, user_agent, revoked_at, revoked_reason";
inline constexpr auto read_session_row =
    read_fields<SessionRow, &SessionRow::id, &SessionRow::site_id, &SessionRow::table, &SessionRow::user_id,
                &SessionRow::generation, &SessionRow::created_at, &SessionRow::last_seen_at, &SessionRow::rotated_at,
                &SessionRow::expires_at, &SessionRow::auth_time, &SessionRow::amr, &SessionRow::ip,
                &SessionRow::user_agent, &SessionRow::revoked_at, &SessionRow::revoked_reason>;

// The session a refresh token names, as the rotation expects it: whose it
// is and the generation the token carries.
struct SessionClaim {
  std::string id;
  std::string table;
  long long user_id = 0;
  long long generation = 0;
};

// What a refresh token says of its user, for SessionRepo::rotate to check:
// UserRepo::unchanged_condition() of the session's auth table, and the
// values that condition compares.
struct UserHold {
  std::string condition;
  long long token_version = 0;
  bool email_verified = false;
};

// Which sessions of a user revoke_user() ends.
struct SessionScope {
  std::string table;
  long long user_id = 0;
  std::string keep_id;  // "" = end every one; else every one but this
};

class SessionRepo {
 public:
  explicit SessionRepo(Database& db) : db_(db) {}

  // Inserts `row` (generation, times and strings as given; not revoked).
  // `legacy_jti` non-empty: the jti of the pre-session refresh token that
  // opens it; false (nothing written) when that jti already opened one.
  bool insert(const SessionRow& row, const std::string& legacy_jti = "");

  std::optional<SessionRow> find(const std::string& id);
  // The same with oauth_grant read too, in the one statement (the rotation's
  // read after a missed UPDATE, sign-out's check of a live token).
  std::optional<SessionRow> find_with_grant(const std::string& id);
  // The session a pre-session refresh token with this jti opened.
  std::optional<SessionRow> find_legacy(const std::string& jti);

  // The rotation: moves the generation from claim.generation to the next
  // and the times and device on, only while the session is the claim's
  // user's, not revoked, not expired at `now` and still at that generation.
  // True when this call did it: one statement, and the only one a current
  // token needs (of two callers, on one host or two, only one can win).
  // Unless `oauth_grant_ok`, a session granted to an OAuth client
  // (svc_oauth_grants) does not rotate either.
  // With `user`, also only while the claim's user is as the token says
  // (UserHold): the check of the user and the rotation are one statement.
  bool rotate(const SessionClaim& claim, long long now, long long expires_at, const std::string& ip,
              const std::string& user_agent, bool oauth_grant_ok, const UserHold* user = nullptr);

  // Revokes one session (if not revoked yet); true when this call did.
  bool revoke(const std::string& id, long long now, const std::string& reason);
  // Revokes the user's open sessions of `scope`; how many it revoked.
  int revoke_user(const SessionScope& scope, long long now, const std::string& reason);

  // The user's sessions neither revoked nor expired at `now`, newest first
  // (at most 100).
  std::vector<SessionRow> open_sessions(const std::string& table, long long user_id, long long now);

  // What the user's sessions show of a device (new-device notices), in one
  // read: nullopt when the user has no session row at all (a first
  // sign-in), else whether one of them was opened on `device_key` (a
  // SessionRow::device_key, never "") and last seen at or after `since`.
  std::optional<bool> seen_device(const std::string& table, long long user_id, const std::string& device_key,
                                  long long since);

  // The "this wasn't me" link about session `id` of the user (not_me_at):
  // whether it may still be used (the session exists, is the user's, and
  // its link was not used), and its spending, true when this call did it
  // (one conditional UPDATE: of two callers, on one host or two, only one
  // can). Apart from find() on purpose: the rotation never reads that column.
  bool not_me_unspent(const std::string& id, const std::string& table, long long user_id);
  bool spend_not_me(const std::string& id, const std::string& table, long long user_id, long long now);

 private:
  Database& db_;
};

}  // namespace svc::db
