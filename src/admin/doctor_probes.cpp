#include "admin/doctor_probes.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace svc::admin {
namespace {

using CurlPtr = std::unique_ptr<CURL, void (*)(CURL*)>;

// CURLOPT_CONNECT_ONLY stops after the protocol's own connect phase: for
// SMTP that is the greeting, EHLO, STARTTLS and AUTH; for HTTP, TCP and TLS.
ProbeResult connect_only(CURL* h, const std::string& what) {
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = curl_easy_perform(h);
  if (rc != CURLE_OK) return {false, what + ": " + (error[0] ? error : curl_easy_strerror(rc))};
  return {true, what + " answered"};
}

std::string smtp_url(const config::SmtpSettings& smtp) {
  const std::string scheme = smtp.security == "tls" ? "smtps://" : "smtp://";
  const bool v6 = smtp.host.find(':') != std::string::npos;
  // The URL's path is the EHLO name (curl's convention).
  return scheme + (v6 ? "[" + smtp.host + "]" : smtp.host) + ":" + std::to_string(smtp.port) + "/" + smtp.helo_name;
}

int connect_unix(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -ENOENT;
  if (!S_ISSOCK(st.st_mode)) return -ENOTSOCK;
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return -ENAMETOOLONG;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  const int err = errno;
  ::close(fd);
  return rc == 0 ? 0 : -err;
}

// host:port or :port (loopback); a blocking connect bounded by poll().
int connect_tcp(const std::string& address, int timeout_seconds) {
  const size_t colon = address.rfind(':');
  const std::string host = colon == 0 ? "127.0.0.1" : address.substr(0, colon);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), address.substr(colon + 1).c_str(), &hints, &found) != 0 || !found) return -EINVAL;
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, freeaddrinfo);
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  int err = 0;
  if (::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      err = ::poll(&p, 1, timeout_seconds * 1000) == 1 ? 0 : ETIMEDOUT;
      socklen_t len = sizeof err;
      if (err == 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
  }
  ::close(fd);
  return -err;
}

}  // namespace

ProbeResult probe_smtp(const config::SmtpSettings& smtp, int timeout_seconds) {
  CurlPtr curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return {false, "curl_easy_init failed"};
  CURL* h = curl.get();
  const std::string url = smtp_url(smtp);
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(timeout_seconds));
  curl_easy_setopt(h, CURLOPT_TIMEOUT, static_cast<long>(timeout_seconds));
  if (smtp.security == "starttls") curl_easy_setopt(h, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, smtp.verify_peer ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, smtp.verify_peer ? 2L : 0L);
  if (smtp.auth != "none") {
    curl_easy_setopt(h, CURLOPT_USERNAME, smtp.username.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, smtp.password.c_str());
    curl_easy_setopt(h, CURLOPT_LOGIN_OPTIONS, smtp.auth == "login" ? "AUTH=LOGIN" : "AUTH=PLAIN");
  }
  const std::string what = smtp.host + ":" + std::to_string(smtp.port) + " (" + smtp.security + ")";
  return connect_only(h, what);
}

ProbeResult probe_url(const std::string& url, int timeout_seconds) {
  CurlPtr curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return {false, "curl_easy_init failed"};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(timeout_seconds));
  curl_easy_setopt(h, CURLOPT_TIMEOUT, static_cast<long>(timeout_seconds));
  // Only the scheme, host and port are shown: a path may carry a token.
  CURLU* u = curl_url();
  std::string what = "gateway";
  if (u && curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* text = nullptr;
    if (curl_url_set(u, CURLUPART_PATH, "/", 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_QUERY, nullptr, 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_USER, nullptr, 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_PASSWORD, nullptr, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_URL, &text, 0) == CURLUE_OK) {
      what = text;
      curl_free(text);
    }
  }
  curl_url_cleanup(u);
  return connect_only(h, what);
}

ProbeResult probe_socket(const std::string& address, int timeout_seconds) {
  const bool is_path = address.find('/') != std::string::npos;
  const int rc = is_path ? connect_unix(address) : connect_tcp(address, timeout_seconds);
  if (rc == 0) return {true, address + " accepts connections"};
  return {false, address + ": " + std::strerror(-rc)};
}

}  // namespace svc::admin
