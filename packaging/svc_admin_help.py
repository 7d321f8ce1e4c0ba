#!/usr/bin/env python3
"""Writes the bash completion and the manual page of svc-admin from its own
`--help`, so neither can drift from the commands (issue 30). Run by the
build (packaging/generated.cmake):
  svc_admin_help.py completion SVC_ADMIN OUTPUT
  svc_admin_help.py man SVC_ADMIN VERSION OUTPUT   (svc-admin(8), roff; help2man's
      guesses split svc-admin's long synopses badly, so this reads the
      layout the help keeps: an entry starts 2 spaces in, its description
      follows 2+ spaces later or on a line indented further)

From the help text it takes: the commands (one or two lowercase words at
the start of a line of "commands:"), each command's options (every --name
on its lines, plus the "site options" block for site create/set), and for
an option followed by a|b|c its values; an option followed by FILE or PATH,
or named --*-file, completes file names, DIR directory names.
"""

import re
import subprocess
import sys

COMMAND = re.compile(r"^  ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?(?: ([a-z][a-z-]*))?(?=\s|$)")
OPTION = re.compile(r"(--[a-z][a-z-]*)(?:[ =]([^\s\[\]]+))?")


def parse(help_text):
    body = help_text.split("commands:\n", 1)[1]
    commands_text, _, site_text = body.partition("\nsite options:")
    commands = {}  # "site create" -> [options]
    values = {}  # option -> [values] or ["@file"] / ["@dir"]
    current = None

    def add_options(cmd, text):
        for name, arg in OPTION.findall(text):
            if name not in commands[cmd]:
                commands[cmd].append(name)
            if not arg or arg.startswith("-"):
                continue
            if "|" in arg:
                for v in arg.split("|"):
                    placeholder = re.fullmatch(r"[A-Z]+", v)  # KEY, N, URI: the user's own value
                    if not placeholder and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*", v) and \
                            v not in values.setdefault(name, []):
                        values[name].append(v)
            elif arg in ("FILE", "PATH") or name.endswith("-file"):
                values[name] = ["@file"]
            elif arg == "DIR":
                values[name] = ["@dir"]

    for line in commands_text.splitlines():
        m = COMMAND.match(line)
        if m:
            current = " ".join(w for w in m.groups() if w)
            commands[current] = []
        if current:
            add_options(current, line)
    for cmd in ("site create", "site set"):
        if cmd in commands:
            add_options(cmd, site_text)
    if "site set" in commands and "--id" in commands["site set"]:
        commands["site set"].remove("--id")  # "site create also takes --id N"
    values["--config"] = ["@file"]
    return commands, values


def render(commands, values):
    firsts = []
    subs = {}
    for cmd in commands:
        words = cmd.split(" ")
        if words[0] not in firsts:
            firsts.append(words[0])
        # "site admin add": "site" offers "admin", "site admin" offers "add".
        for n in range(1, len(words)):
            prefix = " ".join(words[:n])
            if words[n] not in subs.setdefault(prefix, []):
                subs[prefix].append(words[n])
    out = ["# bash completion for svc-admin. Generated at build time by",
           "# packaging/svc_admin_help.py from `svc-admin --help`: do not edit.",
           "",
           "_svc_admin_subcommands() {",
           "    case $1 in"]
    out += ["        '%s') echo '%s' ;;" % (first, " ".join(words)) for first, words in subs.items()]
    out += ["    esac", "}", "", "_svc_admin_options() {", "    case $1 in"]
    out += ["        '%s') echo '%s' ;;" % (cmd, " ".join(opts)) for cmd, opts in commands.items()]
    out += ["    esac", "}", "", "_svc_admin_values() {", "    case $1 in"]
    out += ["        %s) echo '%s' ;;" % (opt, " ".join(vals)) for opt, vals in values.items()]
    out += ["    esac", "}", ""]
    out.append("""_svc_admin() {
    local cur prev words cword
    _init_completion || return
    local command="" i
    # The command: its first word, and the next ones while the words so
    # far have subcommands; --config and its value may come first.
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --config) ((i++)) ;;
            --config=*) ;;
            -*) break ;;
            *)
                if [[ -z $command ]]; then
                    command=${words[i]}
                else
                    command+=" ${words[i]}"
                fi
                [[ -n $(_svc_admin_subcommands "$command") ]] || break
                ;;
        esac
    done
    if [[ $prev == --* ]]; then
        local values
        values=$(_svc_admin_values "$prev")
        case $values in
            @file) _filedir; return ;;
            @dir) _filedir -d; return ;;
            ?*) COMPREPLY=($(compgen -W "$values" -- "$cur")); return ;;
        esac
    fi
    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "--config --help --version %s" -- "$cur"))
    elif [[ $command == help ]]; then
        COMPREPLY=($(compgen -W "%s" -- "$cur"))
    elif [[ $cur == -* ]]; then
        # A family that is a command too ("audit --site N") has options.
        COMPREPLY=($(compgen -W "$(_svc_admin_options "$command")" -- "$cur"))
    elif [[ -n $(_svc_admin_subcommands "$command") ]]; then
        COMPREPLY=($(compgen -W "$(_svc_admin_subcommands "$command")" -- "$cur"))
    fi
} &&
    complete -F _svc_admin svc-admin""" % (" ".join(firsts), " ".join(f for f in firsts if f != "help")))
    return "\n".join(out) + "\n"


def entries(help_text):
    """(synopsis, description) of each command of the help, in order."""
    commands_text = help_text.split("commands:\n", 1)[1].split("\nsite options:")[0]
    out = []
    for line in commands_text.splitlines():
        if not line.strip():
            continue
        if re.match(r"^[a-z].*:$", line):  # a group of commands ("users:")
            out.append(["", line.rstrip(":")])
            continue
        fresh = re.match(r"^  \S", line) is not None
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if fresh:
            out.append([parts[0], parts[1] if len(parts) > 1 else ""])
        elif parts[0].startswith(("[", "--", "<")) and len(line) - len(line.lstrip()) < 20:
            out[-1][0] += " " + parts[0]
            if len(parts) > 1:
                out[-1][1] += " " + parts[1]
        else:
            out[-1][1] += " " + line.strip()
    return [(a.strip(), b.strip()) for a, b in out]


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def man_page(help_text, version):
    usage = help_text.split("\n", 1)[0].replace("usage: ", "")
    preamble = help_text.split("commands:\n", 1)[0].split("\n")[1:]
    site = help_text.split("\nsite options:", 1)[1] if "\nsite options:" in help_text else ""
    out = ['.TH SVC\\-ADMIN 8 "" "svc %s" "System Administration"' % version,
           ".SH NAME", "svc\\-admin \\- administer svc: migrations, sites, users, templates, keys, retention, doctor",
           ".SH SYNOPSIS", ".B " + roff(usage), ".SH DESCRIPTION"]
    out += [roff(line.strip()) for line in preamble if line.strip()]
    out += [".SH COMMANDS"]
    for synopsis, description in entries(help_text):
        if not synopsis:
            out += [".SS " + roff(description[0].upper() + description[1:])]
            continue
        out += [".TP", ".B " + roff(synopsis), roff(description) if description else "\\&"]
    if site:
        out += [".SH SITE OPTIONS", roff(" ".join(site.split()))]
    out += [".SH ENVIRONMENT", ".TP", ".B SVC_CONFIG", "The configuration file when no \\fB\\-\\-config\\fR is given.",
            ".SH FILES", ".TP", ".I /etc/svc/svc.conf", "The configuration (root:svc, 0640); see \\fBsvc.conf\\fR(5).",
            ".TP", ".I /usr/share/svc/sql", "The migrations that \\fBsvc\\-admin migrate\\fR applies.",
            ".SH SEE ALSO", ".BR svc\\-fcgi (8),", ".BR svc\\-sender (8),", ".BR svc.conf (5)"]
    return "\n".join(out) + "\n"


def main():
    help_text = subprocess.run([sys.argv[2], "--help"], capture_output=True, text=True, check=True).stdout
    if sys.argv[1] == "completion":
        text = render(*parse(help_text))
    else:
        text = man_page(help_text, sys.argv[3])
    with open(sys.argv[-1], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
