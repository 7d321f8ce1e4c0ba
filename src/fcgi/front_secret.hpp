#pragma once
// The front secret: proof that a FastCGI request came from our nginx, not
// from another local process that can open the socket (on a stock Debian
// LAMP host PHP-FPM runs as www-data, the group the socket admits).
//
// nginx sends it as the FastCGI parameter SVC_FRONT_SECRET from an include
// only root can read (/etc/nginx/svc-front-secret.conf, nginx reads its
// configuration as root); svc-fcgi reads the same value from
// [server] front_secret_file (readable by the svc user only). A request
// without it, or with another value, is refused before anything else of it
// is looked at (docs/deploy.md, "The front secret").

#include <string>
#include <string_view>

namespace svc::fcgi {

// The FastCGI parameter nginx sets.
inline constexpr const char* kFrontSecretParam = "SVC_FRONT_SECRET";

// Reads the secret from `path`: one line of 43 to 256 base64url characters
// (32+ random bytes; a trailing newline is ignored). Throws
// std::runtime_error naming [server] front_secret_file and the path when
// the file cannot be read or holds anything else. Never puts the file's
// content in the message.
std::string load_front_secret(const std::string& path);

// True when `given` (nullptr = parameter absent) equals `expected`.
// Constant time in the content of both: it compares fixed-size hashes, so
// neither a prefix nor the length of the secret shows in the timing.
// REQUIRES: sodium_init() has run.
bool front_secret_matches(std::string_view expected, const char* given);

}  // namespace svc::fcgi
