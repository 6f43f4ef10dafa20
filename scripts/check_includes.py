#!/usr/bin/env python3
"""No package includes another package's internal header.

Checks every #include "..." of the product code (every C/CUDA source and
header outside tests/, bench/, examples/ and third_party/) that names a
header of this repository. A header is internal to its package when its
name ends in internal.h or context.h, or when its first comment says so
("Internal to ...", "Internal: ..."). An include of such a header from
another package (the nearest folder with a BUILD file) is a violation.

Prints one line per cross-package include of a repository header, marked
OK or VIOLATION, then a summary; exits 1 on any violation. Run from the
repository root: scripts/check_includes.py [-q]
"""
import os
import re
import subprocess
import sys

SKIP = ("tests/", "bench/", "examples/", "third_party/")
EXTS = (".c", ".h", ".cu", ".cuh", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def package(path):
    d = os.path.dirname(path)
    while d and not os.path.exists(os.path.join(d, "BUILD")):
        d = os.path.dirname(d)
    return d or "//"


def internal_why(header):
    base = os.path.basename(header)
    if base.endswith("internal.h") or base.endswith("context.h"):
        return "named " + base
    with open(header, encoding="utf-8") as f:
        text = f.read(600)
    m = re.match(r"\s*/\*\s*(Internal(?: to [^.:]*|:))", text)
    return 'comment "%s"' % m.group(1) if m else None


def main():
    quiet = "-q" in sys.argv
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split()
    product = sorted({f for f in files if f.endswith(EXTS) and not f.startswith(SKIP) and
                      os.path.isfile(f)})
    n_includes = n_cross = 0
    bad = []
    for f in product:
        with open(f, encoding="utf-8") as fh:
            src = fh.read()
        for inc in INCLUDE.findall(src):
            # Quoted includes are repository-relative, or relative to the file.
            target = inc if os.path.exists(inc) else os.path.join(os.path.dirname(f), inc)
            if not os.path.isfile(target) or target.startswith("include/"):
                continue
            n_includes += 1
            target = os.path.normpath(target)
            if package(target) == package(f):
                continue
            n_cross += 1
            why = internal_why(target)
            if why:
                bad.append(f)
            if why or not quiet:
                print("%-9s %s -> %s%s" % ("VIOLATION" if why else "OK", f, target,
                                          " (internal: %s)" % why if why else ""))
    print("%d product files, %d includes of repository headers outside include/, "
          "%d across packages, %d of an internal header" % (len(product), n_includes, n_cross,
                                                            len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
