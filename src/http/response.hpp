#pragma once

#include <string>
#include <utility>
#include <vector>

namespace svc::http {

// A JSON response. The FastCGI worker writes it as a `Status:` line, headers,
// then the body.
struct Response {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static Response json(int status, std::string body) { return Response{status, std::move(body), {}}; }
};

// "200 OK", "404 Not Found", ... for the Status line.
const char* status_text(int status);

// The full CGI-style head + body for FastCGI stdout.
std::string serialize(const Response& response);

}  // namespace svc::http
