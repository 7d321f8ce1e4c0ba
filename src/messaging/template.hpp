#pragma once
// Merging request data into notification templates, plus the small text
// helpers the mail path needs (address checks, a plain-text alternative).
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
// and from the result, so no value can start a new header.
std::string merge_plain_line(std::string_view tmpl, const MergeValues& values);

// Removes CR, LF, NUL and every other C0 control and DEL. For addresses and
// any other text bound for a header or an SMTP command.
std::string strip_crlf(std::string_view s);

// Pragmatic check of a bare address "local@domain.tld": ASCII only, no
// spaces, controls or any of <>()[],;:"\ ; total <= 254, local part 1..64
// without leading, trailing or doubled dots; domain of >= 2 labels, each
// 1..63 of [A-Za-z0-9-] not starting or ending with '-', the last one not
// all digits. Quoted local parts, address literals and raw IDN are rejected.
bool is_valid_email(std::string_view address);

// Splits "a@x, b@y; c@z" on ',' and ';', trims blanks (space, tab, CR, LF)
// and drops empty entries. Does not validate.
std::vector<std::string> split_addresses(std::string_view list);

// A crude text/plain alternative for an HTML body: tags removed (with the
// contents of <script>/<style>/<head>), the entities &amp; &lt; &gt; &quot;
// &#39; &apos; &nbsp; decoded, whitespace runs collapsed to one space,
// <br> and the end of p/div/li/tr/h1-h6 turned into line breaks ("\n"),
// at most one blank line in a row, no leading or trailing blanks.
std::string html_to_text(std::string_view html);

}  // namespace svc::messaging
