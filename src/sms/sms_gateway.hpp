#pragma once

#include <memory>
#include <string>

#include "config/config.hpp"

namespace svc::sms {

struct SmsResult {
  bool ok = false;
  std::string detail;  // for logs: gateway status or error, never the message text
};

// Sends one text message. Implementations must not log the text (it holds a code).
class SmsGateway {
 public:
  virtual ~SmsGateway() = default;
  virtual SmsResult send(const std::string& to, const std::string& text) = 0;
};

// Builds the configured driver: "log" (development: logs that a message was
// sent, to whom, never the text) or "http" (libcurl to [sms] url).
std::unique_ptr<SmsGateway> make_sms_gateway(const config::SmsSettings& settings);

}  // namespace svc::sms
