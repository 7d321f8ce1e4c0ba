#include "http/response.hpp"

namespace svc::http {

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string serialize(const Response& response) {
  std::string out;
  out.reserve(128 + response.body.size());
  out += "Status: ";
  out += std::to_string(response.status);
  out += ' ';
  out += status_text(response.status);
  // JSON unless the response names its own type (GET /metrics); never
  // stored unless it names its own caching (GET /.well-known/jwks.json).
  bool typed = false;
  bool cached = false;
  for (const auto& header : response.headers) {
    typed = typed || header.first == "Content-Type";
    cached = cached || header.first == "Cache-Control";
  }
  out += typed ? "\r\n" : "\r\nContent-Type: application/json; charset=utf-8\r\n";
  if (!cached) out += "Cache-Control: no-store\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  out += response.body;
  return out;
}

}  // namespace svc::http
