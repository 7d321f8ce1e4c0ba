// One-click unsubscribe (RFC 8058). The link in a bulk mail's
// List-Unsubscribe carries a signed token naming the site and the address
// (mail_tags.hpp). A mailbox provider POSTs "List-Unsubscribe=One-Click" to
// it; a person who opens it gets a page with a button that POSTs the same.
// A GET never changes anything: mail scanners follow links.
#include <string>

#include "core/log.hpp"
#include "db/site_repo.hpp"
#include "db/suppression_repo.hpp"
#include "messaging/handlers.hpp"
#include "messaging/mail_tags.hpp"
#include "messaging/template.hpp"
#include "webhooks/events.hpp"

namespace svc::messaging {
namespace {

// The value of `t` in the query string. Tokens are base64url and '.', so
// nothing in one is percent-encoded.
std::string token_param(const std::string& query) {
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    if (query.compare(start, 2, "t=") == 0) return query.substr(start + 2, end - start - 2);
    start = end + 1;
  }
  return "";
}

http::Response page(int status, const std::string& title, const std::string& body_html) {
  http::Response r;
  r.status = status;
  r.body =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      title +
      "</title><style>body{font-family:sans-serif;max-width:32em;margin:3em auto;padding:0 1em}"
      "button{font-size:1em;padding:.5em 1em}</style></head><body><h1>" +
      title + "</h1>" + body_html + "</body></html>\n";
  r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  return r;
}

http::Response invalid_link() {
  return page(400, "Invalid link",
              "<p>This unsubscribe link is not valid. Please use the link of a recent e-mail.</p>");
}

// The token's target when it verifies and names an existing site.
std::optional<UnsubscribeTarget> target(const http::Request& request, core::Context& ctx) {
  auto t = open_unsubscribe_token(token_param(request.query), ctx.config.keys.mail_key);
  if (!t || !db::SiteRepo(ctx.db).find(t->site_id)) return std::nullopt;
  return t;
}

}  // namespace

http::Response unsubscribe_page(const http::Request& request, core::Context& ctx) {
  const auto t = target(request, ctx);
  if (!t) return invalid_link();
  const MergeValues values = {{"address", t->address}, {"t", token_param(request.query)}};
  return page(200, "Unsubscribe",
              merge_html("<p>Stop newsletters and other bulk mail to <strong>[address]</strong>? Mail about your "
                         "account (password resets, sign-in codes) still arrives.</p>"
                         "<form method=\"post\" action=\"?t=[t]\">"
                         "<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">"
                         "<button type=\"submit\">Unsubscribe</button></form>",
                         values));
}

http::Response unsubscribe(const http::Request& request, core::Context& ctx) {
  const auto t = target(request, ctx);
  if (!t) return invalid_link();
  bool fresh = false;
  webhooks::change_with_event(ctx.db, t->site_id, "message.unsubscribed", db::user_data("", 0, t->address), [&] {
    fresh = db::SuppressionRepo(ctx.db).add(t->site_id, t->address, "unsubscribe", "one-click");
    return fresh;  // a second click: no second event
  });
  core::LogLine("info", "unsubscribed")
      .str("request_id", request.request_id)
      .num("site_id", t->site_id)
      .flag("new", fresh)
      .emit();
  return page(200, "Unsubscribed",
              merge_html("<p><strong>[address]</strong> will get no more bulk mail from this sender.</p>",
                         {{"address", t->address}}));
}

}  // namespace svc::messaging
