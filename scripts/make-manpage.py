#!/usr/bin/env python3
"""Writes the spatial-media(1) man page from the command line's own description of itself.

    spatial-media --experimental-dump-help | python3 scripts/make-manpage.py > spatial-media.1
    python3 scripts/make-manpage.py --binary .build/release/spatial-media -o spatial-media.1

The input is swift-argument-parser's JSON dump of every command, option and help text, so the page
always matches the binary it was made from (`make install` does this). Offline; only the standard library.
"""
import argparse
import json
import subprocess
import sys


def roff(text: str) -> str:
    """Escapes text for roff: backslashes, leading dots/quotes, and a few Unicode signs man renders badly."""
    text = text.replace("\\", "\\e")
    for a, b in (("…", "..."), ("—", "\\(em"), ("–", "\\(en"), ("µ", "u"), ("°", " degrees"), ("→", "->"),
                 ("≤", "<="), ("≥", ">="), ("×", "x"), ("′", "'")):
        text = text.replace(a, b)
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def option_label(a: dict) -> str:
    names = a.get("names") or []
    ordered = sorted(names, key=lambda n: 0 if n["kind"] == "short" else 1)
    parts = [("-" if n["kind"] == "short" else "--") + n["name"] for n in ordered]
    label = ", ".join(f"\\fB{roff(p)}\\fR" for p in parts)
    if a["kind"] == "option":
        label += f" \\fI{roff(a.get('valueName') or 'value')}\\fR"
    return label


def _builtin(a: dict) -> bool:
    """--help and --version, which every subcommand has; listed once, under OPTIONS."""
    return any(n["name"] in ("help", "version") for n in a.get("names") or [])


def synopsis(path: str, args: list) -> str:
    out = [f"\\fB{path}\\fR"]
    for a in args:
        if not a.get("shouldDisplay", True) or _builtin(a):
            continue
        if a["kind"] == "positional":
            s = f"\\fI{roff(a.get('valueName', 'arg'))}\\fR" + ("..." if a.get("isRepeating") else "")
        else:
            long = [n for n in a.get("names", []) if n["kind"] != "short"] or a.get("names", [])
            if not long:
                continue
            prefix = "-" if long[0]["kind"] == "short" else "--"
            s = f"\\fB{prefix}{roff(long[0]['name'])}\\fR"
            if a["kind"] == "option":
                s += f" \\fI{roff(a.get('valueName') or 'value')}\\fR"
        out.append(f"[{s}]" if a.get("isOptional") else s)
    return " ".join(out)


def arguments(args: list, builtins: bool = False) -> list:
    out = []
    for a in args:
        if not a.get("shouldDisplay", True) or (_builtin(a) and not builtins):
            continue
        out.append(".TP")
        out.append(option_label(a) if a["kind"] != "positional" else f"\\fI{roff(a.get('valueName', 'arg'))}\\fR")
        text = a.get("abstract") or ""
        if a.get("discussion"):
            text += " " + a["discussion"]
        if a.get("defaultValue") not in (None, "") and "default" not in text:
            text += f" (default: {a['defaultValue']})"
        if a.get("allValues"):
            text += f" Values: {', '.join(a['allValues'])}."
        out.append(roff(text.strip()) or "\\&")
    return out


def page(dump: dict) -> str:
    root = dump["command"]
    name = root["commandName"]
    out = [f'.TH {name.upper()} 1 "" "{name}" "User Commands"', ".SH NAME",
           f"{roff(name)} \\- {roff(root.get('abstract', ''))}", ".SH SYNOPSIS",
           f"\\fB{roff(name)}\\fR \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]"]
    if root.get("discussion"):
        out += [".SH DESCRIPTION", roff(root["discussion"])]
    out += [".SH COMMANDS"]
    for sub in root.get("subcommands", []):
        if not sub.get("shouldDisplay", True) or sub["commandName"] == "help":
            continue
        out += [".SS " + roff(sub["commandName"]), roff(sub.get("abstract", "")), ".PP",
                synopsis(f"{name} {sub['commandName']}", sub.get("arguments", []))]
        if sub.get("discussion"):
            out += [".PP", roff(sub["discussion"])]
        out += [".RS"] + arguments(sub.get("arguments", [])) + [".RE"]
    out += [".SH OPTIONS"] + arguments(root.get("arguments", []), builtins=True)
    out += [".SH EXIT STATUS",
            ".TP", "0", "Success.",
            ".TP", "1", "The input was read but problems were found (diagnostics, validation warnings or errors).",
            ".TP", "2", "An input could not be read or is not a supported file.",
            ".TP", "64", "Usage error (unknown option, value out of range).",
            ".SH OUTPUT", "JSON goes to standard output, messages to standard error. The \\fB--json\\fR output of "
            "\\fBinfo\\fR and \\fBvalidate\\fR follows the versioned JSON Schemas \\fIinfo.v1.schema.json\\fR and "
            "\\fIvalidate.v1.schema.json\\fR (Specs/schemas/ in the source).",
            ".SH SHELL COMPLETION", f"\\fB{name} --generate-completion-script\\fR \\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR "
            "prints a completion script; \\fBmake install\\fR installs all three.",
            ".SH LICENSE", "GPL-2.0-or-later. The licences of the libraries it loads are listed in THIRD_PARTY_LICENSES.md.",
            ".SH SEE ALSO", "\\fBffmpeg\\fR(1)"]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", help="run this spatial-media to get the dump (default: read it from stdin)")
    ap.add_argument("-o", "--output", help="write here (default: stdout)")
    a = ap.parse_args()
    text = (subprocess.run([a.binary, "--experimental-dump-help"], check=True, capture_output=True, text=True).stdout
            if a.binary else sys.stdin.read())
    result = page(json.loads(text))
    if a.output:
        with open(a.output, "w") as f:
            f.write(result)
    else:
        sys.stdout.write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
