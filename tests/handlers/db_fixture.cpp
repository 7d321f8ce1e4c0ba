#include "db_fixture.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#include "app/routes.hpp"
#include "auth/password/reset_service.hpp"
#include "auth/tokens/tokens.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "db/user_repo.hpp"
#include "http/dispatch.hpp"

namespace svc::testing {
namespace {

config::Config stack_config() {
  const char* dir = std::getenv("SVC_STACK_DIR");
  if (!dir || !*dir) throw std::runtime_error("SVC_STACK_DIR is not set: these tests need the ctest stack fixture");
  return config::load_config(std::string(dir) + "/svc.conf");
}

}  // namespace

DbFixture::DbFixture()
    : config(stack_config()), db(config.database), hasher(config.keys.legacy_password_key), ctx{config,  db,
                                                                                                nullptr, clock,
                                                                                                random,  hasher,
                                                                                                sms,     push,
                                                                                                nullptr} {}

http::Response DbFixture::post(const std::string& path, const std::string& json_body,
                               std::initializer_list<std::pair<std::string, std::string>> headers) {
  http::Request r;
  r.method = "POST";
  r.path = path;
  // Unique per post and per run: the outbox deduplicates by request id
  // (sql/004), and two posts are two requests.
  static const std::string run = "db-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr));
  static std::atomic<int> serial{0};
  r.request_id = run + "-" + std::to_string(++serial);
  r.remote_addr = "127.0.0.1";
  r.content_length = static_cast<long long>(json_body.size());
  r.headers["content-type"] = "application/json";
  for (const auto& [k, v] : headers) r.headers[k] = v;
  http::StringBody body(json_body);
  return http::dispatch(app::routes(), r, body, ctx);
}

long long DbFixture::count(const std::string& sql) {
  return db.with(sql, [](sql::PreparedStatement& st) {
    auto rs = db::query(st);
    rs->next();
    return static_cast<long long>(rs->getInt64(1));
  });
}

long long DbFixture::session_status(const std::string& counter) {
  return count("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = '" + counter + "'");
}

std::string DbFixture::reset_token(long long user_id, const std::string& table, const std::string& password_hash) {
  crypto::Claims c;
  c.typ = "reset";
  c.sub = std::to_string(user_id);
  c.tbl = table;
  c.iat = clock.value;
  c.exp = c.iat + 3600;
  // Bound to the address as request-pass binds it (issue 48).
  const auto user = db::UserRepo(db, *db::allowlisted(table, config.auth.tables)).find_by_id(user_id);
  c.pwf = auth::reset_token_fingerprint(config.keys.reset_key, password_hash, user ? user->email : "");
  return crypto::jwt_sign(c, auth::reset_token_keys(config.keys.jwt).current);
}

std::string php_aes_password(const std::string& password, std::string key) {
  key.resize(32, '\0');
  const std::string iv(16, 'i');
  std::string out(password.size() + 32, '\0');
  int len = 0, fin = 0;
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  EVP_EncryptInit_ex(c, EVP_aes_256_cbc(), nullptr, reinterpret_cast<const unsigned char*>(key.data()),
                     reinterpret_cast<const unsigned char*>(iv.data()));
  EVP_EncryptUpdate(c, o, &len, reinterpret_cast<const unsigned char*>(password.data()),
                    static_cast<int>(password.size()));
  EVP_EncryptFinal_ex(c, o + len, &fin);
  EVP_CIPHER_CTX_free(c);
  out.resize(static_cast<std::size_t>(len + fin));
  return crypto::base64_encode(iv + out);
}

}  // namespace svc::testing
