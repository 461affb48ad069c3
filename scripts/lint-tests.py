#!/usr/bin/env python3
"""Fails when a test returns early instead of recording a skip (issue 29).

A test that needs something absent (a ../shared file, an oracle, a program) is skipped with its reason by the
`.needs(...)` trait of Tests/TestSupport (or `Skip.because(...)` for what is known only at run time); it never
passes by returning early. This lint finds, in Tests/**/*.swift:

  1. in the body of a @Test function, a bare `return` (`guard … else { return }`, `else { print(…); return }`,
     `if … { return }`) on a line that does not record an issue: the test would pass while testing nothing;
  2. anywhere (helpers too), `else { return }` whose line names a fixture, an oracle or a program
     (shared, corpus, fixture, exists, oracle, ffmpeg, python, which, x265, chromium, …);
  3. in the body of a @Test function without a `.needs(...)` trait, `#require` of a shared file's presence
     (`#require(FileManager.default.fileExists(…))`, `#require(sharedFile(…))`, `#require(CLI.shared(…))`,
     `#require(TestPaths.shared(…))`): the test would FAIL on a clone without ../shared instead of skipping.

A line that is a deliberate early return (not a skip) carries the comment `// lint: not a skip` and says why.
Usage: python3 scripts/lint-tests.py [DIR]   (default Tests)
"""
import os
import re
import sys

ALLOW = "lint: not a skip"
BARE_RETURN = re.compile(r"(^|[;{\s])return\s*(\}|;|$)")
ELSE_RETURN = re.compile(r"else\s*\{\s*(print\([^\n]*\)\s*;?\s*)?return\s*\}")
REQUIRE_FIXTURE = re.compile(r"#require\((FileManager\.default\.fileExists|sharedFile\(|CLI\.shared\(|TestPaths\.shared\()")
FIXTURE_WORDS = re.compile(
    r"exists|shared|Shared|Corpus|corpus|fixture|oracle|Oracle|ffmpeg|FFmpeg|python|which\(|available|"
    r"isExecutableFile|fileExists|FileSource\(path|contentsOf|x265|chromium|heif-convert|mediainfo")


def strip_strings(line):
    return re.sub(r'"(\\.|[^"\\])*"', '""', line.split("//")[0] if "//" in line and '"' not in line else line)


def test_bodies(lines):
    """(attribute, start, end) line indexes of each @Test function: its @Test line, its func line, its body's end."""
    i = 0
    while i < len(lines):
        if re.match(r"\s*@Test\b", lines[i]):
            j = i
            while j < len(lines) and not re.search(r"\bfunc\b", lines[j]):
                j += 1
            depth, started, k = 0, False, j
            while k < len(lines):
                code = strip_strings(lines[k])
                depth += code.count("{") - code.count("}")
                started = started or "{" in code
                if started and depth <= 0:
                    break
                k += 1
            yield i, j, k
            i = k
        i += 1


def check(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    for attribute, start, end in test_bodies(lines):
        skips = ".needs(" in "\n".join(lines[attribute:start + 1])
        for n in range(start + 1, end + 1):
            code = strip_strings(lines[n])
            if ALLOW not in lines[n] and not skips and REQUIRE_FIXTURE.search(lines[n]):
                found.append((n + 1, "a shared file required without a .needs(...) trait (fails instead of skipping without ../shared)"))
            # `else { Issue.record(…); return }` fails the test: not a silent pass.
            if ALLOW not in lines[n] and "Issue.record" not in code and BARE_RETURN.search(code):
                found.append((n + 1, "early return in a @Test function (skip with .needs(...) or Skip.because(...))"))
    for n, line in enumerate(lines):
        if ALLOW not in line and ELSE_RETURN.search(line) and FIXTURE_WORDS.search(line):
            if not any(f[0] == n + 1 for f in found):
                found.append((n + 1, "early return when a fixture, oracle or program is absent (skip with .needs(...))"))
    return [(path, n, why, lines[n - 1].strip()) for n, why in sorted(found)]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Tests"
    problems = []
    for d, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".swift"):
                problems += check(os.path.join(d, name))
    for path, n, why, text in problems:
        print(f"{path}:{n}: {why}\n    {text}")
    if problems:
        print(f"lint-tests: {len(problems)} finding(s) in tests; a test that needs something absent is skipped with its reason")
        return 1
    print("lint-tests: no test returns early to dodge an absent fixture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
