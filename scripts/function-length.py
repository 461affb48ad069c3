#!/usr/bin/env python3
"""Lists the longest functions in Swift sources and fails when one is longer than the limit.

Usage: python3 scripts/function-length.py [--max N] [--top K] [DIR...]   (default: --max 120, DIR = Sources)

A function is a `func`, `init`, `deinit` or `subscript` declaration with a body; its length is the number of
lines from the declaration's first line to the line of its closing brace, inclusive (nested functions count
inside their parent and on their own). Strings (including multi-line and raw strings) and comments are skipped
when matching braces. Exit status: 0 when every function is within the limit, 1 otherwise.
"""
import os
import re
import sys

DECL = re.compile(r'(?<![\w.])(func\s+[^\s(<]+|init[?!]?(?=\s*[(<])|deinit(?=\s*\{)|subscript(?=\s*[(<]))')


def code_mask(text):
    """The source with string contents and comments replaced by spaces (newlines kept), so braces and keywords
    found in it are code."""
    out = list(text)
    i, n = 0, len(text)
    stack = []  # interpolation depth bookkeeping: each entry is the paren depth at which a string resumes

    def blank(a, b):
        for k in range(a, b):
            if out[k] != '\n':
                out[k] = ' '

    def scan_string(i):
        """i points at the opening quote run (after any #s). Returns the index after the closing delimiter."""
        start = i
        hashes = 0
        j = i - 1
        while j >= 0 and text[j] == '#':
            hashes += 1
            j -= 1
        multi = text.startswith('"""', i)
        delim = ('"""' if multi else '"') + '#' * hashes
        i += 3 if multi else 1
        escape = '\\' + '#' * hashes
        while i < n:
            if text.startswith(escape + '(', i):
                # interpolation: skip a balanced parenthesised expression (which may hold strings)
                blank(start, i)
                i += len(escape) + 1
                depth = 1
                while i < n and depth:
                    c = text[i]
                    if c == '"':
                        i = scan_string(i)
                        continue
                    if c == '(':
                        depth += 1
                    elif c == ')':
                        depth -= 1
                    i += 1
                start = i
                continue
            if text.startswith(escape, i):
                i += len(escape) + 1
                continue
            if text.startswith(delim, i):
                i += len(delim)
                blank(start, i)
                return i
            if not multi and text[i] == '\n':
                blank(start, i)
                return i
            i += 1
        blank(start, n)
        return n

    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif text[i] == '"':
            i = scan_string(i)
        else:
            i += 1
    return ''.join(out)


def functions(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    code = code_mask(text)
    line_starts = [0]
    for k, c in enumerate(code):
        if c == '\n':
            line_starts.append(k + 1)

    def line_of(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    for m in DECL.finditer(code):
        # The body starts at the first `{` at bracket depth 0 after the declaration; a `;`/newline-terminated
        # protocol requirement (no body before the next declaration) is skipped.
        i, depth = m.end(), 0
        body = None
        while i < len(code):
            c = code[i]
            if c in '([':
                depth += 1
            elif c in ')]':
                depth -= 1
            if c == '{' and depth <= 0:
                body = i
                break
            if depth <= 0 and DECL.match(code, i) and i > m.end():
                break
            if depth <= 0 and c == '}':
                break
            i += 1
        if body is None:
            continue
        level, j = 0, body
        while j < len(code):
            if code[j] == '{':
                level += 1
            elif code[j] == '}':
                level -= 1
                if level == 0:
                    break
            j += 1
        name = m.group(1).split()[-1]
        first, last = line_of(m.start()), line_of(j)
        yield name, first, last - first + 1


def main(argv):
    limit, top, dirs = 120, 10, []
    args = iter(argv)
    for a in args:
        if a == '--max':
            limit = int(next(args))
        elif a == '--top':
            top = int(next(args))
        else:
            dirs.append(a)
    dirs = dirs or ['Sources']
    found = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for name in files:
                if name.endswith('.swift'):
                    path = os.path.join(root, name)
                    for fn, line, length in functions(path):
                        found.append((length, path, line, fn))
    found.sort(key=lambda t: (-t[0], t[1], t[2]))
    for length, path, line, fn in found[:top]:
        print(f'{length:5}  {path}:{line}  {fn}')
    over = [f for f in found if f[0] > limit]
    if over:
        print(f'function-length: {len(over)} function(s) longer than {limit} lines', file=sys.stderr)
        return 1
    print(f'function-length: {len(found)} functions, longest {found[0][0] if found else 0} lines (limit {limit})')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
