#pragma once
// The new-device mail (site set --new-device-mail on; docs/decisions.md
// "Sessions: the new-device mail"): a sign-in from a device (its device
// cookie) the user's sessions have not shown in 90 days mails `new-sign-in` with the time,
// device and network and a "this wasn't me" link. The link is [auth]
// not_me_page + "#token=…" (plus what the page shows): the token is a JWT
// (typ "not-me", aud "svc-not-me") signed with a key derived from [keys]
// jwt for this purpose only, naming the user, auth table, site and the
// session (`sid`) of that sign-in, valid 7 days, spent once (svc_sessions
// .not_me_at). Only the page's button POSTs it (auth/account/not_me.cpp):
// opening the link changes nothing.

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/session_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// How far back the user's sessions count as having shown a device.
inline constexpr long long kKnownDeviceSeconds = 90LL * 86400;
// Lifetime of a "this wasn't me" link.
inline constexpr long long kNotMeTtlSeconds = 7LL * 86400;

// The site whose new-device mail the sign-in about to open `row` (not
// inserted yet) sends, or nullopt: the site of row.site_id must have
// new_device_mail on, be active and send e-mail (read through
// ctx.site_cache, so a site with it off costs no query), the user must have
// had a session before (a first sign-in is no new device), and none of the
// user's sessions may have been opened on row.device_key (the device cookie,
// auth/session/device.hpp) and seen in kKnownDeviceSeconds (one read of
// svc_sessions).
std::optional<db::Site> new_device_site(core::Context& ctx, const db::SessionRow& row);

// Queues `new-sign-in` about session `row` to `user` (the site's enabled
// template of that event in the user's language, else the built-in one;
// high priority) with [time] (UTC), [device] (device_name of the user agent),
// [network] (the IP), [link] and [days] (how long the link lives), and an
// audit row new_device_mail. No mail when [auth] not_me_page is unset (logs
// not_me_page_missing). Database errors propagate.
void queue_new_device_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::User& user,
                           const db::SessionRow& row);

// What a valid "this wasn't me" token names.
struct NotMeClaim {
  std::string table;  // one of [auth] tables
  long long user_id = 0;
  long long site_id = 0;
  std::string sid;  // the session of the sign-in the mail was about
};

// Checks a "this wasn't me" token (signature under its own key, typ, aud,
// expiry, a table of [auth] tables, a user id and a session id). nullopt
// when any fails. Reads nothing; whether it was spent is the caller's check.
std::optional<NotMeClaim> verify_not_me_token(const core::Context& ctx, const std::string& token);

}  // namespace svc::auth
