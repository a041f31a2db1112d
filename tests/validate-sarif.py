#!/usr/bin/env python3
"""Validate SARIF logs against a JSON schema.

usage: validate-sarif.py SCHEMA FILE...

Uses the validator for the draft the schema declares in "$schema" (draft-04
for the OASIS errata01 schema, draft-07 for the committee version; draft-07
when it declares none).  On top of the schema, checks that every "uri" and
"uri-reference" string holds only characters RFC 3986 allows (so a space or
a raw non-ASCII byte in an artifact URI fails), since jsonschema does not
check those formats without optional packages.  Prints one line per error,
"FILE: $.json.path: message", and exits 1 when any file fails, 2 on usage
or unreadable input.
"""
import json
import re
import sys

import jsonschema

# RFC 3986: unreserved, reserved (gen-delims + sub-delims), or %HH.
_URI_CHARS = re.compile(
    r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+\-.]*:")


def _format_checker():
    checker = jsonschema.FormatChecker()

    @checker.checks("uri-reference", raises=ValueError)
    def _uri_reference(value):
        if not isinstance(value, str):
            return True
        if not _URI_CHARS.match(value):
            raise ValueError("%r is not a valid RFC 3986 URI reference" % value)
        return True

    @checker.checks("uri", raises=ValueError)
    def _uri(value):
        if not isinstance(value, str):
            return True
        if not _URI_CHARS.match(value) or not _SCHEME.match(value):
            raise ValueError("%r is not a valid RFC 3986 URI" % value)
        return True

    return checker


def _path(error):
    out = "$"
    for part in error.absolute_path:
        out += "[%d]" % part if isinstance(part, int) else ".%s" % part
    return out


def main(argv):
    if len(argv) < 3:
        print("usage: validate-sarif.py SCHEMA FILE...", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: cannot load schema: %s" % (argv[1], e), file=sys.stderr)
        return 2
    cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft7Validator)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=_format_checker())
    status = 0
    for name in argv[2:]:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("%s: cannot load: %s" % (name, e), file=sys.stderr)
            status = max(status, 2)
            continue
        errors = sorted(validator.iter_errors(doc),
                        key=lambda e: list(map(str, e.absolute_path)))
        for e in errors:
            print("%s: %s: %s" % (name, _path(e), e.message), file=sys.stderr)
        if errors:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
