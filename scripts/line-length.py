#!/usr/bin/env python3
"""Lines of at most 120 columns in the Swift sources, with stated exceptions, and the reflow of long comments.

    python3 scripts/line-length.py            # check: every line over the limit that the rule does not except
    python3 scripts/line-length.py --reflow   # rewrite comments over the limit (files changed in place)

The rule: a line may pass 120 columns only where a string literal reaches the limit (column 120 lies inside a "..."
or #"..."# literal, the line is inside a multi-line \"\"\" literal, or only closing brackets and commas follow a
literal that ends at the limit, at most four of them): breaking there would change the text or split a message a
reader greps for. A row of a Markdown table in a comment is the one other exception (a table row cannot wrap).
Everything else fits: code (swift-format's pretty-printer lays it out), comments (this script's --reflow wraps
them at word boundaries, keeping their prefix: `///`, `//`; an end-of-line comment moves to its own line above its
code). A comment word longer than a whole line (a long URL or path) is the only thing
--reflow cannot wrap; the check reports it like any other long line.
"""
import os
import re
import sys

LIMIT = 120
ROOTS = ["Package.swift", "Sources", "Tests", "Fuzz"]


def swift_files(root):
    paths = []
    for r in ROOTS:
        p = os.path.join(root, r)
        if os.path.isfile(p):
            paths.append(p)
        for d, dirs, files in os.walk(p):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            paths += [os.path.join(d, f) for f in files if f.endswith(".swift")]
    return sorted(paths)


def scan(line, in_multi):
    """Walks one line: returns (string spans as (start, end) columns, comment start column or None, in_multi after).

    Tracks ordinary and multi-line string literals (escapes, raw-string hashes are not used in this code base) and
    string interpolation only as far as needed to tell where a literal ends."""
    spans = []
    i, n = 0, len(line)
    start = 0 if in_multi else None
    depth = 0  # interpolation depth inside a single-line literal
    single = False
    while i < n:
        c = line[i]
        if in_multi:
            if line.startswith('"""', i):
                spans.append((start, i + 3))
                in_multi, start = False, None
                i += 3
                continue
            i += 2 if c == "\\" else 1
            continue
        if single:
            if depth == 0:
                if c == "\\" and line.startswith("\\(", i):
                    depth, i = 1, i + 2
                    continue
                if c == "\\":
                    i += 2
                    continue
                if c == '"':
                    spans.append((start, i + 1))
                    single, start = False, None
                i += 1
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
            continue
        if line.startswith("//", i):
            return spans, i, in_multi
        if line.startswith('"""', i):
            in_multi, start = True, i
            i += 3
            continue
        if line.startswith('#"', i):
            end = line.find('"#', i + 2)
            spans.append((i, n if end < 0 else end + 2))
            i = n if end < 0 else end + 2
            continue
        if c == '"':
            single, start = True, i
        i += 1
    if in_multi and start is not None:
        spans.append((start, n))
    if single and start is not None:
        spans.append((start, n))
    return spans, None, in_multi


def excepted(line, spans):
    """A string literal reaches the limit: column LIMIT lies inside it, or only closing brackets and commas follow a
    literal that ends within them; or the line is a row of a Markdown table in a comment (a row cannot wrap)."""
    if line.lstrip().startswith(("/// |", "// |")):
        return True
    if any(s < LIMIT <= e for s, e in spans):
        return True
    if spans:
        tail = line[spans[-1][1]:]
        return len(tail) <= 4 and re.fullmatch(r"[)\]},;: ]*", tail) is not None
    return False


def wrap(first, cont, text):
    """Words of `text` on lines of at most LIMIT columns: the first starts with `first`, the others with `cont`."""
    lines, cur, empty = [], first, True
    for w in text.split(" "):
        if empty:
            cur, empty = cur + w, False
        elif len(cur) + 1 + len(w) <= LIMIT:
            cur = cur + " " + w
        else:
            lines.append(cur)
            cur = cont + w
    lines.append(cur)
    return lines


COMMENT = re.compile(r"^(\s*)(///?)( ?)(.*)$")
LEAD = re.compile(r"^(\s*(?:[-*+] |\d+\. )?)")


def paragraph_break(body):
    """A comment line that starts a paragraph of its own: blank, a list item, a heading, a table row, a fence."""
    b = body.strip()
    return (not b or b.startswith(("```", "|", "#", "MARK:", "- ", "* ", "+ ", "swift-tools-version"))
            or re.match(r"^\d+\. ", b) is not None or body.startswith("    "))


def reflow_comments(lines):
    """Re-wraps each comment paragraph that holds a line over the limit; returns the new lines and whether any
    changed. A paragraph is a run of comment lines with one indentation and one prefix (`//` or `///`); a list item
    takes the lines indented under it; fenced code and indented code blocks are never touched."""
    out, i, changed, fence = [], 0, False, False
    while i < len(lines):
        m = COMMENT.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, slashes, body = m.group(1), m.group(2), m.group(4)
        if body.strip().startswith("```"):
            fence = not fence
        if (fence or not body.strip() or body.strip().startswith(("```", "|", "#", "MARK:", "swift-tools-version"))
                or (body.startswith("    ") and not LEAD.match(body).group(1).strip())):
            out.append(lines[i])
            i += 1
            continue
        lead = LEAD.match(body).group(1)
        para, j = [body[len(lead):].strip()], i + 1
        while j < len(lines):
            n = COMMENT.match(lines[j])
            if not n or n.group(1) != indent or n.group(2) != slashes:
                break
            nb = n.group(4)
            if lead.strip() and nb.startswith(" " * len(lead)) and nb.strip() and not paragraph_break(nb[len(lead):]):
                para.append(nb.strip())
            elif not lead.strip() and nb.strip() and not paragraph_break(nb):
                para.append(nb.strip())
            else:
                break
            j += 1
        block = lines[i:j]
        if any(len(x) > LIMIT for x in block):
            first = indent + slashes + " " + lead
            new = wrap(first, indent + slashes + " " + " " * len(lead), " ".join(para))
            out += new
            changed = changed or new != block
        else:
            out += block
        i = j
    return out, changed


def reflow_file(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    # Comments inside a multi-line string literal are text, not comments: mark those lines first.
    inside, in_multi = [], False
    for line in lines:
        inside.append(in_multi)
        _, _, in_multi = scan(line, in_multi)
    out, changed, run = [], False, []

    def flush():
        nonlocal changed
        new, c = reflow_comments(run)
        out.extend(new)
        changed = changed or c
        run.clear()

    for line, in_string in zip(lines, inside):
        if not in_string and COMMENT.match(line):
            run.append(line)
            continue
        flush()
        spans, comment_at, _ = scan(line, in_string)
        if (len(line) > LIMIT and not in_string and comment_at is not None and line[:comment_at].strip()
                and not excepted(line, spans)):
            code, comment = line[:comment_at].rstrip(), line[comment_at:]
            ind = re.match(r"^(\s*)", line).group(1)
            out.extend(wrap(ind + "// ", ind + "// ", re.sub(r"^//+\s?", "", comment)))
            out.append(code)
            changed = True
            continue
        out.append(line)
    flush()
    if changed:
        open(path, "w", encoding="utf-8").write("\n".join(out))
    return changed


def check(root):
    bad = []
    for path in swift_files(root):
        in_multi = False
        for k, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            spans, _, in_multi_after = scan(line, in_multi)
            if len(line) > LIMIT and not excepted(line, spans):
                bad.append(f"{os.path.relpath(path, root)}:{k}: {len(line)} columns (limit {LIMIT}; only a string "
                           "literal that crosses the limit may pass it)")
            in_multi = in_multi_after
    return bad


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--reflow" in sys.argv[1:]:
        n = sum(reflow_file(p) for p in swift_files(root))
        print(f"line-length: comments reflowed in {n} file(s)")
    bad = check(root)
    for b in bad:
        print(b)
    if bad:
        print(f"line-length: {len(bad)} line(s) over {LIMIT} columns outside the rule's exception")
        return 1
    print(f"line-length: every line within {LIMIT} columns, or excepted by the rule (a string literal at the limit)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
