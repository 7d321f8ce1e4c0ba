#pragma once
// The text/plain alternative of an HTML mail body. Pure; no I/O.

#include <string>
#include <string_view>

namespace svc::messaging {

// A crude text/plain alternative for an HTML body: tags removed (with the
// contents of <script>/<style>/<head>), character references decoded
// (numeric ones, &nbsp; as a plain space, and HTML 4.01's named ones:
// messaging/html_entities.hpp; an unknown name stays as written),
// whitespace runs collapsed to one space,
// <br> and the end of p/div/li/tr/h1-h6 turned into line breaks ("\n"),
// at most one blank line in a row, no leading or trailing blanks; a link's
// href follows its text on a line of its own (once per href).
std::string html_to_text(std::string_view html);

}  // namespace svc::messaging
