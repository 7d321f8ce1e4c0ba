#include "auth/password/policy.hpp"

#include "core/clock.hpp"
#include "crypto/breached_list.hpp"
#include "crypto/password_score.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/site_cache.hpp"
#include "metrics/outbound_slots.hpp"

namespace svc::auth {

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

PasswordRequirements check_strength(std::string_view password) {
  PasswordRequirements r;
  r.min_length = utf8_length(password) >= kMinPasswordChars;
  for (char c : password) {
    if (c >= 'A' && c <= 'Z')
      r.has_upper = true;
    else if (c >= 'a' && c <= 'z')
      r.has_lower = true;
    else if (c >= '0' && c <= '9')
      r.has_number = true;
    else if (std::string_view("@$!%*?&").find(c) != std::string_view::npos)
      r.has_special = true;
  }
  return r;
}

namespace {

// Workers of one host that may score a password at once (strength_verdict).
constexpr int kConcurrentScoring = 2;

[[noreturn]] void refuse(const PasswordRequirements& r) {
  http::JsonWriter w;
  w.open()
      .kv("status", "Failed")
      .kv("message", "Password does not meet security requirements")
      .open("requirements")
      .kv("minLength", r.min_length)
      .kv("hasUpperCase", r.has_upper)
      .kv("hasLowerCase", r.has_lower)
      .kv("hasNumber", r.has_number)
      .kv("hasSpecialChar", r.has_special);
  if (r.not_breached) w.kv("notBreached", *r.not_breached);
  if (r.strong_enough) w.kv("strongEnough", *r.strong_enough);
  w.close().close();
  throw http::ApiError(400, w.str());
}

std::optional<bool> breached_verdict(std::string_view password, core::Context& ctx) {
  if (!ctx.breached) return std::nullopt;
  return ctx.breached->listed(password, ctx.clock.now());
}

// Whether the password reaches the site's minimum score; nullopt when the
// site has none (or there is no site). Scoring costs a worker up to tens of
// milliseconds of CPU, unauthenticated on sign-up: at most
// kConcurrentScoring workers of the host score at once (a place in the
// outbound cap's table under a key of its own), and one more is answered
// 429 at once (Retry-After: 1) rather than waiting.
std::optional<bool> strength_verdict(std::string_view password, core::Context& ctx, long long site_id,
                                     const std::vector<std::string_view>& user_words) {
  if (site_id <= 0) return std::nullopt;
  const auto site = http::find_site(ctx, site_id);
  if (!site || site->min_password_score <= 0) return std::nullopt;
  metrics::OutboundHold hold(metrics::kPasswordScoringKey, kConcurrentScoring);
  if (!hold.granted()) throw http::ApiError::failed(429, "Too many requests");  // nginx's own 429 body
  return crypto::password_score(password, user_words) >= site->min_password_score;
}

}  // namespace

void require_strong_password(std::string_view password) {
  const PasswordRequirements r = check_strength(password);
  if (!r.all()) refuse(r);
}

void require_strong_password(std::string_view password, core::Context& ctx, long long site_id,
                             const std::vector<std::string_view>& user_words) {
  PasswordRequirements r = check_strength(password);
  if (auto listed = breached_verdict(password, ctx)) r.not_breached = !*listed;
  // Scored only once the cheap rules pass: a refused password costs no score.
  if (r.all()) r.strong_enough = strength_verdict(password, ctx, site_id, user_words);
  if (!r.all()) refuse(r);
}

bool is_breached(std::string_view password, core::Context& ctx) {
  return breached_verdict(password, ctx).value_or(false);
}

std::optional<std::string> password_field(http::Fields& fields, const char* name, bool check_min) {
  auto password = fields.required_string(name, 1 << 20);
  if (!password) return std::nullopt;
  if (password->size() > kMaxPasswordBytes) {
    fields.add(name, std::string(name) + " must be at most 1024 bytes");
    return std::nullopt;
  }
  if (check_min && utf8_length(*password) < kMinPasswordChars) {
    fields.add(name, std::string(name) + " must be at least 8 characters");
    return std::nullopt;
  }
  return password;
}

}  // namespace svc::auth
