#!/usr/bin/env python3
"""Checks krew plugin manifests the way krew's ValidatePlugin does.

Usage: check-krew.py MANIFEST...  Exit 1 naming the first problem of each
invalid manifest.  Rules (from krew's validate.go, restated): apiVersion and
kind; name matches [\\w-]+, is no Windows reserved name and equals the file's
base name; non-empty one-line shortDescription; semver version with a
leading v; at least one platform, each with uri, lowercase 64-hex sha256,
bin, a selector of only os/arch with non-empty matchLabels or
matchExpressions, and files (when present) non-empty with from and to.
"""
import os
import re
import sys

import yaml

RESERVED = {"CON", "PRN", "AUX", "NUL"} | {"COM%d" % i for i in range(1, 10)} \
    | {"LPT%d" % i for i in range(1, 10)}
SEMVER = re.compile(r"^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def problems(path):
    with open(path) as f:
        m = yaml.safe_load(f)
    if not isinstance(m, dict):
        return ["not a mapping"]
    if m.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2":
        return ["wrong apiVersion"]
    if m.get("kind") != "Plugin":
        return ["kind is not Plugin"]
    name = (m.get("metadata") or {}).get("name") or ""
    if not re.match(r"^[\w-]+$", name) or name.upper() in RESERVED:
        return ["invalid name %r" % name]
    if name != os.path.splitext(os.path.basename(path))[0]:
        return ["name %r differs from the file name" % name]
    spec = m.get("spec") or {}
    short = spec.get("shortDescription") or ""
    if not short or "\n" in short or "\r" in short:
        return ["shortDescription missing or not one line"]
    if not SEMVER.match(str(spec.get("version") or "")):
        return ["version %r is not semver with a leading v" % spec.get("version")]
    plats = spec.get("platforms") or []
    if not plats:
        return ["no platforms"]
    for p in plats:
        if not p.get("uri"):
            return ["platform without uri"]
        if not re.match(r"^[a-f0-9]{64}$", str(p.get("sha256") or "")):
            return ["bad sha256"]
        if not p.get("bin"):
            return ["platform without bin"]
        if "files" in p and not p["files"]:
            return ["empty files"]
        for fl in p.get("files") or []:
            if not fl.get("from") or not fl.get("to"):
                return ["file without from/to"]
        sel = p.get("selector")
        if not sel:
            return ["platform without selector"]
        for key in ("matchLabels", "matchExpressions"):
            if key in sel and not sel[key]:
                return ["empty %s" % key]
        keys = set((sel.get("matchLabels") or {}).keys())
        keys |= {e.get("key") for e in sel.get("matchExpressions") or []}
        if keys - {"os", "arch"}:
            return ["selector keys other than os/arch: %s" % sorted(keys)]
    return []


def main():
    bad = 0
    for path in sys.argv[1:]:
        p = problems(path)
        if p:
            print("%s: %s" % (path, p[0]))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
