#pragma once
// Merging request data into notification templates.
// Everything here is pure: no I/O, no allocation beyond the returned values,
// safe to call from any thread.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

// Field name -> value, as taken from the request's `data` (or the SQL merge row).
using MergeValues = std::map<std::string, std::string>;

// Replaces every `[fieldname]` (fieldname = [A-Za-z0-9_.-]+) in an HTML
// template with the HTML-escaped value (& < > " '). A placeholder without a
// value stays exactly as written. One pass, left to right: text that a value
// brings in (even "[other]") is never substituted again.
std::string merge_html(std::string_view tmpl, const MergeValues& values);

// As merge_html, for one header line (the subject): values are not escaped,
// but CR, LF and every other C0 control (and DEL) are removed from the values
// and from the result (core::strip_controls), so no value can start a new header.
std::string merge_plain_line(std::string_view tmpl, const MergeValues& values);

// The field names of the placeholders merge_html and merge_plain_line
// would fill in `tmpl`, each once, in order of first appearance.
std::vector<std::string> placeholders(std::string_view tmpl);

// Appends `value` to `out` with & < > " ' as HTML entities (text and
// quoted attribute values alike); the OpenID Connect pages use it too.
void append_html_escaped(std::string& out, std::string_view value);

}  // namespace svc::messaging
