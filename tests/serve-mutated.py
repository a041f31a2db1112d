#!/usr/bin/env python3
"""What a mutating webhook changed in an object (tests/e2e/serve-mutate.sh).

  serve-mutated.py SENT.yaml STORED.json
      compares the object as written (SENT) with what the API server
      stored (STORED, kubectl get -o json): prints one line per env
      entry added ("CONTAINER_POINTER NAME=VALUE") and the annotation
      cpulint.io/mutated ("note: ..."), then "rest: same" when nothing
      else differs, or "rest: DIFFERS" and the first difference.  What
      the API server sets itself (uid, resourceVersion,
      creationTimestamp, generation, namespace, kubectl's
      last-applied-configuration) is left out of the comparison.
"""
import json
import sys

import yaml


def containers(obj, ptr=""):
    """(pointer, container) for every containers list, at any depth."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = ptr + "/" + k.replace("~", "~0").replace("/", "~1")
            if k == "containers" and isinstance(v, list):
                for i, c in enumerate(v):
                    yield "%s/%d" % (p, i), c
            else:
                yield from containers(v, p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from containers(v, "%s/%d" % (ptr, i))


def main():
    sent = yaml.safe_load(open(sys.argv[1]))
    stored = json.load(open(sys.argv[2]))
    meta = stored.get("metadata", {})
    for k in ("uid", "resourceVersion", "creationTimestamp", "generation",
              "namespace"):
        meta.pop(k, None)
    sent.get("metadata", {}).pop("namespace", None)
    ann = meta.get("annotations", {})
    ann.pop("kubectl.kubernetes.io/last-applied-configuration", None)
    note = ann.pop("cpulint.io/mutated", None)
    if not ann:
        meta.pop("annotations", None)
    sent_c = dict(containers(sent))
    for ptr, c in containers(stored):
        before = {e.get("name") for e in sent_c.get(ptr, {}).get("env", [])}
        env = c.get("env", [])
        added = [e for e in env if e.get("name") not in before]
        for e in added:
            print("%s %s=%s" % (ptr, e.get("name"), e.get("value")))
        c["env"] = [e for e in env if e.get("name") in before]
        if not c["env"] and "env" not in sent_c.get(ptr, {}):
            del c["env"]
    if note is not None:
        print("note: " + note)
    if stored == sent:
        print("rest: same")
    else:
        print("rest: DIFFERS")
        print("sent:   " + json.dumps(sent, sort_keys=True))
        print("stored: " + json.dumps(stored, sort_keys=True))


main()
