// VAPID (RFC 8292) tokens. OpenSSL signs ECDSA in DER (SEQUENCE of two
// INTEGERs); JWS ES256 wants the fixed 64-byte r || s (RFC 7518 3.4), so the
// signature is re-encoded here.

#include "crypto/vapid.hpp"

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <charconv>

#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"
#include "crypto/p256.hpp"

namespace svc::crypto {
namespace {

using p256::kScalarSize;

// ES256 over `input`: 64 bytes r || s, each left-padded to 32.
std::optional<std::string> sign_es256(EVP_PKEY* key, std::string_view input) {
  MdCtxPtr md(EVP_MD_CTX_new());
  std::size_t der_len = 0;
  if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(md.get(), nullptr, &der_len, byte_ptr(input), input.size()) != 1) {
    return std::nullopt;
  }
  std::string der(der_len, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &der_len, byte_ptr(input), input.size()) !=
      1) {
    return std::nullopt;
  }
  const unsigned char* p = byte_ptr(der);
  EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_len)));
  if (!sig) return std::nullopt;
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string raw(2 * kScalarSize, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(r, out, kScalarSize) != kScalarSize ||
      BN_bn2binpad(s, out + kScalarSize, kScalarSize) != kScalarSize) {
    return std::nullopt;
  }
  return raw;
}

// The characters an origin's host may have: an IPv6 literal in brackets, or
// a name / IPv4 address. Never empty.
bool is_origin_host(std::string_view host) {
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (host.empty()) return false;
  for (char ch : host) {
    const auto c = static_cast<unsigned char>(ch);
    const bool ok =
        bracketed ? std::isxdigit(c) || c == ':' || c == '.' : std::isalnum(c) || c == '-' || c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

VapidKeys generate_vapid_keys() {
  PkeyPtr key = p256::generate();
  return VapidKeys{p256::private_scalar(key.get()), p256::public_point(key.get())};
}

struct VapidSigner::Key {
  PkeyPtr pkey;
};

std::optional<VapidSigner> VapidSigner::load(const VapidKeys& keys) {
  PkeyPtr key = p256::load_keypair(keys.private_key, keys.public_key);
  if (!key) return std::nullopt;
  return VapidSigner(std::make_shared<const Key>(Key{std::move(key)}));
}

std::optional<std::string> VapidSigner::jwt(std::string_view audience_origin, std::string_view subject,
                                            long long exp) const {
  if (!subject.starts_with("mailto:") && !subject.starts_with("https:")) return std::nullopt;
  if (exp <= 0 || endpoint_origin(audience_origin) != audience_origin) return std::nullopt;

  rapidjson::StringBuffer claims;
  rapidjson::Writer<rapidjson::StringBuffer> w(claims);
  w.StartObject();
  w.Key("aud");
  w.String(audience_origin.data(), static_cast<rapidjson::SizeType>(audience_origin.size()));
  w.Key("exp");
  w.Int64(exp);
  w.Key("sub");
  w.String(subject.data(), static_cast<rapidjson::SizeType>(subject.size()));
  w.EndObject();

  std::string token = base64url_encode(R"({"typ":"JWT","alg":"ES256"})");
  token.push_back('.');
  token += base64url_encode(std::string_view(claims.GetString(), claims.GetSize()));
  auto signature = sign_es256(key_->pkey.get(), token);
  if (!signature) return std::nullopt;
  token.push_back('.');
  token += base64url_encode(*signature);
  return token;
}

std::optional<std::string> vapid_jwt(std::string_view audience_origin, std::string_view subject, long long exp,
                                     const VapidKeys& keys) {
  if (!subject.starts_with("mailto:") && !subject.starts_with("https:")) return std::nullopt;
  if (exp <= 0 || endpoint_origin(audience_origin) != audience_origin) return std::nullopt;
  auto signer = VapidSigner::load(keys);
  return signer ? signer->jwt(audience_origin, subject, exp) : std::nullopt;
}

std::string vapid_authorization_header(std::string_view jwt, std::string_view public_key_raw) {
  std::string header = "vapid t=";
  header.append(jwt).append(", k=").append(base64url_encode(public_key_raw));
  return header;
}

std::optional<std::string> endpoint_origin(std::string_view url) {
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return std::nullopt;
  }
  const std::size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  const std::string scheme = core::ascii_lower(url.substr(0, sep));
  unsigned default_port = 0;
  if (scheme == "https") {
    default_port = 443;
  } else if (scheme == "http") {
    default_port = 80;
  } else {
    return std::nullopt;
  }
  std::string_view authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);  // user info is not part of the origin
  }
  // core::url_host splits host from port as the rest of the service does
  // (lower case, an IPv6 literal keeps its brackets); it refuses user info,
  // which is why that was dropped first. What follows the host is the port.
  const std::string host = core::url_host(scheme + "://" + std::string(authority));
  if (!is_origin_host(host)) return std::nullopt;
  std::string_view port = authority.substr(host.size());
  if (!port.empty() && !port.starts_with(':')) return std::nullopt;  // "[::1]x"
  if (!port.empty()) port.remove_prefix(1);

  std::string origin = scheme + "://" + host;
  if (!port.empty()) {  // "host:" with no digits means the default port
    unsigned value = 0;
    const auto [end, err] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (err != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return std::nullopt;
    }
    if (value != default_port) origin += ":" + std::to_string(value);
  }
  return origin;
}

}  // namespace svc::crypto
