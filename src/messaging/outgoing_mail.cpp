#include "messaging/outgoing_mail.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "messaging/address.hpp"

namespace svc::messaging {
namespace {

std::vector<std::string> addresses(std::string_view list) {
  std::vector<std::string> out;
  for (const auto& item : split_addresses(list)) out.push_back(parse_mailbox(item).address);
  return out;
}

}  // namespace

std::string message_id_for(long long log_id, long long site_id, std::string_view from_address) {
  std::string domain;
  if (auto at = from_address.rfind('@'); at != std::string_view::npos) {
    domain = core::ascii_lower(from_address.substr(at + 1));
  }
  const bool usable = !domain.empty() && std::all_of(domain.begin(), domain.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.';
  });
  if (!usable) domain = "localhost";
  return "<svc." + std::to_string(log_id) + "." + std::to_string(site_id) + "@" + domain + ">";
}

OutgoingMail outgoing_mail_for(const db::OutboxMessage& row) {
  OutgoingMail mail;
  const Mailbox from = parse_mailbox(row.mail.from);
  mail.from = from.address;
  mail.from_name = from.name;
  mail.to = addresses(row.mail.recipient);
  mail.cc = addresses(row.mail.cc);
  mail.bcc = addresses(row.mail.bcc);
  mail.subject = row.mail.subject;
  mail.html = row.mail.body;
  mail.date_unix = row.created_unix;
  mail.message_id = message_id_for(row.id, row.mail.site_id, from.address);
  return mail;
}

std::string drop_suppressed(OutgoingMail& mail, const std::map<std::string, std::string>& blocked) {
  std::string first;
  for (auto* list : {&mail.to, &mail.cc, &mail.bcc}) {
    std::erase_if(*list, [&](const std::string& address) {
      auto it = blocked.find(core::ascii_lower(address));
      if (it == blocked.end()) return false;
      if (first.empty()) first = it->second;
      return true;
    });
  }
  return first;
}

}  // namespace svc::messaging
