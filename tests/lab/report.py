"""report.py: the lab's last half: the plan's Pods served by the test API
server, `compare` and `compare --fix` run against them and the real
Prometheus, the kept file linted, and the table and done-when checks of
issue 34 printed (and written to LAB_OUT/results.json and table.md).

Owns: the fixtures directory and the kept/ copy of each case, and what it
prints.  Figures are Prometheus's (the queries compare makes); the
training loop's own count is kept beside them as a cross-check.
"""
import json
import os
import shutil
import statistics
import subprocess
import time

import yaml

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def stamp(t):
    return time.strftime(STAMP, time.gmtime(t))


def pod_fixture(doc, ns, name, rec):
    tmpl = doc["spec"]["template"]
    labels = dict(tmpl.get("metadata", {}).get("labels", {}))
    labels["job-name"] = doc["metadata"]["name"]
    c = tmpl["spec"]["containers"][0]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels,
                         "uid": "lab-%s-%s" % (ns, name),
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                              "name": doc["metadata"]["name"], "uid": "lab-job-" + name,
                                              "controller": True}]},
            "spec": dict(tmpl["spec"], nodeName="lab-node"),
            "status": {"phase": "Succeeded", "startTime": stamp(rec["start"]),
                       "containerStatuses": [{"name": c["name"], "ready": False, "restartCount": 0,
                                              "image": c["image"],
                                              "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                                                       "startedAt": stamp(rec["start"]),
                                                                       "finishedAt": stamp(rec["finish"])}}}]}}


def summary(run):
    """Median and spread of one setting's examples/s over the repeats."""
    if run is None:
        return None
    v = [r.get("examples_per_s") for r in run["recs"].values()]
    v = [x for x in v if x is not None]
    if not v:
        return None
    d = [r["direct"] for r in run["recs"].values() if "direct" in r]
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v),
            "direct_median": statistics.median(d) if d else None,
            "throttled": statistics.median([r["throttled_pct"] for r in run["recs"].values()
                                            if r.get("throttled_pct") is not None] or [0]),
            "cpu": statistics.median([r["cpu"] for r in run["recs"].values()
                                      if r.get("cpu") is not None] or [0])}


def cell(name, s, best):
    if s is None:
        return "%s: not measured" % name
    txt = "%s %.0f [%.0f-%.0f]" % (name, s["median"], s["min"], s["max"])
    if best:
        txt += " (%.2fx)" % (s["median"] / best)
    return txt


def compare_and_report(cases, runs, prom, BIN, OUT, repeats, TP, WT, namespace, pod_name, elapsed, cfg):
    import lab
    ok = True
    fx = os.path.join(OUT, "fixtures")
    shutil.rmtree(fx, ignore_errors=True)
    os.makedirs(fx)
    for c in cases:
        for doc, s in c["planned"]:
            run = runs[(c["script"], s["key"])]
            for rep, rec in run["recs"].items():
                if "start" not in rec or not lab.plan_run(doc, rep):
                    continue
                ns = lab.plan_namespace(c, rep)
                with open(os.path.join(fx, "%s-pod-%s.json" % (ns, pod_name(doc))), "w") as f:
                    json.dump(pod_fixture(doc, ns, pod_name(doc), rec), f, indent=1)
    kubeconfig = prom.apiserver(fx)
    K = ["--kubeconfig", kubeconfig, "--prometheus", prom.url]
    lines, checks, results = [], [], []
    for c in cases:
        wl, b = c["workload"], c["budget"]
        R = lambda s: runs.get((c["script"], s["key"])) if s else None
        res = {"workload": wl, "budget": b, "rules": c["rules"], "plan_id": c["plan_id"],
               "plan_said": c["plan_said"], "compare": [], "kept": None}
        # compare on every repeat's Pods; --fix with the first (the sweep
        # a user runs once); a plan that repeats its runs (plan
        # --repeat) is one sweep of them all in one namespace
        many = lab.plan_namespace(c, 1) != namespace(c, 1)
        for rep in range(1, 2 if many else repeats + 1):
            if not c["plan_id"]:
                break
            p = subprocess.run([BIN, "compare"] + K + ["-n", lab.plan_namespace(c, rep), "-l",
                               "cpulint.io/plan=" + c["plan_id"], "--throughput", TP, "--wait", WT,
                               "-o", "json"], capture_output=True, text=True, timeout=120)
            try:
                d = json.loads(p.stdout)
                res["compare"].append({"rep": "all" if many else rep, "best": d.get("best"),
                                       "verdict": [v.get("message") for v in d.get("verdict", [])]})
            except ValueError:
                res["compare"].append({"rep": "all" if many else rep, "error": (p.stderr or p.stdout).strip()[-400:]})
                ok = False
        kept_dir = os.path.join(c["dir"], "kept")
        shutil.rmtree(kept_dir, ignore_errors=True)
        shutil.copytree(os.path.join(c["dir"], "fixed"), kept_dir)
        kept_spec, kept_lint = None, None
        if c["plan_id"]:
            p = subprocess.run([BIN, "compare"] + K + ["-n", lab.plan_namespace(c, 1), "-l",
                               "cpulint.io/plan=" + c["plan_id"], "--throughput", TP, "--wait", WT,
                               "--fix", "job.yaml"], capture_output=True, text=True, timeout=120,
                               cwd=kept_dir)
            res["compare_fix"] = {"rc": p.returncode, "said": (p.stdout + p.stderr).strip().splitlines()}
            if p.returncode == 0:
                kept_spec = lab.run_spec(yaml.safe_load(open(os.path.join(kept_dir, "job.yaml"))), kept_dir)
                q = subprocess.run([BIN, "job.yaml"], capture_output=True, text=True, cwd=kept_dir, timeout=60)
                kept_lint = {"rc": q.returncode, "findings": [l for l in q.stdout.splitlines() if "[CPU" in l]}
        elif "nothing to compare" in (c["plan_said"] or ""):
            # The plan found one setting in the budget and said so: what
            # a user following the tool keeps is the fixed file as it is.
            kept_spec = c["fix"]
            q = subprocess.run([BIN, "job.yaml"], capture_output=True, text=True, cwd=kept_dir, timeout=60)
            kept_lint = {"rc": q.returncode, "findings": [l for l in q.stdout.splitlines() if "[CPU" in l]}
            res["nothing_to_compare"] = True
        res["kept_lint"] = kept_lint
        # what compare chose on the sweep --fix read, kept or not
        chosen = None
        first = res["compare"][0].get("best") if res["compare"] else None
        for doc, s in c["planned"]:
            if doc["metadata"]["labels"].get("cpulint.io/setting") == first:
                chosen = s
        gs = [(summary(R(s)), s) for s in c["grid"]]
        gs = [(x, s) for x, s in gs if x]
        best, best_spec = (max(gs, key=lambda t: t[0]["median"]) if gs else (None, None))
        bm = best["median"] if best else None
        rows = {"written": (c["written"], summary(R(c["written"]))),
                "fix": (c["fix"], summary(R(c["fix"]))),
                "static": (c["static"], summary(R(c["static"]))),
                "kept": (kept_spec, summary(R(kept_spec)) if kept_spec else None),
                "chosen": (chosen, summary(R(chosen)) if chosen else None),
                "grid_best": (best_spec, best)}
        for k, (s, x) in rows.items():
            res[k] = {"setting": lab.setting_name(s) if s else None, "figures": x}
        res["planned"] = [lab.setting_name(s) for _, s in c["planned"]]
        res["grid"] = {lab.setting_name(s): x for x, s in gs}
        results.append(res)
        name = lambda k: lab.setting_name(rows[k][0]) if rows[k][0] else "-"
        lines.append("| %s | %g | %s | %s | %s | %s | %s |" % (
            wl, b, cell(name("written"), rows["written"][1], bm), cell(name("fix"), rows["fix"][1], bm),
            cell(name("static"), rows["static"][1], bm) if rows["static"][0] else "no suggestion",
            (("nothing to compare: " if res.get("nothing_to_compare") else "") +
             cell(name("kept"), rows["kept"][1], bm)) if kept_spec else
            ("no plan" if not c["plan_id"] else "--fix refused; compare chose " +
             cell(name("chosen"), rows["chosen"][1], bm)),
            cell(name("grid_best"), best, None) if best else "no grid"))
        tag = "%s at %g CPU" % (wl, b)
        fired = [r for r in c["rules"] if r[3] in "234"]
        w, f = rows["written"][1], rows["fix"][1]
        if not fired:
            checks.append("SKIP %s: fix >= 1.3x as written: no budget rule fired" % tag)
        elif w and f:
            # Where the job as written already runs at more than 1/1.3 of
            # the grid's best, no setting gains 1.3x: the line says so,
            # with how near the fix comes to the best; the check stays
            # a FAIL as issue 34 words it.
            ceiling = ""
            if f["median"] < 1.3 * w["median"] and bm and 1.3 * w["median"] > bm:
                ceiling = "; no setting gains 1.3x here: the grid's best is %.2fx as written, the fix %.2fx of the best" % (
                    bm / w["median"], f["median"] / bm)
            checks.append("%s %s: fix >= 1.3x as written (%s fired): %.2fx (%s -> %s)%s" % (
                "PASS" if f["median"] >= 1.3 * w["median"] else "FAIL", tag, ",".join(fired),
                f["median"] / w["median"], name("written"), name("fix"), ceiling))
        else:
            checks.append("FAIL %s: fix >= 1.3x as written: not measured" % tag)
        if not bm:
            checks.append("SKIP %s: static/kept against the grid: no grid (smoke)" % tag)
            continue
        st = rows["static"][1]
        checks.append(("%s %s: static suggestion >= 0.90x grid best: %.2fx (%s vs %s)" % (
            "PASS" if st["median"] >= 0.90 * bm else "FAIL", tag, st["median"] / bm, name("static"),
            name("grid_best"))) if st else "FAIL %s: static suggestion: none to measure" % tag)
        kp = rows["kept"][1]
        if kp:
            checks.append("%s %s: kept >= 0.95x grid best: %.2fx (%s vs %s)" % (
                "PASS" if kp["median"] >= 0.95 * bm else "FAIL", tag, kp["median"] / bm, name("kept"),
                name("grid_best")))
        else:
            why = "plan wrote nothing (%s)" % c["plan_said"].splitlines()[-1] if not c["plan_id"] else \
                "compare --fix: %s" % " / ".join(res.get("compare_fix", {}).get("said", [])[-1:])
            ch = rows["chosen"][1]
            if ch:
                why = "compare chose %s at %.2fx, but %s" % (name("chosen"), ch["median"] / bm, why)
            checks.append("FAIL %s: kept >= 0.95x grid best: %s" % (tag, why))
        if kept_lint is not None:
            checks.append("%s %s: the kept file lints clean%s" % (
                "PASS" if kept_lint["rc"] == 0 else "FAIL", tag,
                "" if kept_lint["rc"] == 0 else ": " + "; ".join(kept_lint["findings"])))
    # OpenCV's pool in the loader (CPU304, issue 36): the same job
    # without and with the fix's cv2.setNumThreads(0)
    cv_lines, cv_checks, helped, judged = [], [], 0, 0
    for c in cases:
        for name, off, on in c.get("cv2", []):
            a, b = summary(runs.get((c["script"], off["key"]))), summary(runs.get((c["script"], on["key"])))
            seen = lambda x: "%.0f" % x if x is not None else "?"
            thr = lambda run: statistics.median([r["threads_seen"] for r in run["recs"].values()
                                                 if r.get("threads_seen") is not None] or [float("nan")])
            if not a or not b:
                cv_lines.append("| %g | %s %s | not measured | | | |" % (c["budget"], name, lab.setting_name(off)))
                continue
            judged += 1
            ratio = b["median"] / a["median"]
            good = ratio >= 1.05 and b["min"] > a["max"]
            helped += good
            cv_lines.append("| %g | %s %s | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.2fx | %s / %s |" % (
                c["budget"], name, lab.setting_name(off), a["median"], a["min"], a["max"],
                b["median"], b["min"], b["max"], ratio,
                seen(thr(runs[(c["script"], off["key"])])), seen(thr(runs[(c["script"], on["key"])]))))
            cv_checks.append("%s %s at %g CPU, %s %s: cv2.setNumThreads(0) >= 1.05x without, spreads apart: %.2fx" % (
                "PASS" if good else "FAIL", c["workload"], c["budget"], name, lab.setting_name(off), ratio))
    if judged:
        cv_checks.append("%s issue 36: the fix that bounds a second pool (OpenCV in the loader, CPU304) measurably "
                         "helps in %d of %d cases" % ("PASS" if helped else "FAIL", helped, judged))
    # OpenBLAS's pool in the loader (CPU401's other pools, issue 36): the
    # job as written, as --fix wrote it, and as written with nothing
    # changed but OPENBLAS_NUM_THREADS=1 (CPU401's fix text)
    bl_lines, bl_checks = [], []
    for c in cases:
        pairs = dict((name, (off, on)) for name, off, on in c.get("blas", []))
        if not pairs:
            continue
        w_off, w_on = pairs["written"]
        f_off = pairs["fix"][0]
        a, f, o = (summary(runs.get((c["script"], s["key"]))) for s in (w_off, f_off, w_on))
        thr = lambda s: statistics.median([r["threads_seen"] for r in runs[(c["script"], s["key"])]["recs"].values()
                                           if r.get("threads_seen") is not None] or [float("nan")])
        cellf = lambda s, x: "%s %.0f [%.0f-%.0f]" % (lab.setting_name(s), x["median"], x["min"], x["max"]) \
            if x else "%s not measured" % lab.setting_name(s)
        ratio = lambda x: "%.2fx" % (x["median"] / a["median"]) if x and a else "-"
        bl_lines.append("| %g | %s | %s | %s | %s | %s | %.0f / %.0f / %.0f |" % (
            c["budget"], cellf(w_off, a), cellf(f_off, f), cellf(w_on, o), ratio(f), ratio(o),
            thr(w_off), thr(f_off), thr(w_on)))
        for what, s, x in (("the fix (--fix as run)", f_off, f), ("OPENBLAS_NUM_THREADS=1 only", w_on, o)):
            if not a or not x:
                bl_checks.append("FAIL %s at %g CPU: %s: not measured" % (c["workload"], c["budget"], what))
                continue
            good = x["median"] >= 1.3 * a["median"] and x["min"] > a["max"]
            bl_checks.append("%s %s at %g CPU: the fix that sets the second pool measurably helps (>= 1.3x, "
                             "spreads apart): %s %s: %.2fx (%s -> %s)%s" % (
                                 "PASS" if good else "FAIL", c["workload"], c["budget"], what,
                                 "sets it" if s["env"].get("OPENBLAS_NUM_THREADS") == "1" else
                                 "does not set it (OPENBLAS_NUM_THREADS=%s)" % s["env"].get("OPENBLAS_NUM_THREADS"),
                                 x["median"] / a["median"], lab.setting_name(w_off), lab.setting_name(s),
                                 "" if s is not f_off else " (" + c["fix_said"][0] + ")"))
    # Prometheus against the loops' own counts
    worst = 0.0
    missing = 0
    for run in runs.values():
        for rec in run["recs"].values():
            if "direct" not in rec or rec.get("examples_per_s") is None:
                missing += 1
                continue
            worst = max(worst, abs(rec["examples_per_s"] - rec["direct"]) / rec["direct"])
    if missing:
        ok = False
    head = ("| workload | CPUs | as written | fix | static suggestion | plan+compare kept | grid best |\n"
            "| --- | --- | --- | --- | --- | --- | --- |")
    print("lab: %s, %d repeat(s) of %g s per setting, interleaved; %.0f s in all" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), repeats, cfg["seconds"], elapsed))
    print("examples/s, Prometheus, median [min-max] over repeats (ratio to the grid's best)")
    print(head)
    print("\n".join(lines))
    print("lab: Prometheus vs the loops' own counts: worst %.1f%% apart; %d run(s) without figures" % (
        100 * worst, missing))
    for c in results:
        for x in c["compare"]:
            print("lab: compare %s at %g CPU, %s: %s" % (
                c["workload"], c["budget"], "the median of each setting's runs" if x["rep"] == "all"
                else "repeat %d" % x["rep"], x.get("best") or x.get("error")))
        if c.get("compare_fix"):
            print("lab: compare --fix %s at %g CPU: %s" % (c["workload"], c["budget"],
                                                          " / ".join(c["compare_fix"]["said"][-2:])))
    for ch in checks:
        print(ch)
    cv_head = ("| CPUs | job | OpenCV's pool as is | with cv2.setNumThreads(0) | with / without | "
               "threads seen (without / with) |\n| --- | --- | --- | --- | --- | --- |")
    if cv_lines:
        print("OpenCV's pool in the loader (CPU304's fix), images: examples/s, Prometheus, median [min-max]")
        print(cv_head)
        print("\n".join(cv_lines))
        for ch in cv_checks:
            print(ch)
    bl_head = ("| CPUs | as written | fix (--fix) | as written, OPENBLAS_NUM_THREADS=1 only | fix / written | "
               "OPENBLAS=1 / written | threads seen (written / fix / OPENBLAS=1) |\n"
               "| --- | --- | --- | --- | --- | --- | --- |")
    if bl_lines:
        print("OpenBLAS's pool in the loader (CPU401's other pools), features: examples/s, Prometheus, "
              "median [min-max]")
        print(bl_head)
        print("\n".join(bl_lines))
        for ch in bl_checks:
            print(ch)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump({"config": cfg, "results": results, "checks": checks + cv_checks + bl_checks,
                   "runs": {r["id"]: {"argv": r["spec"]["argv"], "env": r["spec"]["env"],
                                      "cpus": r["spec"]["cpus"], "recs": r["recs"]}
                            for r in runs.values()}}, f, indent=1, default=str)
    with open(os.path.join(OUT, "table.md"), "w") as f:
        f.write(head + "\n" + "\n".join(lines) + "\n")
        if cv_lines:
            f.write("\n" + cv_head + "\n" + "\n".join(cv_lines) + "\n")
        if bl_lines:
            f.write("\n" + bl_head + "\n" + "\n".join(bl_lines) + "\n")
    return ok
