#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/table_name.hpp"

namespace svc::db {

// A row of svc_users or of another allowlisted auth table with the same columns.
struct User {
  long long id = 0;
  std::string email;
  std::string password;  // stored hash (Argon2id, or a legacy format until upgraded)
  std::string first_name;
  std::string last_name;
  std::string role;
  std::string mobile;
  bool active = true;
  long long token_version = 0;
  // email_verified_at IS NOT NULL (sql/011). Always false in an auth table
  // that lacks the column (see UserRepo::tracks_verification).
  bool email_verified = false;
  // The user pool the address is unique in (sql/034; design "User pools"):
  // kDefaultPool in a table without the pool_id column.
  long long pool_id = 1;
};

// Pool 1: the spec's one namespace, for requests without appID and every
// site that existed before pools (sql/034).
constexpr long long kDefaultPool = 1;

// A user as a password login reads it: the row and, from the same statement,
// whether a confirmed TOTP factor guards the account.
struct LoginUser {
  User user;
  bool second_factor = false;
  bool has_passkey = false;   // with a second factor: the user has a passkey for the site (another way to answer)
  bool session_event = true;  // the sign-in's site has an endpoint for session.created
};

// What UserRepo::prove_address found and did.
struct AddressProof {
  bool recorded = false;   // false in a table without email_verified_at (nothing written)
  long long previous = 0;  // the proof before this one, unix seconds; 0 = this is the first
};

struct NewUser {
  std::string email;
  std::string password_hash;
  std::string first_name;
  std::string last_name;
  std::string role = "user";
  std::string mobile;
};

class UserRepo {
 public:
  // `pool`: the user pool that find_by_email, find_for_login and insert
  // work in (auth/pool.hpp picks it from the request's site). Lookups by
  // id are not scoped: an id is unique per table.
  UserRepo(Database& db, TableName table, long long pool = kDefaultPool)
      : db_(db), table_(std::move(table)), pool_(pool) {}

  // The user of the pool with this address; a user of another pool is not
  // found (the reply of an unknown user). In a table without the pool_id
  // column (an auth table `svc-admin migrate` has not reached yet) only the
  // default pool has users.
  std::optional<User> find_by_email(const std::string& email);
  // find_by_email plus whether svc_mfa_factors holds a confirmed factor for
  // the user (MfaRepo::has_confirmed_factor) and, if so, whether it has a
  // passkey for site `site_id`, and whether that site has an endpoint for
  // session.created (db::has_subscriber), in one round trip: the password
  // login's lookup.
  std::optional<LoginUser> find_for_login(const std::string& email, long long site_id);
  std::optional<User> find_by_id(long long id);
  // Returns the new id, or nullopt when the e-mail is taken in the pool
  // (unique key pool_id, user_email). Throws when the pool is not the
  // default one and the table has no pool_id column.
  std::optional<long long> insert(const NewUser& user);
  // A page of the pool's users whose address begins with `prefix` ("" =
  // every user), in address order after `after_email` ("" = from the
  // first), at most `limit`; the password reads as "". One range read of
  // the unique key (pool_id, user_email).
  std::vector<User> page_by_email(const std::string& prefix, const std::string& after_email, int limit);
  // Sets the active flag; false when no such user.
  bool set_active(long long id, bool active);
  // The pools that hold this address, ascending (svc-admin: an address
  // without --site must name one user).
  std::vector<long long> pools_with(const std::string& email);
  // Whether the table has the pool_id column (sql/034, svc-admin migrate);
  // asked once per table and process, as tracks_verification.
  bool tracks_pools();
  long long pool() const { return pool_; }
  // Replaces the password hash only if it still equals `expected` (so a
  // concurrent change is not overwritten by a login-time re-hash).
  bool replace_password_hash(long long id, const std::string& expected, const std::string& fresh);
  // Revokes every refresh token issued so far (they carry the old version).
  void bump_token_version(long long id);
  // Records a proof of the address (a verification link, an e-mail code, a
  // password reset) at `now` (unix seconds): email_verified_at holds the
  // latest proof (sql/011), and the answer names the one before. Inside a
  // transaction the row stays locked until it ends.
  AddressProof prove_address(long long id, long long now);
  // Whether the table has the email_verified_at column: svc_users has it
  // from sql/011; another auth table once its owner added it. Asked once per
  // table and process (information_schema), so a column added later counts
  // after the workers restart or reload.
  bool tracks_verification();
  // The user's locale column (migration 013; BCP 47, "" = none). An auth
  // table without that column reads as "" and set_locale changes nothing
  // there (returns false): account mail then uses the default language.
  std::string locale(long long id);
  bool set_locale(long long id, const std::string& locale);

  const TableName& table() const { return table_; }

  // "EXISTS (...)": true while the user of the first parameter is active,
  // at the token version of the second and verified (1) or not (0) as the
  // third: for a statement that acts only while a token still speaks for
  // its user (SessionRepo::rotate), so that check and the act are one.
  std::string unchanged_condition();

  // The User columns read() reads, in its order, as a SELECT list of the
  // table as `alias` ("u.id, u.user_email, ..."); the password reads as NULL.
  std::string columns_without_password(const std::string& alias);
  // Reads one row of those columns (from a RowReader or another FieldReader).
  template <class Reader>
  static User read(Reader& r) {
    User u;
    r.read(u.id, u.email, u.password, u.first_name, u.last_name, u.role, u.mobile, u.active, u.token_version,
           u.email_verified, u.pool_id);
    return u;
  }

 private:
  // SELECT of the User columns (then `extra`, ", ..." or "") FROM the table WHERE `where`.
  std::string select(const char* where, const std::string& extra = "");
  // The SELECT list of read(), each column after `prefix` ("" or "u."), with
  // `password` for the password column.
  std::string columns(const std::string& prefix, const char* password);
  // The WHERE clause of a lookup by address in the pool: binds the
  // address, then the pool when the table has pools.
  std::string by_email();
  void bind_email(Params& p, const std::string& email);
  // Whether `column` exists in the table (cached per table and process).
  bool has_column(const char* column);
  Database& db_;
  TableName table_;
  long long pool_;
};

}  // namespace svc::db
