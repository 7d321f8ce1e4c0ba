// VAPID (RFC 8292) tokens. OpenSSL signs ECDSA in DER (SEQUENCE of two
// INTEGERs); JWS ES256 wants the fixed 64-byte r || s (RFC 7518 3.4), so the
// signature is re-encoded here.

#include "crypto/vapid.hpp"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sodium.h>

#include <cctype>
#include <charconv>
#include <memory>

#include "crypto/webpush.hpp"

namespace svc::crypto {
namespace {

constexpr std::size_t kPointSize = 65;
constexpr std::size_t kScalarSize = 32;

template <auto Fn>
struct Free {
  template <class T>
  void operator()(T* p) const {
    Fn(p);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Free<EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Free<EVP_MD_CTX_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Free<BN_clear_free>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, Free<ECDSA_SIG_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Free<OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, Free<OSSL_PARAM_free>>;

const unsigned char* u8(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string b64url(std::string_view bin) {
  std::string out(sodium_base64_ENCODED_LEN(bin.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                  '\0');
  sodium_bin2base64(out.data(), out.size(), u8(bin), bin.size(),
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.size() - 1);  // the encoded length counts the terminating NUL
  return out;
}

// The signing key, checked: scalar in range and public == private * G.
PkeyPtr load_keypair(std::string_view priv, std::string_view pub) {
  if (priv.size() != kScalarSize || pub.size() != kPointSize || pub[0] != '\x04') return nullptr;
  BnPtr d(BN_bin2bn(u8(priv), static_cast<int>(priv.size()), nullptr));
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!d || !bld ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get()) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, pub.data(),
                                        pub.size())) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) <= 0) {
    return nullptr;
  }
  PkeyPtr key(raw);
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check || EVP_PKEY_check(check.get()) <= 0) return nullptr;
  return key;
}

// ES256 over `input`: 64 bytes r || s, each left-padded to 32.
std::optional<std::string> sign_es256(EVP_PKEY* key, std::string_view input) {
  MdCtxPtr md(EVP_MD_CTX_new());
  std::size_t der_len = 0;
  if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(md.get(), nullptr, &der_len, u8(input), input.size()) != 1) {
    return std::nullopt;
  }
  std::string der(der_len, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &der_len, u8(input),
                     input.size()) != 1) {
    return std::nullopt;
  }
  const unsigned char* p = u8(der);
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

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_of(std::string_view s, bool (*ok)(unsigned char)) {
  for (char c : s) {
    if (!ok(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

}  // namespace

VapidKeys generate_vapid_keys() {
  EceKeys keys = generate_p256_keypair();
  return VapidKeys{std::move(keys.private_key), std::move(keys.public_key)};
}

std::optional<std::string> vapid_jwt(std::string_view audience_origin, std::string_view subject,
                                     long long exp, const VapidKeys& keys) {
  if (!subject.starts_with("mailto:") && !subject.starts_with("https:")) return std::nullopt;
  if (exp <= 0 || endpoint_origin(audience_origin) != audience_origin) return std::nullopt;
  PkeyPtr key = load_keypair(keys.private_key, keys.public_key);
  if (!key) return std::nullopt;

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

  std::string token = b64url(R"({"typ":"JWT","alg":"ES256"})");
  token.push_back('.');
  token += b64url(std::string_view(claims.GetString(), claims.GetSize()));
  auto signature = sign_es256(key.get(), token);
  if (!signature) return std::nullopt;
  token.push_back('.');
  token += b64url(*signature);
  return token;
}

std::string vapid_authorization_header(std::string_view jwt, std::string_view public_key_raw) {
  std::string header = "vapid t=";
  header.append(jwt).append(", k=").append(b64url(public_key_raw));
  return header;
}

std::optional<std::string> endpoint_origin(std::string_view url) {
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return std::nullopt;
  }
  const std::size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  const std::string scheme = lower(url.substr(0, sep));
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

  std::string_view host;
  std::string_view port;
  if (authority.starts_with('[')) {  // IPv6 literal
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return std::nullopt;
    if (!after.empty()) port = after.substr(1);
    if (!all_of(host.substr(1, host.size() - 2),
                [](unsigned char c) { return std::isxdigit(c) || c == ':' || c == '.'; })) {
      return std::nullopt;
    }
  } else {
    const std::size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    if (!all_of(host, [](unsigned char c) {
          return std::isalnum(c) || c == '-' || c == '.' || c == '_';
        })) {
      return std::nullopt;
    }
  }

  std::string origin = scheme + "://" + lower(host);
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
