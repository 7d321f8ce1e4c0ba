#pragma once
// The device a sign-in comes from, as the new-device mail tells devices
// apart (docs/decisions.md "Issue 48: devices are known by a cookie"): a
// random value in the HttpOnly cookie svc_device that svc sets on a sign-in
// reply, not the User-Agent text (which anyone can copy from a request of
// the owner's). Sessions keep its SHA-256 (svc_sessions.device_key, sql/035).
// And the device's name for people: a few words from a fixed vocabulary
// ("Safari on iPhone"), never the User-Agent's own text.

#include <string>
#include <string_view>

#include "core/context.hpp"
#include "http/request.hpp"

namespace svc::auth {

inline constexpr const char* kDeviceCookie = "svc_device";
// How long a device stays known without a sign-in (the browsers' cap).
inline constexpr long long kDeviceCookieSeconds = 400LL * 86400;

struct Device {
  std::string key;         // SHA-256 hex of the cookie's value
  std::string set_cookie;  // the Set-Cookie value for a new device; "" when the request carried one
};

// The request's device: its svc_device cookie when it carries a well-formed
// one (22 base64url characters), else a new random one to set.
Device device_of(const core::Context& ctx, const http::Request& request);

// "<browser> on <system>" from the user agent, each from a fixed list
// ("Chrome", "Edge", "Firefox", "Safari", "Opera", "Samsung Internet";
// "iPhone", "iPad", "Android", "Windows", "macOS", "ChromeOS", "Linux"),
// "a browser" / "an unknown system" for anything else. At most 40 bytes.
std::string device_name(std::string_view user_agent);

}  // namespace svc::auth
