#include "fcgi/front_secret.hpp"

#include <sodium.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace svc::fcgi {
namespace {

bool is_base64url(std::string_view s) {
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// BLAKE2b-256 of `text`: both sides of the comparison get the same length.
void digest(std::string_view text, unsigned char (&out)[crypto_generichash_BYTES]) {
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
}

}  // namespace

std::string load_front_secret(const std::string& path) {
  const std::string key = "[server] front_secret_file: ";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        key + "cannot read " + path +
        " (the package's postinst writes it and nginx's include; docs/deploy.md, \"The front secret\")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  if (!secret.empty() && secret.back() == '\n') secret.pop_back();
  if (secret.size() < 43 || secret.size() > 256 || !is_base64url(secret)) {
    sodium_memzero(secret.data(), secret.size());
    throw std::runtime_error(key + path + " must hold one line of 43 to 256 base64url characters");
  }
  return secret;
}

bool front_secret_matches(std::string_view expected, const char* given) {
  unsigned char want[crypto_generichash_BYTES];
  unsigned char got[crypto_generichash_BYTES];
  digest(expected, want);
  digest(given ? std::string_view(given) : std::string_view(), got);
  // An absent parameter hashes like an empty one; expected is never empty.
  const bool same = sodium_memcmp(want, got, sizeof want) == 0;
  return same && given != nullptr && !expected.empty();
}

}  // namespace svc::fcgi
