#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/routes.hpp"

namespace svc::http {

// Where the dispatcher reads the request body from (FastCGI stdin in
// production, a string in tests and the fuzzer).
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Reads up to max bytes; returns fewer only at the end of the body.
  virtual std::string read(size_t max) = 0;
};

class StringBody final : public BodySource {
 public:
  explicit StringBody(std::string body) : body_(std::move(body)) {}
  std::string read(size_t max) override {
    std::string out = body_.substr(pos_, max);
    pos_ += out.size();
    return out;
  }

 private:
  std::string body_;
  size_t pos_ = 0;
};

// Routes one request through `routes` (the API's table is app::routes()):
// 404 / 405, then 401 (site header; site routes only), then 413 / 400
// (malformed JSON) are decided here from the table, in that order, before the
// handler runs and before a large body is buffered; a site route reads no
// body for a caller that is no site. The only catch site: ApiError becomes its
// response; anything else is logged with the request id and answered 500 with
// the spec's generic message. Never throws.
Response dispatch(std::span<const Route> routes, Request& request, BodySource& body, core::Context& ctx);

}  // namespace svc::http
