#include "sms/sms_gateway.hpp"

#include <curl/curl.h>

#include <algorithm>

#include "core/log.hpp"
#include "core/text.hpp"

namespace svc::sms {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

class LogSmsGateway final : public SmsGateway {
 public:
  SmsResult send(const std::string& to, const std::string&) override {
    core::LogLine("info", "sms_log_driver").str("to", to).emit();
    return {true, "log driver"};
  }
};

// The gateway could not be reached or refused the message: its own log
// event (docs/operations.md), never with the number or the text.
SmsResult unavailable(const std::string& reason) {
  core::LogLine("error", "sms_gateway_unavailable").str("error", reason).emit();
  return {false, reason};
}

class HttpSmsGateway final : public SmsGateway {
 public:
  explicit HttpSmsGateway(config::SmsSettings settings) : settings_(std::move(settings)) {}

  SmsResult send(const std::string& to, const std::string& text) override {
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return {false, "curl_easy_init failed"};
    // The template is JSON by default; the escaping is also harmless for a
    // form-encoded template of digits and E.164 numbers.
    std::string body = replace_all(replace_all(settings_.body_template, "[to]", core::json_escape(to)), "[text]",
                                   core::json_escape(text));
    curl_slist* raw_headers = nullptr;
    raw_headers = curl_slist_append(raw_headers, ("Content-Type: " + settings_.content_type).c_str());
    if (!settings_.auth_header.empty()) raw_headers = curl_slist_append(raw_headers, settings_.auth_header.c_str());
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(raw_headers, curl_slist_free_all);
    CURL* h = curl.get();
    curl_easy_setopt(h, CURLOPT_URL, settings_.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, settings_.method.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout_ms));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::min(settings_.connect_timeout_ms, settings_.timeout_ms)));
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(
        h, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void*) { return size * n; });
    CURLcode rc = curl_easy_perform(h);
    if (rc != CURLE_OK) return unavailable(curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status >= 300) return unavailable("gateway answered HTTP " + std::to_string(status));
    return {true, "HTTP " + std::to_string(status)};
  }

 private:
  config::SmsSettings settings_;
};

}  // namespace

std::unique_ptr<SmsGateway> make_sms_gateway(const config::SmsSettings& settings) {
  if (settings.driver == "http") return std::make_unique<HttpSmsGateway>(settings);
  return std::make_unique<LogSmsGateway>();
}

}  // namespace svc::sms
