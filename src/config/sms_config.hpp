#pragma once
// [sms]: the SMS gateway driver (sms/sms_gateway.hpp) and, for the http
// driver, the request it sends. Every key is documented in
// docs/configuration.md with its default.

#include <string>

namespace svc::config {

class Reader;

struct SmsSettings {
  std::string driver = "log";  // log | http
  std::string url;
  std::string method = "POST";
  std::string auth_header;  // full header line, e.g. "Authorization: Bearer xyz"
  std::string content_type = "application/json";
  std::string body_template = R"({"to":"[to]","text":"[text]"})";
  std::string message = "Your verification code is [code]";
  int timeout_ms = 5000;
  int connect_timeout_ms = 3000;  // capped by timeout_ms
};

// Reads and checks [sms]; throws ConfigError naming the first bad key.
void read_sms(Reader& r, SmsSettings& sms);

}  // namespace svc::config
