#pragma once
// The service behind POST /message/notification: from one request of an
// authenticated site to one queued e-mail (or a reason why none was queued).

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "messaging/template.hpp"

namespace svc::messaging {

// The request's fields, read and shape-checked by the handler.
struct Notification {
  std::string event;
  std::string email;                       // recipients; "" = none; "NONE" = BCC only
  std::optional<std::string> email_field;  // setEmailField: the merge value holding the recipients
  std::string table;                       // record link label ("" = none), a plain identifier
  long long master_id = 0;                 // record id (0 = none); also the :master_id of SQL merge
  MergeValues data;
  std::string sql;     // SQL field: a merge query's name or raw SELECT ("" = none)
  std::string locale;  // BCP 47, normalised ("" = the template's default); falls back de-at -> de -> default
  std::string request_id;
};

// Outcomes the API answers with 200: Queued → {"status":"Success"}, the
// others → {"status":"Failed"} with a message (see the handler).
enum class NotifyOutcome { Queued, Disabled, NoTemplate, NoRecipient };

// Checks the site may send, finds its enabled template for the event, merges
// `data` and (when `sql` is set) the first row of the site's merge query into
// it, resolves the recipients (email or setEmailField; the site's email_cc /
// email_bcc users; the template's bcc; for "NONE" only the two BCC sources,
// NoRecipient when both are empty) and queues the rendered mail
// (messaging::enqueue, linked to table/master_id when both are set).
// SQL merge runs only on ctx.merge_db (the read-only [database.merge]
// account), never on ctx.db: without that account every `sql` is refused.
// Throws http::ApiError (400 Validation error) on field SQL (merge not
// configured, unknown query name, raw SQL not allowed, query failed), on the
// field that brought an invalid address (email, setEmailField, email_cc,
// email_bcc, bcc), and when the recipients exceed 2048 bytes.
NotifyOutcome notify(core::Context& ctx, const db::Site& site, const Notification& request);

}  // namespace svc::messaging
