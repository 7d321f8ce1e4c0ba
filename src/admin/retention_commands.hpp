#pragma once
// svc-admin retention commands: deleting old outbox, audit and bounce rows in small
// batches (db/retention_repo.hpp says why batches never block the sender).
// Meant for systemd/svc-purge.timer; docs/operations.md, "Retention".

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// outbox purge --older-than AGE [--status Sent|Failed|Pending] [--batch N]
//              [--pause-ms N] [--dry-run]
// Without --status: Sent and Failed rows (Pending rows only when named).
// Prints one progress line per batch and a total; exit 0.
int cmd_outbox_purge(const Args& args, const std::string& config_path);

// audit purge --older-than AGE [--batch N] [--pause-ms N] [--dry-run]
int cmd_audit_purge(const Args& args, const std::string& config_path);

// mail purge-bounces --older-than AGE [--batch N] [--pause-ms N] [--dry-run]
// (svc_mail_bounces; suppressions stay).
int cmd_bounces_purge(const Args& args, const std::string& config_path);

// sessions purge --older-than AGE: deletes sessions that ended (expired or
// revoked) more than AGE ago, in batches (svc-purge.service).
int cmd_sessions_purge(const Args& args, const std::string& config_path);

// oauth purge --older-than AGE: the OpenID Connect provider's authorization
// requests and codes expired, and single sign-on cookies and grants whose
// session ended, more than AGE ago (svc-purge.service, after sessions purge).
int cmd_oauth_purge(const Args& args, const std::string& config_path);

}  // namespace svc::admin
