#include "auth/session/device.hpp"

#include <array>
#include <utility>

#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "crypto/encoding.hpp"
#include "http/cookies.hpp"

namespace svc::auth {
namespace {

constexpr size_t kDeviceBytes = 16;

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The first entry whose marker the user agent has; order matters (every
// Chromium browser also says "Chrome", Chrome also says "Safari", iPhone
// and Android user agents also say "Mac OS X" and "Linux").
template <size_t N>
std::string_view first_of(std::string_view ua,
                          const std::array<std::pair<std::string_view, std::string_view>, N>& table,
                          std::string_view otherwise) {
  for (const auto& [marker, name] : table) {
    if (has(ua, marker)) return name;
  }
  return otherwise;
}

}  // namespace

Device device_of(const core::Context& ctx, const http::Request& request) {
  std::string value = http::request_cookie(request, kDeviceCookie);
  Device device;
  if (!is_session_id(value)) {  // the same shape: 22 base64url characters of 16 random bytes
    value = crypto::base64url_encode(crypto::random_bytes(kDeviceBytes));
    const bool secure = ctx.config.tokens.oidc_base().rfind("http://", 0) != 0;
    device.set_cookie = http::set_cookie(kDeviceCookie, value, kDeviceCookieSeconds, secure);
  }
  device.key = crypto::hex_encode(crypto::sha256(value));
  return device;
}

std::string device_name(std::string_view ua) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kBrowsers{{
      {"Edg/", "Edge"},
      {"OPR/", "Opera"},
      {"SamsungBrowser/", "Samsung Internet"},
      {"Firefox/", "Firefox"},
      {"FxiOS/", "Firefox"},
      {"CriOS/", "Chrome"},
      {"Chrome/", "Chrome"},
  }};
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kSystems{{
      {"iPhone", "iPhone"},
      {"iPad", "iPad"},
      {"Android", "Android"},
      {"Windows", "Windows"},
      {"CrOS", "ChromeOS"},
      {"Macintosh", "macOS"},
      {"Linux", "Linux"},
  }};
  std::string_view browser = first_of(ua, kBrowsers, "");
  if (browser.empty()) browser = has(ua, "Safari/") ? "Safari" : "a browser";
  return std::string(browser) + " on " + std::string(first_of(ua, kSystems, "an unknown system"));
}

}  // namespace svc::auth
