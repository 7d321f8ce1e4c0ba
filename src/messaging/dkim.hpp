#pragma once
// DKIM signatures (RFC 6376, Ed25519 per RFC 8463) over a message that
// build_mime produced, with Debian's libopendkim (docs/decisions.md says why
// not OpenSSL plus our own canonicalisation). Thread-safe: one library
// handle shared by every SMTP session.

#include <optional>
#include <string>

namespace svc::messaging {

struct DkimKey {
  std::string domain;       // d=, the site's domain
  std::string selector;     // s=
  std::string algorithm;    // "rsa-sha256" or "ed25519-sha256"
  std::string private_pem;  // PKCS#8 PEM
};

// The headers signed, in h= order (those the message has): the ones a
// receiver shows or that change how the body reads, and the one-click
// unsubscribe pair (RFC 8058 §4: a receiver honours it only when signed).
inline constexpr const char* kDkimSignedHeaders[] = {
    "From",       "To",           "Cc",           "Subject",          "Date",
    "Message-ID", "MIME-Version", "Content-Type", "List-Unsubscribe", "List-Unsubscribe-Post"};

// A "DKIM-Signature: ..." header field (folded, ending in CRLF) for
// `message` (CRLF line endings, headers, empty line, body), canonicalisation
// relaxed/relaxed. nullopt, with `error` set, when the key or the library
// refuses; the message is then not to be sent unsigned (see SmtpMailer).
std::optional<std::string> dkim_signature(const std::string& message, const DkimKey& key, std::string& error);

}  // namespace svc::messaging
