#include "http/cookies.hpp"

namespace svc::http {

std::string request_cookie(const Request& request, std::string_view name) {
  std::string_view header = request.header("cookie");
  while (!header.empty()) {
    const size_t semi = header.find(';');
    std::string_view item = header.substr(0, semi);
    header = semi == std::string_view::npos ? std::string_view() : header.substr(semi + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == name) return std::string(item.substr(eq + 1));
  }
  return "";
}

std::string set_cookie(std::string_view name, std::string_view value, long long max_age, bool secure) {
  std::string out = std::string(name) + "=" + std::string(value) + "; Path=/; HttpOnly; SameSite=Lax";
  if (max_age >= 0) out += "; Max-Age=" + std::to_string(max_age);
  if (secure) out += "; Secure";
  return out;
}

}  // namespace svc::http
