#pragma once
// The SMTP session settings of svc-sender from the [smtp] configuration
// section.

#include "config/config.hpp"
#include "messaging/smtp_session.hpp"

namespace svc::messaging {

SmtpSettings smtp_settings(const config::SmtpSettings& c);

}  // namespace svc::messaging
