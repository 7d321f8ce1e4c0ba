// A deterministic request fuzzer: mutated bodies, paths, methods and headers
// go straight into the dispatcher (no socket), which must always answer with
// a JSON object carrying "status", a known status code, and never throw.
// The database is unreachable here, so requests that get past validation end
// in the generic 500 — which proves the catch site, not the handlers.
#include <boost/test/unit_test.hpp>

#include <rapidjson/document.h>

#include <random>
#include <set>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "core/random.hpp"
#include "crypto/encoding.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "http/dispatch.hpp"
#include "app/routes.hpp"
#include "push/push_client.hpp"
#include "sms/sms_gateway.hpp"

BOOST_AUTO_TEST_SUITE(dispatch_fuzz_test)

namespace {

svc::config::Config offline_config() {
  svc::config::IniValues v;
  v["database.user"] = "nobody";
  v["database.socket"] = "/nonexistent/svc-fuzz.sock";
  v["database.connect_timeout"] = "1";
  v["keys.jwt_kid"] = "fuzz";
  std::string key = svc::crypto::base64url_encode(std::string(32, 'k'));
  for (const char* k : {"keys.jwt_secret", "keys.id_key", "keys.sms_key", "keys.reset_key"}) v[k] = key;
  v["auth.argon2_opslimit"] = "1";
  v["auth.argon2_memlimit"] = "8192";
  return svc::config::parse_config(v, "fuzz");
}

class NoSms final : public svc::sms::SmsGateway {
 public:
  svc::sms::SmsResult send(const std::string&, const std::string&) override { return {false, "fuzz"}; }
};

class NoPush final : public svc::push::PushClient {
 public:
  svc::push::PushResult send(const svc::push::PushRequest&) override {
    return {svc::push::PushOutcome::NetworkError, 0, "fuzz"};
  }
};

const char* kSeeds[] = {
    R"({"email":"a@example.com","password":"Passw0rd!"})",
    R"({"payload":{"access_token":"a.b.c","refresh_token":"x.y.z"}})",
    R"({"event":"welcome-email","email":"a@example.com","data":{"name":"x"},"table":"t","master_id":1})",
    R"({"customerID":"abc","message":"m","title":"t","data":{}})",
    R"({"appID":1,"table":"svc_folders","userId":"1"})",
    R"({"userId":"AAAA","code":"123456"})",
    R"({"password":"Aa1!aaaa","confirmPassword":"Aa1!aaaa","reset_password_token":"a.b.c"})",
    R"([1,2,{"a":[{"b":null}]}])",
    "",
};

std::string mutate(std::string s, std::mt19937& rng) {
  std::uniform_int_distribution<int> op(0, 5);
  std::uniform_int_distribution<int> byte(0, 255);
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (op(rng)) {
      case 0: if (!s.empty()) s[pos] = static_cast<char>(byte(rng)); break;
      case 1: s.insert(pos, 1, static_cast<char>(byte(rng))); break;
      case 2: if (!s.empty()) s.erase(pos, 1 + rng() % 8); break;
      case 3: s.insert(pos, std::string(1 + rng() % 64, "[{\"\\u:,0}]"[rng() % 10])); break;
      case 4: s.insert(pos, "\\ud800\\udc00\\udfff\xff\xfe\xc0\xaf"); break;
      default: s += s.substr(0, std::min<size_t>(s.size(), 256)); break;
    }
  }
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_reply_is_json_with_a_known_status) {
  auto config = offline_config();
  svc::db::Database db(config.database);
  svc::core::SystemClock clock;
  svc::core::SystemRandom random;
  svc::crypto::Argon2PasswordHasher hasher({1, 8192}, "");
  NoSms sms;
  NoPush push;
  svc::core::Context ctx{config, db, nullptr, clock, random, hasher, sms, push, nullptr};

  std::vector<std::string> paths{"/nope", "/auth/", "/health/x", ""};
  for (const auto& r : svc::app::routes()) paths.push_back(r.path);
  const char* methods[] = {"POST", "GET", "PUT", "DELETE", ""};
  const std::set<int> known{200, 400, 401, 404, 405, 413, 429, 500, 503};

  std::mt19937 rng(20261122);
  int iterations = 0;
  for (int i = 0; i < 4000; ++i) {
    svc::http::Request req;
    req.method = methods[rng() % 5];
    if (rng() % 4) req.method = "POST";
    req.path = paths[rng() % paths.size()];
    req.request_id = "fuzz";
    req.headers["site-id"] = (rng() % 2) ? "1" : mutate("1", rng);
    std::string body = mutate(kSeeds[rng() % (sizeof kSeeds / sizeof *kSeeds)], rng);
    req.content_length = (rng() % 5) ? static_cast<long long>(body.size()) : -1;
    svc::http::StringBody source(body);
    svc::http::Response res;
    BOOST_REQUIRE_NO_THROW(res = svc::http::dispatch(svc::app::routes(), req, source, ctx));
    BOOST_TEST_CONTEXT("path " << req.path << " body " << body.substr(0, 120)) {
      BOOST_CHECK(known.count(res.status));
      rapidjson::Document doc;
      doc.Parse(res.body.data(), res.body.size());
      BOOST_REQUIRE(!doc.HasParseError());
      BOOST_REQUIRE(doc.IsObject());
      BOOST_CHECK(doc.HasMember("status"));
      BOOST_CHECK(res.body.find("mysql") == std::string::npos);
      BOOST_CHECK(res.body.find("xception") == std::string::npos);
    }
    ++iterations;
  }
  BOOST_CHECK_EQUAL(iterations, 4000);
}

BOOST_AUTO_TEST_SUITE_END()
