#pragma once

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <string_view>

namespace svc::http {

// One HTTP request as nginx hands it over FastCGI. Header names are lower-case
// with '-' separators ("x-site-id"); a header sent on several lines has one
// entry, its values joined with ", ". The body is read by the dispatcher only
// after the route is known and only up to the route's limit; `json` is parsed
// from it for routes that take a JSON body (an object, or the dispatcher has
// already answered 400).
struct Request {
  std::string method;
  std::string path;  // without the query string
  std::string query;
  std::string request_id;  // nginx $request_id, or one made up by the worker
  std::string remote_addr;
  long long content_length = -1;  // -1 when absent
  std::map<std::string, std::string> headers;
  std::string body;
  rapidjson::Document json;

  // "" when absent.
  std::string_view header(std::string_view name) const {
    auto it = headers.find(std::string(name));
    return it == headers.end() ? std::string_view() : std::string_view(it->second);
  }
  std::string_view user_agent() const { return header("user-agent"); }
};

}  // namespace svc::http
