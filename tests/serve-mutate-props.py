#!/usr/bin/env python3
"""Random reviews against serve's /mutate (tests/e2e/serve-mutate.sh).

  serve-mutate-props.py CA URL N SEED FILE.yaml...

Sends N AdmissionReviews made by random edits of the objects in the
files (keys and names holding '~' and '/', odd types where a container,
an env or a CPU is expected, envs without names or with a name twice,
empty and missing envs, odd CPU quantities and rank flags) and checks
every answer holds what docs/serve.md promises:

- 200 with the review's uid (or a 400 for what is not a review);
- a patch, when there is one, is a JSONPatch that applies to the object
  sent (testdata/apiserver/admission.py applies it as the fake API
  server does);
- every env it adds to is a list of entries with valid, distinct names;
- what it adds is only *_NUM_THREADS entries with a count, in main
  containers (never initContainers), never a name the container had,
  and the annotation cpulint.io/mutated: taken out again, the object is
  the one sent.

Prints "reviews N patched P" and one line per broken promise; exits 1
when there is any.  Python standard library, PyYAML and admission.py.
"""
import base64
import copy
import json
import os
import random
import re
import ssl
import sys
import urllib.error
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "testdata", "apiserver"))
import admission  # noqa: E402

ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
ODD = [None, 7, -1, 0.5, "", "~/", "x" * 300, [], {}, True, "\u202e",
       "a/b~c", "500m", "1e3", "0", "0.5", "-4", "99999999999"]


def nodes(v, path=()):
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from nodes(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from nodes(x, path + (i,))


def set_at(root, path, value):
    cur = root
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value


def containers(obj, ptr=""):
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


def mutate(obj, rng):
    obj = copy.deepcopy(obj)
    for _ in range(rng.randint(0, 3)):
        all_nodes = list(nodes(obj))
        path, v = rng.choice(all_nodes)
        what = rng.randrange(8)
        if not path:
            continue
        if what == 0:
            set_at(obj, path, rng.choice(ODD))
        elif what == 1 and isinstance(v, dict) and v:
            k = rng.choice(list(v))
            v[k + rng.choice(["~", "/", "~1", "~0/", "\u00e9"])] = v.pop(k)
        elif what == 2 and isinstance(v, dict) and "name" in v:
            v["name"] = rng.choice(["a/b", "~", "t~1", "\u00e9t\u00e9",
                                    "OMP_NUM_THREADS", "x" * 70])
        elif what == 3:
            for _, c in containers(obj):
                if isinstance(c, dict) and rng.random() < 0.5:
                    c["env"] = rng.choice([
                        [], [{"name": "OMP_NUM_THREADS", "value": "9"}],
                        [{"value": "x"}], [{"name": "A", "value": "1"},
                                           {"name": "A", "value": "2"}],
                        [{"name": "MKL_NUM_THREADS",
                          "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
                        "no", None])
        elif what == 4:
            for _, c in containers(obj):
                if isinstance(c, dict):
                    if not isinstance(c.get("resources"), dict):
                        c["resources"] = {}
                    c["resources"]["limits"] = {
                        "cpu": rng.choice(["0.5", "500m", "1", "3", "64",
                                           "1e3", "-2", 4, None])}
        elif what == 5:
            for _, c in containers(obj):
                if isinstance(c, dict) and isinstance(c.get("command"),
                                                       list):
                    c["command"] = ["torchrun", "--nproc_per_node=%s" %
                                    rng.choice(["1", "2", "3", "auto",
                                                "gpu", "x"]), "t.py"]
        elif what == 6:
            meta = obj.setdefault("metadata", {})
            if isinstance(meta, dict):
                meta["annotations"] = rng.choice([
                    {"a/b~c": "x"}, {"cpulint.io/mutated": "old"},
                    {"cpulint.io/mutate": "false"}, None, "x"])
        elif what == 7 and isinstance(v, list) and v:
            v.append(copy.deepcopy(rng.choice(v)))
    return obj


def post(ctx, url, body):
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type":
                                          "application/json"})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def check(obj, resp, problems, n):
    def bad(msg):
        problems.append("review %d: %s" % (n, msg))
    if "patch" not in resp:
        return False
    if resp.get("patchType") != "JSONPatch":
        bad("patchType %r" % resp.get("patchType"))
        return True
    ops = json.loads(base64.b64decode(resp["patch"]))
    try:
        done = admission.apply_patch(obj, ops)
    except Exception as e:  # noqa: BLE001
        bad("the patch does not apply: %s" % e)
        return True
    for op in ops:
        if op.get("op") != "add" or "/initContainers/" in op["path"]:
            bad("operation %r" % op)
    sent = dict(containers(obj))
    for ptr, c in containers(done):
        env = c.get("env") if isinstance(c, dict) else None
        before = sent.get(ptr)
        if env is None or (isinstance(before, dict) and
                           env == before.get("env")):
            continue
        if not isinstance(env, list) or not all(isinstance(e, dict)
                                                for e in env):
            bad("%s/env is %r" % (ptr, env))
            continue
        names = [e.get("name") for e in env]
        if len({json.dumps(x) for x in names}) != len(names) or not all(
                isinstance(x, str) and ENV_NAME.match(x) for x in names):
            bad("%s/env names %r" % (ptr, names))
        old = before.get("env") if isinstance(before, dict) else None
        old_names = {json.dumps(e.get("name")) for e in old or []
                     if isinstance(e, dict)}
        kept = [e for e in env if json.dumps(e.get("name")) in old_names]
        for e in env:
            if json.dumps(e.get("name")) in old_names:
                continue
            if not (str(e.get("name")).endswith("_NUM_THREADS") and
                    str(e.get("value", "")).isdigit()):
                bad("%s: added %r" % (ptr, e))
        if old is None:
            del c["env"]
        else:
            c["env"] = kept
    meta = done.get("metadata") or {}
    ann = meta.get("annotations") or {}
    if "cpulint.io/mutated" not in ann:
        bad("no annotation")
    sent_ann = (obj.get("metadata") or {}).get("annotations")
    if isinstance(sent_ann, dict) and "cpulint.io/mutated" in sent_ann:
        ann["cpulint.io/mutated"] = sent_ann["cpulint.io/mutated"]
    else:
        ann.pop("cpulint.io/mutated", None)
    if not isinstance(sent_ann, dict):
        meta.pop("annotations", None)
    if done != obj:
        bad("more than env entries and the annotation changed")
    return True


def main():
    ca, url, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    seeds = []
    for f in sys.argv[5:]:
        seeds.extend(d for d in yaml.safe_load_all(open(f)) if d)
    rng = random.Random(seed)
    ctx = ssl.create_default_context(cafile=ca)
    problems, patched = [], 0
    for i in range(n):
        obj = mutate(rng.choice(seeds), rng)
        if not isinstance(obj.get("metadata"), dict):
            obj["metadata"] = {"name": "x"}
        review = {"apiVersion": "admission.k8s.io/v1",
                  "kind": "AdmissionReview",
                  "request": {"uid": "p%d" % i, "operation": "CREATE",
                              "namespace": "mut",
                              "kind": {"group": "", "version": "v1",
                                       "kind": str(obj.get("kind"))},
                              "object": obj}}
        status, body = post(ctx, url, json.dumps(review).encode())
        if status != 200:
            problems.append("review %d: status %d: %s" % (
                i, status, body[:200]))
            continue
        resp = json.loads(body)["response"]
        if resp.get("uid") != "p%d" % i or resp.get("allowed") is not True:
            problems.append("review %d: uid or allowed: %r" % (i, resp))
            continue
        patched += check(obj, resp, problems, i)
    print("reviews %d patched %d" % (n, patched))
    for p in problems[:20]:
        print(p)
    sys.exit(1 if problems else 0)


main()
