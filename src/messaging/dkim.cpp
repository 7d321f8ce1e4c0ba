// libopendkim does the canonicalisation, hashing and the header syntax; we
// feed it the header fields one by one (folded lines kept together) and the
// body, and take the finished DKIM-Signature field back.
#include "messaging/dkim.hpp"

// dkim.h is C99: it spells bool as _Bool, which C++ does not have. Same
// size and ABI, so map it for this one include.
#define _Bool bool
#include <opendkim/dkim.h>
#undef _Bool

#include <memory>
#include <string_view>
#include <vector>

namespace svc::messaging {
namespace {

constexpr std::string_view kSignatureName = "DKIM-Signature: ";

// One library handle for the process: dkim_sign() on it is safe from
// several threads (the opendkim milter shares one the same way).
DKIM_LIB* library() {
  static DKIM_LIB* lib = [] {
    DKIM_LIB* l = dkim_init(nullptr, nullptr);
    if (l != nullptr) {
      static const char* headers[std::size(kDkimSignedHeaders) + 1] = {};
      for (std::size_t i = 0; i < std::size(kDkimSignedHeaders); ++i) headers[i] = kDkimSignedHeaders[i];
      dkim_options(l, DKIM_OP_SETOPT, DKIM_OPTS_SIGNHDRS, headers, sizeof headers);
    }
    return l;
  }();
  return lib;
}

struct DkimFree {
  void operator()(DKIM* d) const { dkim_free(d); }
};

// The header fields of `head` (the part before the empty line), each with
// its continuation lines, without the final CRLF.
std::vector<std::string_view> header_fields(std::string_view head) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < head.size()) {
    std::size_t end = head.find("\r\n", start);
    while (end != std::string_view::npos && end + 2 < head.size() && (head[end + 2] == ' ' || head[end + 2] == '\t')) {
      end = head.find("\r\n", end + 2);
    }
    if (end == std::string_view::npos) end = head.size();
    out.push_back(head.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

// libopendkim's prototypes take u_char* where it only reads (it copies
// what it keeps), hence the const_cast.
unsigned char* bytes(std::string_view s) {
  return const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(s.data()));
}

bool failed(DKIM_STAT status, DKIM* d, const char* step, std::string& error) {
  if (status == DKIM_STAT_OK) return false;
  const char* detail = d != nullptr ? dkim_geterror(d) : nullptr;
  error = std::string("DKIM ") + step + ": " + (detail != nullptr ? detail : dkim_getresultstr(status));
  return true;
}

}  // namespace

std::optional<std::string> dkim_signature(const std::string& message, const DkimKey& key, std::string& error) {
  DKIM_LIB* lib = library();
  if (lib == nullptr) {
    error = "DKIM: libopendkim failed to initialise";
    return std::nullopt;
  }
  const dkim_alg_t alg = key.algorithm == "ed25519-sha256" ? DKIM_SIGN_ED25519SHA256 : DKIM_SIGN_RSASHA256;
  DKIM_STAT status = DKIM_STAT_OK;
  std::unique_ptr<DKIM, DkimFree> d(dkim_sign(lib, bytes("svc"), nullptr, bytes(key.private_pem.c_str()),
                                              bytes(key.selector), bytes(key.domain), DKIM_CANON_RELAXED,
                                              DKIM_CANON_RELAXED, alg, -1, &status));
  if (!d || failed(status, d.get(), "key", error)) {
    if (error.empty()) error = "DKIM: the key was refused";
    return std::nullopt;
  }
  const std::size_t split = message.find("\r\n\r\n");
  const std::string_view head =
      std::string_view(message).substr(0, split == std::string::npos ? message.size() : split);
  for (std::string_view field : header_fields(head)) {
    if (failed(dkim_header(d.get(), bytes(field), field.size()), d.get(), "header", error)) return std::nullopt;
  }
  if (failed(dkim_eoh(d.get()), d.get(), "headers", error)) return std::nullopt;
  if (split != std::string::npos) {
    const std::string_view body = std::string_view(message).substr(split + 4);
    if (failed(dkim_body(d.get(), bytes(body), body.size()), d.get(), "body", error)) return std::nullopt;
  }
  if (failed(dkim_eom(d.get(), nullptr), d.get(), "sign", error)) return std::nullopt;
  std::vector<unsigned char> out(8192);
  if (failed(dkim_getsighdr(d.get(), out.data(), out.size(), kSignatureName.size()), d.get(), "header", error)) {
    return std::nullopt;
  }
  // libopendkim folds with its own line ends (CRLF, or LF with
  // DKIM_LIBFLAGS_FIXCRLF off); the message needs CRLF exactly once.
  std::string field(kSignatureName);
  for (const unsigned char* p = out.data(); *p != 0; ++p) {
    if (*p == '\r') continue;
    if (*p == '\n') field += '\r';
    field += static_cast<char>(*p);
  }
  return field + "\r\n";
}

}  // namespace svc::messaging
