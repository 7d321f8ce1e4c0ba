#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace svc::http {

struct FieldError {
  std::string field;
  std::string message;
};

// The one exception type a handler throws for anything the client should see.
// Only the dispatcher catches it (and everything else); it carries the final
// HTTP status and JSON body.
class ApiError : public std::exception {
 public:
  ApiError(int status, std::string body) : status_(status), body_(std::move(body)) {}
  // A 429 whose body carries retry_after: the dispatcher also sends it as
  // the Retry-After header (RFC 9110 §10.2.3), at least 1.
  ApiError(std::string body, long long retry_after) : status_(429), body_(std::move(body)), retry_after_(retry_after) {}
  int status() const { return status_; }
  const std::string& body() const { return body_; }
  // Seconds for the Retry-After header of a 429; 0 = none given (then 1).
  long long retry_after() const { return retry_after_; }
  const char* what() const noexcept override { return body_.c_str(); }
  // Headers the reply carries beside the dispatcher's own (an OAuth 2.0
  // error's WWW-Authenticate, an HTML page's Content-Type and policy).
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  ApiError&& with_header(std::string name, std::string value) && {
    headers_.emplace_back(std::move(name), std::move(value));
    return std::move(*this);
  }

  // {"status":"Failed","message":message}
  static ApiError failed(int status, std::string_view message);
  // 429 {"status":"Failed","message":message,"retry_after":retry_after}: the
  // login throttle and the SMS resend rule (retry_after in whole seconds),
  // with the header Retry-After: retry_after.
  static ApiError too_many(std::string_view message, long long retry_after);
  // {"status":"Error","message":message} (the messaging endpoints' shape)
  static ApiError error(int status, std::string_view message);
  // 400 {"status":"Failed","message":"Validation error","errors":[{field,message}...]}
  static ApiError validation(const std::vector<FieldError>& errors);
  // The body as one line for a person (svc-admin prints it): the message,
  // then each field's "field: message".
  std::string text() const;

  static ApiError validation(std::string field, std::string message) {
    return validation(std::vector<FieldError>{{std::move(field), std::move(message)}});
  }

 private:
  int status_;
  std::string body_;
  long long retry_after_ = 0;
  std::vector<std::pair<std::string, std::string>> headers_;
};

// The spec's generic message for unexpected failures.
inline constexpr const char* kGenericError = "An error occurred while processing your request";

}  // namespace svc::http
