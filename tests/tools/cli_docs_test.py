#!/usr/bin/python3
"""The documents run as written: every grt command shown in README.md and
docs/*.md, and the synopses held to the commands' option tables.

usage: cli_docs_test.py GRT EXAMPLE_FILE... -- DOC.md...

Commands are read from the documents' code blocks (fenced, or indented by
four spaces): in a block with `$ ` prompts, the prompted lines that start
`grt ` or `bazel run //tools:grt -- ` (a line ending in `\\` goes on on the
next); in a block without prompts, every line that starts so. Each runs
with bash (pipefail) in one scratch directory that holds the example files
under examples/ and an empty docs/, with `grt` on PATH, and must exit 0.
README.md runs first, then docs/training.md (the walkthrough, whose files
the reference's examples reuse), then the rest by name.

An HTML comment on the line before a block (blank lines between allowed)
says how to treat it; a reader of the rendered page never sees it:

    <!-- doc-test: status N -->      every command of the block exits N
    <!-- doc-test: skip REASON -->   not run (a GPU, MPI, another machine,
                                     a file not shipped): REASON is printed
    <!-- doc-test: synopsis -->      a synopsis, checked instead of run

A synopsis line is `grt COMMAND ...`, with continuation lines indented
under it. One that ends in `[options]` must equal the synopsis `grt --help`
prints for COMMAND (README.md); any other must name exactly the options of
COMMAND's table, as `grt COMMAND --help` lists them (docs/cli.md). Every
command of `grt --help` has a line in every synopsis block. Then, in
docs/cli.md, the section `## grt COMMAND` mentions every option of the
table, and the options its option table (`| \\`--flag ...`) documents are
all in it.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARKER = re.compile(r"<!--\s*doc-test:\s*(status|skip|synopsis)\s*(.*?)\s*-->")
FLAG = re.compile(r"--[a-z][a-z0-9-]*")
NOT_OPTIONS = {"--help", "--version"}

failures = []


def fail(message):
    print("FAIL: " + message)
    failures.append(message)


def blocks(path):
    """(line number, lines, marker kind, marker argument) per code block."""
    lines = open(path).read().split("\n")
    out = []
    marker = (None, "")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.search(line)
        if m:
            marker = (m.group(1), m.group(2))
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i + 2, lines[i + 1:j]) + marker)
            marker = (None, "")
            i = j + 1
            continue
        if line.startswith("    ") and (i == 0 or lines[i - 1].strip() == ""):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or (
                    lines[j].strip() == "" and j + 1 < len(lines) and
                    lines[j + 1].startswith("    "))):
                j += 1
            out.append((i + 1, [x[4:] for x in lines[i:j]]) + marker)
            marker = (None, "")
            i = j
            continue
        if line.strip():
            marker = (None, "")  # a marker belongs to the block right after it
        i += 1
    return out


def commands(block_lines):
    """(offset, command) of each grt command a block shows."""
    prompt = any(x.startswith("$ ") for x in block_lines)
    out = []
    k = 0
    while k < len(block_lines):
        line = block_lines[k]
        start = k
        if prompt:
            if not line.startswith("$ "):
                k += 1
                continue
            line = line[2:]
        while line.endswith("\\") and k + 1 < len(block_lines):
            k += 1
            line = line[:-1] + " " + block_lines[k].strip()
        k += 1
        if line.startswith("bazel run //tools:grt -- "):
            line = "grt " + line[len("bazel run //tools:grt -- "):]
        if line.startswith("grt "):
            out.append((start, line))
    return out


def help_text(grt, *args):
    return subprocess.run([grt] + list(args), capture_output=True, text=True).stdout


def tables(grt):
    """command -> (its synopsis, its option names, their aliases)."""
    out = {}
    for line in help_text(grt, "--help").split("\n"):
        m = re.match(r"  grt ([a-z][a-z-]*) (.*)$", line)
        if not m:
            continue
        names, aliases = set(), set()
        for opt in help_text(grt, m.group(1), "--help").split("\n"):
            o = re.match(r"  (--[a-z][a-z0-9-]*)(?: [^,]*)?(?:, (--[a-z][a-z0-9-]*))?", opt)
            if o:
                names.add(o.group(1))
                if o.group(2):
                    aliases.add(o.group(2))
        out[m.group(1)] = (m.group(2), names, aliases)
    if len(out) < 8:
        fail("grt --help lists %d commands" % len(out))
    return out


def check_synopsis(where, block_lines, table):
    entries = []
    for line in block_lines:
        if line.startswith("grt "):
            entries.append(line)
        elif entries and line.startswith(" ") and line.strip():
            entries[-1] += " " + line.strip()
    seen = set()
    for entry in entries:
        entry = entry.split("  #")[0].strip()
        m = re.match(r"grt ([a-z][a-z-]*)(?: (.*))?$", entry)
        if not m or m.group(1) not in table:
            continue  # grt --version, grt COMMAND --help
        cmd, rest = m.group(1), m.group(2) or ""
        seen.add(cmd)
        synopsis, names, aliases = table[cmd]
        if rest.endswith("[options]"):
            if rest != synopsis:
                fail("%s: 'grt %s %s' is not grt --help's 'grt %s %s'" %
                     (where, cmd, rest, cmd, synopsis))
            continue
        shown = set(FLAG.findall(rest)) - NOT_OPTIONS
        for f in sorted(shown - names - aliases):
            fail("%s: grt %s: the synopsis shows %s, which its option table lacks" %
                 (where, cmd, f))
        for f in sorted(names - shown):
            fail("%s: grt %s: the synopsis lacks %s of its option table" % (where, cmd, f))
    for cmd in sorted(set(table) - seen):
        fail("%s: no synopsis of grt %s" % (where, cmd))


def check_sections(path, name, table):
    text = open(path).read()
    for cmd, (_, names, aliases) in sorted(table.items()):
        m = re.search(r"^## grt %s\b.*?(?=^## |\Z)" % re.escape(cmd), text, re.S | re.M)
        if not m:
            fail("%s: no section '## grt %s'" % (name, cmd))
            continue
        section = m.group(0)
        mentioned = set(FLAG.findall(section))
        for f in sorted(names - mentioned):
            fail("%s: section grt %s does not document %s" % (name, cmd, f))
        rows = re.findall(r"^\| `(--[a-z][a-z0-9-]*)", section, re.M)
        rows += re.findall(r"^\| `--[^`]*`, `(--[a-z][a-z0-9-]*)", section, re.M)
        for f in sorted(set(rows) - names - aliases - NOT_OPTIONS):
            fail("%s: section grt %s documents %s, which its option table lacks" %
                 (name, cmd, f))


def main():
    sep = sys.argv.index("--")
    grt = os.path.abspath(sys.argv[1])
    examples = [os.path.abspath(p) for p in sys.argv[2:sep]]
    docs = [os.path.abspath(p) for p in sys.argv[sep + 1:]]
    table = tables(grt)

    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    os.makedirs(os.path.join(work, "examples"))
    os.makedirs(os.path.join(work, "docs"))
    os.makedirs(os.path.join(work, "bin"))
    for p in examples:
        shutil.copy(p, os.path.join(work, "examples"))
    os.symlink(grt, os.path.join(work, "bin", "grt"))
    env = dict(os.environ, PATH=os.path.join(work, "bin") + ":" + os.environ["PATH"])

    def order(path):
        name = os.path.basename(path)
        return (name != "README.md", name != "training.md", name)

    ran = skipped = 0
    for doc in sorted(docs, key=order):
        name = os.path.relpath(doc, os.path.dirname(os.path.dirname(doc)))
        if os.path.basename(doc) == "README.md":
            name = "README.md"
        for line, block_lines, kind, arg in blocks(doc):
            where = "%s:%d" % (name, line)
            if kind == "synopsis":
                check_synopsis(where, block_lines, table)
                continue
            for offset, cmd in commands(block_lines):
                at = "%s:%d" % (name, line + offset)
                if kind == "skip":
                    print("skip %s: %s (%s)" % (at, cmd, arg))
                    skipped += 1
                    continue
                want = int(arg) if kind == "status" else 0
                r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                                   capture_output=True, text=True, timeout=300)
                ran += 1
                if r.returncode != want:
                    fail("%s: exit %d (wanted %d): %s\n%s" %
                         (at, r.returncode, want, cmd, r.stderr[-2000:]))
                else:
                    print("ok   %s: %s" % (at, cmd))
        if os.path.basename(doc) == "cli.md":
            check_sections(doc, name, table)
    print("%d commands run, %d skipped, %d failures" % (ran, skipped, len(failures)))
    # The extractor itself could break and find nothing: the documents show
    # dozens of commands.
    if ran < 25:
        fail("only %d commands found in the documents" % ran)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
