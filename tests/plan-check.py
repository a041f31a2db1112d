#!/usr/bin/env python3
"""Checks a plan written by `kubectl cpulint plan` is valid for its engine.

    plan-check.py polyaxon|katib|jobs PLAN.yaml

polyaxon: the operation against testdata/plan/schema/polyaxon-operation.
schema.json, every matrix key and param an input of the component, every
{{ x }} of the component an input, the run's environment labels the
plan's.  katib: each Experiment (one per knob) against Katib's CRD (its
openAPIV3Schema) and testdata/plan/schema/katib-experiment.schema.json,
plus the rules Katib's admission webhook applies across fields
(trialParameters reference parameters; every ${trialParameters.x} of the
trialSpec is declared and every one declared is used; counts); one knob
at a time: in each, at most one parameter lists more than one value;
every Experiment and Pod template labelled with the one plan, and with
the setting.
jobs: every manifest named uniquely (at most 63 bytes) and labelled
cpulint.io/plan and cpulint.io/setting on the object and on its Pod
templates.  A plan with --repeat N: every setting N times, each run
labelled cpulint.io/repeat 1..N (Polyaxon: the cpulint_repeat input;
Katib: a repeat parameter, which is no knob).  Prints what is wrong and
exits 1; exits 0 when valid.
"""
import json
import re
import sys

import jsonschema
import yaml

HERE = "testdata"


def schema(name):
    with open("%s/plan/schema/%s" % (HERE, name)) as f:
        return json.load(f)


def walk_strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from walk_strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk_strings(x)


def templates(v):
    """Pod templates: mappings under "template" whose spec has containers."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "template" and isinstance(x, dict) and \
                    "containers" in (x.get("spec") or {}):
                yield x
            yield from templates(x)
    elif isinstance(v, list):
        for x in v:
            yield from templates(x)


def polyaxon(docs):
    assert len(docs) == 1, "one operation, not %d documents" % len(docs)
    op = docs[0]
    jsonschema.validate(op, schema("polyaxon-operation.schema.json"))
    comp = op["component"]
    inputs = {i["name"] for i in comp.get("inputs", [])}
    for row in op["matrix"]["values"]:
        for k in row:
            assert k in inputs, "matrix key %s is no input" % k
    for k in op.get("params", {}):
        assert k in inputs, "param %s is no input" % k
    for s in walk_strings(comp["run"]):
        for name in re.findall(r"{{\s*([A-Za-z_][A-Za-z0-9_]*)\s*}}", s):
            assert name in inputs, "{{ %s }} is no input" % name
    assert "cpulint_threads" in inputs and "cpulint_setting" in inputs
    labels = comp["run"]["environment"]["labels"]
    assert labels["cpulint.io/plan"] == op["name"], labels
    assert labels["cpulint.io/setting"] == "{{ cpulint_setting }}", labels
    rows = op["matrix"]["values"]
    if any("cpulint_repeat" in r for r in rows):
        assert "cpulint_repeat" in inputs
        assert labels["cpulint.io/repeat"] == "{{ cpulint_repeat }}", labels
        repeats(((r["cpulint_setting"], str(r["cpulint_repeat"])) for r in rows))
    else:
        assert "cpulint.io/repeat" not in labels, labels


def repeats(pairs):
    """Each setting run 1..N times, every pair once, N the same for all."""
    pairs = list(pairs)
    assert len(set(pairs)) == len(pairs), "a run twice"
    runs = {}
    for s, r in pairs:
        runs.setdefault(s, set()).add(r)
    n = {len(v) for v in runs.values()}
    assert len(n) == 1, runs
    n = n.pop()
    assert n > 1, "one run each, with repeat labels"
    for v in runs.values():
        assert v == {str(i) for i in range(1, n + 1)}, v


def katib(docs):
    assert docs, "no Experiment"
    plans = set()
    for exp in docs:
        plans.add(experiment(exp))
    assert len(plans) == 1, plans
    assert len({d["metadata"]["name"] for d in docs}) == len(docs)


def experiment(exp):
    with open("%s/reference/katib/manifests_v1beta1_components_crd_"
              "experiment.yaml" % HERE) as f:
        crd = yaml.safe_load(f)
    v = crd["spec"]["versions"][0]
    assert crd["spec"]["names"]["kind"] == exp["kind"]
    assert "%s/%s" % (crd["spec"]["group"], v["name"]) == exp["apiVersion"]
    crd_schema = {k: x for k, x in v["schema"]["openAPIV3Schema"].items()
                  if not k.startswith("x-kubernetes")}
    jsonschema.validate(exp, crd_schema)
    jsonschema.validate(exp, schema("katib-experiment.schema.json"))
    spec = exp["spec"]
    params = {p["name"]: p for p in spec["parameters"]}
    tt = spec["trialTemplate"]
    declared = set()
    for tp in tt["trialParameters"]:
        assert tp["name"] not in declared, "trialParameter twice"
        declared.add(tp["name"])
        ref = tp["reference"]
        assert ref in params or ref.startswith("${trialSpec."), \
            "trialParameter %s references %s" % (tp["name"], ref)
    used = set()
    for s in walk_strings(tt["trialSpec"]):
        used |= set(re.findall(r"\$\{trialParameters\.([^}]+)\}", s))
    assert used == declared, "used %s, declared %s" % (used, declared)
    trials = 1
    for p in params.values():
        trials *= len(p["feasibleSpace"]["list"])
    assert sum(len(p["feasibleSpace"]["list"]) > 1
               for n, p in params.items() if n != "repeat") <= 1, "two knobs vary"
    assert spec["maxTrialCount"] == trials, (spec["maxTrialCount"], trials)
    assert spec["maxFailedTrialCount"] <= spec["maxTrialCount"]
    assert spec["parallelTrialCount"] <= spec["maxTrialCount"]
    assert spec["algorithm"]["algorithmName"] == "grid"
    plan = exp["metadata"]["labels"]["cpulint.io/plan"]
    assert tt["trialSpec"]["metadata"]["labels"]["cpulint.io/plan"] == plan
    rep = "repeat" in params
    if rep:
        n = len(params["repeat"]["feasibleSpace"]["list"])
        assert n > 1 and params["repeat"]["feasibleSpace"]["list"] == \
            [str(i) for i in range(1, n + 1)], params["repeat"]
    for t in templates(tt["trialSpec"]):
        assert t["metadata"]["labels"]["cpulint.io/plan"] == plan
        assert t["metadata"]["labels"]["cpulint.io/setting"] == \
            tt["trialSpec"]["metadata"]["labels"]["cpulint.io/setting"]
        assert t["metadata"]["labels"].get("cpulint.io/repeat") == \
            ("${trialParameters.repeat}" if rep else None), t["metadata"]
    return plan


def jobs(docs):
    names = set()
    plans = set()
    for d in docs:
        name = d["metadata"]["name"]
        assert len(name) <= 63 and name not in names, name
        assert re.match(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", name), name
        names.add(name)
        labels = d["metadata"]["labels"]
        plans.add(labels["cpulint.io/plan"])
        for t in templates(d.get("spec")):
            tl = t["metadata"]["labels"]
            assert tl["cpulint.io/plan"] == labels["cpulint.io/plan"]
            assert tl["cpulint.io/setting"] == labels["cpulint.io/setting"]
            assert tl.get("cpulint.io/repeat") == labels.get("cpulint.io/repeat")
    assert len(plans) == 1, plans
    if any("cpulint.io/repeat" in d["metadata"]["labels"] for d in docs):
        repeats((d["metadata"]["labels"]["cpulint.io/setting"],
                 d["metadata"]["labels"]["cpulint.io/repeat"]) for d in docs)
    else:
        assert len({d["metadata"]["labels"]["cpulint.io/setting"]
                    for d in docs}) == len(docs)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    try:
        {"polyaxon": polyaxon, "katib": katib, "jobs": jobs}[kind](docs)
    except (AssertionError, KeyError, jsonschema.ValidationError) as e:
        print("%s: not a valid %s plan: %s" % (path, kind,
              str(e).split("\n")[0] or type(e).__name__))
        sys.exit(1)


if __name__ == "__main__":
    main()
