// /admin/sites/{site}/templates: the Templates capability (manage/templates.hpp).
#include "http/validate.hpp"
#include "manage/templates.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"
#include "messaging/handlers.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/templates/{id}[/versions/{version}]
constexpr size_t kTemplateSegment = 4;
constexpr size_t kVersionSegment = 6;

const char* priority_name(int priority) { return priority == db::kPriorityBulk ? "bulk" : "normal"; }

// The fields every reply about a template or a version carries.
void write_fields(http::JsonWriter& w, const db::Template& t) {
  w.kv("id", t.id)
      .kv("event", t.event)
      .kv("locale", t.locale)
      .kv("enabled", t.enabled)
      .kv("subject", t.subject)
      .kv("from", t.from)
      .kv("bcc", t.bcc)
      .kv("priority", priority_name(t.priority));
}

http::Response template_reply(const manage::TemplateState& s) {
  http::JsonWriter w;
  success(w);
  w.open("template");
  write_fields(w, s.tmpl);
  w.kv("content", s.tmpl.content).kv("version", s.version).close();
  return reply(w);
}

void write_version(http::JsonWriter& w, const db::TemplateVersion& v, bool content) {
  w.open().kv("version", v.version).kv("action", v.action).kv("actor", v.actor);
  write_time(w, "created_at", v.created_at);
  write_fields(w, v);
  if (content) w.kv("content", v.content);
  w.close();
}

// A JSON boolean member, if present; a field error otherwise.
std::optional<bool> optional_bool(http::Fields& fields, const rapidjson::Value& body, const char* name) {
  auto it = body.FindMember(name);
  if (it == body.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsBool()) {
    fields.add(name, std::string(name) + " must be true or false");
    return std::nullopt;
  }
  return it->value.GetBool();
}

// A non-negative integer member ("version"), if present.
std::optional<int> optional_version(http::Fields& fields, const rapidjson::Value& body, const char* name) {
  auto it = body.FindMember(name);
  if (it == body.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsInt() || it->value.GetInt() < 0) {
    fields.add(name, std::string(name) + " must be a version number");
    return std::nullopt;
  }
  return it->value.GetInt();
}

// The template fields of a create or edit body; unknown members are refused.
manage::TemplateFields template_fields(http::Fields& fields, const rapidjson::Value& body) {
  static const char* const kKnown[] = {"event", "locale", "enabled",  "subject", "content",
                                       "from",  "bcc",    "priority", "version"};
  for (auto it = body.MemberBegin(); it != body.MemberEnd(); ++it) {
    const std::string name(it->name.GetString(), it->name.GetStringLength());
    if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return name == k; })) {
      fields.add(name, "unknown field");
    }
  }
  manage::TemplateFields f;
  f.event = fields.optional_string("event", 190);
  f.locale = fields.optional_string("locale", 35);
  f.enabled = optional_bool(fields, body, "enabled");
  f.subject = fields.optional_string("subject", 4096);
  f.content = fields.optional_string("content", 1 << 20);
  f.from = fields.optional_string("from", 320);
  f.bcc = fields.optional_string("bcc", 4096);
  if (auto priority = fields.optional_string("priority", 16)) {
    if (*priority == "normal" || *priority == "bulk") {
      f.priority = *priority == "bulk" ? db::kPriorityBulk : db::kPriorityNormal;
    } else {
      fields.add("priority", "priority must be normal or bulk");
    }
  }
  return f;
}

// A preview's or test send's sample `data`.
messaging::MergeValues sample_data(http::Fields& fields) {
  return messaging::values_from(fields.optional_object("data"));
}

}  // namespace

http::Response templates_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::list_templates(ctx, actor, query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("templates");
  for (const auto& t : page.rows) {
    w.open();
    write_fields(w, t);
    w.close();
  }
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

http::Response template_create(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  http::Fields fields(request.json);
  manage::TemplateFields f = template_fields(fields, request.json);
  if (request.json.HasMember("version")) fields.add("version", "a new template has no version");
  fields.throw_if_errors();
  return template_reply(manage::create_template(ctx, actor, f));
}

http::Response template_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  return template_reply(manage::show_template(ctx, actor, path_id(request, kTemplateSegment)));
}

http::Response template_update(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  http::Fields fields(request.json);
  manage::TemplateFields f = template_fields(fields, request.json);
  auto based_on = optional_version(fields, request.json, "version");
  if (!based_on && !fields.has_error("version"))
    fields.add("version", "version (the one this edit is based on) is required");
  fields.throw_if_errors();
  return template_reply(manage::edit_template(ctx, actor, path_id(request, kTemplateSegment), f, based_on));
}

http::Response template_delete(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  manage::delete_template(ctx, actor, path_id(request, kTemplateSegment));
  http::JsonWriter w;
  success(w);
  return reply(w);
}

http::Response template_versions(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::template_versions(ctx, actor, path_id(request, kTemplateSegment),
                                        query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("versions");
  for (const auto& v : page.rows) write_version(w, v, false);
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

http::Response template_version_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const long long number = path_id(request, kVersionSegment);
  if (number > INT32_MAX) throw http::ApiError::failed(404, "Version not found");
  auto v = manage::template_version(ctx, actor, path_id(request, kTemplateSegment), static_cast<int>(number));
  http::JsonWriter w;
  success(w);
  w.key("version");
  write_version(w, v, true);
  return reply(w);
}

http::Response template_rollback(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  http::Fields fields(request.json);
  auto version = optional_version(fields, request.json, "version");
  if (!version && !fields.has_error("version")) fields.add("version", "version (the one to restore) is required");
  fields.throw_if_errors();
  return template_reply(manage::rollback_template(ctx, actor, path_id(request, kTemplateSegment), *version));
}

http::Response template_preview(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  http::Fields fields(request.json);
  const messaging::MergeValues data = sample_data(fields);
  auto subject = fields.optional_string("subject", 4096);
  auto content = fields.optional_string("content", 1 << 20);
  fields.throw_if_errors();
  const manage::Preview p =
      manage::preview_template(ctx, actor, path_id(request, kTemplateSegment), data, subject, content);
  http::JsonWriter w;
  success(w);
  w.open("preview").kv("subject", p.subject).kv("html", p.html).kv("text", p.text).open_array("placeholders");
  for (const auto& name : p.placeholders) w.s(name);
  w.close_array().close();
  return reply(w);
}

http::Response template_test_send(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  http::Fields fields(request.json);
  const messaging::MergeValues data = sample_data(fields);
  fields.throw_if_errors();
  const long long outbox_id = manage::test_send(ctx, actor, path_id(request, kTemplateSegment), data);
  http::JsonWriter w;
  success(w);
  w.kv("to", actor.email).kv("outbox_id", outbox_id);
  return reply(w);
}

}  // namespace svc::manage_api
