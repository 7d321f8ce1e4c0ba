#include "config/sms_config.hpp"

#include "config/reader.hpp"

namespace svc::config {

void read_sms(Reader& r, SmsSettings& sms) {
  r.one_of("sms.driver", sms.driver, {"log", "http"});
  r.str("sms.url", sms.url);
  r.one_of("sms.method", sms.method, {"POST", "PUT", "GET"});
  r.str("sms.auth_header", sms.auth_header);
  r.str("sms.content_type", sms.content_type);
  r.str("sms.body_template", sms.body_template);
  r.str("sms.message", sms.message);
  r.integer("sms.timeout_ms", sms.timeout_ms, 100, 120000);
  r.integer("sms.connect_timeout_ms", sms.connect_timeout_ms, 100, 120000);
  if (sms.driver == "http" && sms.url.empty()) {
    throw ConfigError("configuration key [sms] url is required when [sms] driver = http");
  }
}

}  // namespace svc::config
