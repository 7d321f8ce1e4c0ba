#pragma once
// One outbox row as the e-mail svc-sender delivers for it. Pure; no I/O.

#include <map>
#include <string>
#include <string_view>

#include "db/outbox_repo.hpp"
#include "messaging/mime.hpp"

namespace svc::messaging {

// "<svc.{log_id}.{site_id}@{domain of from_address}>": the same for every
// attempt of one row, so a receiver can drop the duplicate that
// at-least-once delivery may produce. "localhost" when the address has no
// usable domain.
std::string message_id_for(long long log_id, long long site_id, std::string_view from_address);

// The e-mail for one outbox row: From split into name and address, the
// address lists split, Date = the row's creation time (stable across
// retries, like the Message-ID), text part derived from the HTML.
OutgoingMail outgoing_mail_for(const db::OutboxMessage& row);

// Removes the addresses of `blocked` (lower-cased address -> reason) from
// To, Cc and Bcc. Returns the reason of the first one removed, "" when none was.
std::string drop_suppressed(OutgoingMail& mail, const std::map<std::string, std::string>& blocked);

}  // namespace svc::messaging
