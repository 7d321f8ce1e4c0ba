#pragma once
// Renders one e-mail into an outbox entry: the one place that decides the
// sender, subject line and body of every mail the API queues
// (/message/notification and the password-reset flow). Pure: no I/O, safe
// from any thread; messaging::enqueue stores the result.

#include <string>
#include <vector>

#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "messaging/template.hpp"

namespace svc::messaging {

// Where the mail goes. Each entry is one address (or, for a list an admin
// stored, one comma-separated list); the caller has validated or
// control-stripped every entry, so none can carry CR/LF.
struct Recipients {
  std::vector<std::string> to;  // empty = BCC only
  std::vector<std::string> cc;
  std::vector<std::string> bcc;
};

// The record a mail is about (svc_related link), or none.
struct RecordLink {
  std::string table;  // "" = none; a plain identifier, stored as a label, never spliced
  long long record_id = 0;
};

// The outbox entry for template `tmpl` of `site` merged with `values`:
//   from     the template's sender, else the site's email_from (controls stripped)
//   subject  tmpl.subject merged as one header line (merge_plain_line), cut to
//            998 bytes of valid UTF-8 (the column's size and RFC 5322's line limit)
//   body     tmpl.content merged as HTML (merge_html)
//   recipient, cc, bcc  each list joined with ","
//   priority high for the account events ("password-reset", "password-changed",
//            "email-code", "verify-email", "new-sign-in"),
//            else the template's (normal or bulk)
// plus the template's id and event, `request_id` and `link`.
db::OutboxEntry compose(const db::Site& site, const db::Template& tmpl, const MergeValues& values,
                        const Recipients& recipients, const std::string& request_id, const RecordLink& link = {});

}  // namespace svc::messaging
