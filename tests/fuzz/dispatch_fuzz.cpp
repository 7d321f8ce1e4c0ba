// Bytes straight into request processing, no socket: the input is a small
// request transcript
//   METHOD SP PATH LF
//   name: value LF        (headers, lower-cased names; "content-length" sets
//   ...                    the declared length, else it is the body's size)
//   LF
//   body
// run through http::dispatch with the API's route table and a Context whose
// database is unreachable. Every reply must be a JSON object with a "status"
// member and a status code the API uses, and never mention the database or an
// exception; a violation aborts, so libFuzzer keeps the input.
#include <rapidjson/document.h>
#include <sodium.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "../unit/offline_context.hpp"
#include "app/routes.hpp"
#include "core/text.hpp"
#include "http/dispatch.hpp"

namespace {

svc::testing::OfflineContext* offline = nullptr;

std::string_view next_line(std::string_view& rest) {
  const size_t lf = rest.find('\n');
  std::string_view line = rest.substr(0, lf);
  rest = lf == std::string_view::npos ? std::string_view() : rest.substr(lf + 1);
  return line;
}

// Reads the transcript above into `request`; returns the body.
std::string parse_transcript(std::string_view input, svc::http::Request& request) {
  std::string_view rest = input;
  const std::string_view first = next_line(rest);
  const size_t space = first.find(' ');
  request.method = std::string(first.substr(0, space));
  request.path = space == std::string_view::npos ? "" : std::string(first.substr(space + 1));
  std::string_view declared;
  for (std::string_view line = next_line(rest); !line.empty(); line = next_line(rest)) {
    const size_t colon = line.find(':');
    std::string name = svc::core::ascii_lower(line.substr(0, colon));
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (name == "content-length") declared = value;
    request.headers[name] = std::string(value);
  }
  // Without a Content-Type line the input means JSON, so the corpus reaches
  // the parser rather than stopping at the 415.
  request.headers.emplace("content-type", "application/json");
  std::string body(rest);
  request.content_length = static_cast<long long>(body.size());
  if (!declared.empty()) {
    auto n = svc::core::parse_id(declared);
    request.content_length = n ? *n : -1;
  }
  return body;
}

[[noreturn]] void fail(const char* why, const svc::http::Response& res) {
  std::fprintf(stderr, "dispatch_fuzz: %s: status %d body %.300s\n", why, res.status, res.body.c_str());
  std::abort();
}

// The raw input of the current run: a reply may quote what the client sent
// (a duplicate member's name, say), and a word the client wrote is no leak.
std::string_view current_input;

void check_leaks(const svc::http::Response& res) {
  for (const char* word : {"mysql", "xception"}) {
    if (res.body.find(word) != std::string::npos && current_input.find(word) == std::string_view::npos)
      fail("reply leaks an internal error", res);
  }
}

void check_reply(const svc::http::Request& request, const svc::http::Response& res) {
  static const std::set<int> kKnown{200, 302, 303, 400, 401, 404, 405, 409, 410, 413, 415, 429, 500, 503};
  // A redirect (the OpenID Connect flow's) names where it goes and has no body.
  if (res.status == 302 || res.status == 303) {
    bool located = false;
    for (const auto& [name, value] : res.headers) located = located || (name == "Location" && !value.empty());
    if (!located) fail("redirect without a Location", res);
    return;
  }
  if (!kKnown.count(res.status)) fail("unexpected status", res);
  // GET /metrics answers in the Prometheus text format, the one reply that
  // declares a content type of its own; everything else is JSON.
  // /mail/unsubscribe answers with an HTML page (a person follows the link),
  // and so do the OpenID Connect provider's browser routes (/oidc/{site}/...,
  // /auth/oidc/...: error, sign-in, consent and logout pages).
  for (const auto& [name, value] : res.headers) {
    if (name == "Content-Type" && value.rfind("text/plain", 0) == 0 && res.status == 200) {
      if (res.body.rfind("# HELP ", 0) != 0) fail("text reply that is not the metrics exposition", res);
      return;
    }
    if (name == "Content-Type" && value.rfind("text/html", 0) == 0) {
      const bool page_route = request.path == "/mail/unsubscribe" || request.path.rfind("/oidc/", 0) == 0 ||
                              request.path.rfind("/auth/oidc/", 0) == 0;
      if (!page_route) fail("HTML reply from a route that serves no page", res);
      if (res.body.rfind("<!DOCTYPE html>", 0) != 0 && res.body.rfind("<!doctype html>", 0) != 0 &&
          res.body.rfind("<html", 0) != 0)
        fail("HTML reply that is not a page", res);
      check_leaks(res);
      return;
    }
  }
  rapidjson::Document doc;
  doc.Parse(res.body.data(), res.body.size());
  if (doc.HasParseError() || !doc.IsObject()) fail("reply is not a JSON object", res);
  // The OpenID Connect endpoints answer in the standards' shapes (RFC 6749
  // "error", discovery, JWKS, tokens, userinfo, introspection), not svc's.
  const bool oauth_shape = request.path.rfind("/oidc/", 0) == 0;
  if (!oauth_shape && (!doc.HasMember("status") || !doc["status"].IsString()))
    fail("reply without a status string", res);
  check_leaks(res);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (sodium_init() < 0) std::abort();
  offline = new svc::testing::OfflineContext();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  svc::http::Request request;
  request.request_id = "fuzz";
  current_input = std::string_view(reinterpret_cast<const char*>(data), size);
  std::string body = parse_transcript(current_input, request);
  svc::http::StringBody source(std::move(body));
  check_reply(request, svc::http::dispatch(svc::app::routes(), request, source, offline->ctx));
  return 0;
}
