#!/usr/bin/env python3
"""A fake Kubernetes API server for kubectl-cpulint's live-mode tests.

It answers over HTTPS on 127.0.0.1 like a real API server, faithfully enough
that the real kubectl works against it: discovery documents, GET of one
object, LIST with labelSelector/fieldSelector, limit/continue paging and
all-namespaces lists, WATCH of a collection (events on create, replace and
delete, resourceVersion, bookmarks, timeoutSeconds; SIGUSR1 ends every
open watch with a 410 Gone, SIGUSR2 breaks their connections off), Status
bodies for 401/403/404/429, and the kubelet's cAdvisor metrics through
/api/v1/nodes/NODE/proxy/metrics/cadvisor.

At start it makes a CA with the openssl CLI and writes into --dir:

  ca.crt                the CA that signed the server certificate
  other-ca.crt          a CA that did not (for TLS-failure tests)
  server.crt            SANs IP:127.0.0.1 and DNS:kube.fake.test only
  client.crt client.key a client certificate (CN cpl-cert-user)
  token                 the bearer token of user cpl-tester
  kubeconfig            contexts fake-token (current), fake-cert,
                        fake-wrong-ca, fake-tls-name, fake-bad-token
  kubeconfig-token      token auth, CA as certificate-authority-data
  kubeconfig-cert       client-cert auth, files by relative path
  requests.jsonl        one JSON line per request: method, path, query,
                        auth kind and user (never a token), status
  port                  the port, written last (wait for this file)

Invariants: it binds loopback only; it never writes a token into the
request log; it exits after --timeout seconds or on SIGTERM/SIGINT.
Python 3 standard library only, plus the openssl command.
"""

import argparse
import base64
import calendar
import hashlib
import http.server
import itertools
import json
import os
import re
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import admission  # noqa: E402  (beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))

# (group, version, plural, kind, namespaced, shortNames, verbs, categories)
LIST_VERBS = ["get", "list", "watch"]
RW_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch"]
RESOURCES = [
    ("", "v1", "pods", "Pod", True, ["po"], RW_VERBS, ["all"]),
    ("", "v1", "configmaps", "ConfigMap", True, ["cm"], RW_VERBS, []),
    ("", "v1", "limitranges", "LimitRange", True, ["limits"], RW_VERBS, []),
    ("", "v1", "secrets", "Secret", True, [], RW_VERBS, []),
    ("", "v1", "nodes", "Node", False, ["no"], RW_VERBS, []),
    ("", "v1", "namespaces", "Namespace", False, ["ns"],
     ["create", "delete", "get", "list", "patch", "update", "watch"], []),
    ("", "v1", "services", "Service", True, ["svc"], RW_VERBS, ["all"]),
    ("apps", "v1", "deployments", "Deployment", True, ["deploy"], RW_VERBS,
     ["all"]),
    ("apps", "v1", "replicasets", "ReplicaSet", True, ["rs"], RW_VERBS,
     ["all"]),
    ("apps", "v1", "statefulsets", "StatefulSet", True, ["sts"], RW_VERBS,
     ["all"]),
    ("apps", "v1", "daemonsets", "DaemonSet", True, ["ds"], RW_VERBS,
     ["all"]),
    ("batch", "v1", "jobs", "Job", True, [], RW_VERBS, ["all"]),
    ("batch", "v1", "cronjobs", "CronJob", True, ["cj"], RW_VERBS, ["all"]),
    ("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", True, [], RW_VERBS,
     []),
    ("kubeflow.org", "v1", "tfjobs", "TFJob", True, [], RW_VERBS, []),
    ("kubeflow.org", "v1", "mpijobs", "MPIJob", True, [], RW_VERBS, []),
    ("kubeflow.org", "v2beta1", "mpijobs", "MPIJob", True, [], RW_VERBS, []),
    ("kubeflow.org", "v1beta1", "experiments", "Experiment", True, [],
     RW_VERBS, []),
    ("trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob", True, [],
     RW_VERBS, []),
    ("trainer.kubeflow.org", "v1alpha1", "trainingruntimes",
     "TrainingRuntime", True, [], RW_VERBS, []),
    ("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes",
     "ClusterTrainingRuntime", False, [], RW_VERBS, []),
    # Applied webhook configurations are called (admission.py).
    ("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
     "MutatingWebhookConfiguration", False, [], RW_VERBS, []),
    ("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
     "ValidatingWebhookConfiguration", False, [], RW_VERBS, []),
    # serve's leader election, and what docs/serve.md installs (deploy/)
    ("coordination.k8s.io", "v1", "leases", "Lease", True, [], RW_VERBS,
     []),
    ("", "v1", "serviceaccounts", "ServiceAccount", True, ["sa"], RW_VERBS,
     []),
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True,
     ["pdb"], RW_VERBS, []),
    ("rbac.authorization.k8s.io", "v1", "roles", "Role", True, [],
     RW_VERBS, []),
    ("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True,
     [], RW_VERBS, []),
    ("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole",
     False, [], RW_VERBS, []),
    ("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
     "ClusterRoleBinding", False, [], RW_VERBS, []),
    ("cert-manager.io", "v1", "issuers", "Issuer", True, [], RW_VERBS,
     ["cert-manager"]),
    ("cert-manager.io", "v1", "certificates", "Certificate", True,
     ["cert", "certs"], RW_VERBS, ["cert-manager"]),
    ("monitoring.coreos.com", "v1", "servicemonitors", "ServiceMonitor",
     True, ["smon"], RW_VERBS, []),
    ("monitoring.coreos.com", "v1", "prometheusrules", "PrometheusRule",
     True, ["promrule"], RW_VERBS, []),
]
SUBRESOURCES = {
    ("", "v1"): [("pods/log", "Pod", True, ["get"]),
                 ("pods/status", "Pod", True, ["get", "patch", "update"]),
                 ("nodes/proxy", "NodeProxyOptions", False,
                  ["create", "delete", "get", "patch", "update"]),
                 ("nodes/status", "Node", False, ["get", "patch", "update"])],
    ("apps", "v1"): [("deployments/scale", "Scale", True,
                      ["get", "patch", "update"])],
}
BUILTIN_GROUPS = {"", "apps", "batch", "coordination.k8s.io", "policy",
                  "rbac.authorization.k8s.io",
                  "admissionregistration.k8s.io"}
KIND_INDEX = {(g, v, k): (g, v, r, k, ns)
              for g, v, r, k, ns, _, _, _ in RESOURCES}
RES_INDEX = {(g, v, r): (g, v, r, k, ns)
             for g, v, r, k, ns, _, _, _ in RESOURCES}


def gv_string(group, version):
    return version if group == "" else group + "/" + version


def go_float(v):
    """Formats a number as Go's strconv 'g' shortest (Prometheus style)."""
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e6:
        return str(int(v))
    if abs(v) >= 1e6 and v == int(v):
        digits = str(int(abs(v))).rstrip("0")
        return "%.*e" % (max(len(digits) - 1, 0), v)
    return repr(v)


# ---- certificates ----------------------------------------------------------

def openssl(*args, cwd):
    subprocess.run(("openssl",) + args, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certs(d):
    """CA, server and client certificates (EC P-256) in directory d."""
    def key(name):
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-out", name, cwd=d)

    def ca(name, cn):
        key(name + ".key")
        openssl("req", "-x509", "-new", "-key", name + ".key", "-subj",
                "/CN=" + cn, "-days", "2", "-out", name + ".crt",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)

    def leaf(name, subj, ext):
        key(name + ".key")
        openssl("req", "-new", "-key", name + ".key", "-subj", subj,
                "-out", name + ".csr", cwd=d)
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt",
                "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", name + ".ext", "-out", name + ".crt", cwd=d)
        os.unlink(os.path.join(d, name + ".csr"))
        os.unlink(os.path.join(d, name + ".ext"))

    ca("ca", "cpulint-fake-ca")
    ca("other-ca", "cpulint-other-ca")
    os.unlink(os.path.join(d, "other-ca.key"))
    leaf("server", "/CN=kube-apiserver",
         "subjectAltName=IP:127.0.0.1,DNS:kube.fake.test\n"
         "keyUsage=critical,digitalSignature\n"
         "extendedKeyUsage=serverAuth\n")
    leaf("client", "/O=system:masters/CN=cpl-cert-user",
         "keyUsage=critical,digitalSignature\n"
         "extendedKeyUsage=clientAuth\n")


def b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def write_kubeconfigs(d, port, token):
    """kubeconfig (all contexts), kubeconfig-token, kubeconfig-cert."""
    server = "https://127.0.0.1:%d" % port
    ca_data = b64file(os.path.join(d, "ca.crt"))
    other_data = b64file(os.path.join(d, "other-ca.crt"))

    def doc(clusters, users, contexts, current):
        lines = ["apiVersion: v1", "kind: Config", "preferences: {}",
                 "current-context: " + current, "clusters:"]
        for name, fields in clusters:
            lines.append("- name: " + name)
            lines.append("  cluster:")
            lines += ["    %s: %s" % kv for kv in fields]
        lines.append("users:")
        for name, fields in users:
            lines.append("- name: " + name)
            lines.append("  user:")
            lines += ["    %s: %s" % kv for kv in fields]
        lines.append("contexts:")
        for name, cluster, user in contexts:
            lines += ["- name: " + name, "  context:",
                      "    cluster: " + cluster, "    user: " + user,
                      "    namespace: ml"]
        return "\n".join(lines) + "\n"

    fake = ("fake", [("server", server),
                     ("certificate-authority-data", ca_data)])
    fake_files = ("fake", [("server", server),
                           ("certificate-authority", "ca.crt")])
    wrong = ("fake-wrong-ca", [("server", server),
                               ("certificate-authority-data", other_data)])
    named = ("fake-tls-name", [
        ("server", "https://localhost:%d" % port),
        ("certificate-authority-data", ca_data),
        ("tls-server-name", "kube.fake.test")])
    tok = ("token-user", [("token", token)])
    bad = ("bad-token-user", [("token", "not-the-token")])
    cert = ("cert-user", [("client-certificate", "client.crt"),
                          ("client-key", "client.key")])
    files = {
        "kubeconfig": doc(
            [fake, wrong, named],
            [tok, bad, ("cert-user", [
                ("client-certificate-data",
                 b64file(os.path.join(d, "client.crt"))),
                ("client-key-data",
                 b64file(os.path.join(d, "client.key")))])],
            [("fake-token", "fake", "token-user"),
             ("fake-cert", "fake", "cert-user"),
             ("fake-wrong-ca", "fake-wrong-ca", "token-user"),
             ("fake-tls-name", "fake-tls-name", "token-user"),
             ("fake-bad-token", "fake", "bad-token-user")],
            "fake-token"),
        "kubeconfig-token": doc([fake], [tok],
                                [("fake-token", "fake", "token-user")],
                                "fake-token"),
        "kubeconfig-cert": doc([fake_files], [cert],
                               [("fake-cert", "fake", "cert-user")],
                               "fake-cert"),
    }
    for name, text in files.items():
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o600)


# ---- the object store ------------------------------------------------------

class Store:
    """Objects by (group, version, plural) → {(namespace, name): object}."""

    def __init__(self):
        self.objects = {}
        self.rv = 6000000
        self.throttling = {}
        self.cpus = {}          # ns/pod/container -> CPUs used
        self.threads = {}       # ns/pod/container -> threads
        self.pids_max = {}      # ns/pod[/container] -> pids.max (0: max)

    def add(self, obj, origin):
        group, _, version = obj["apiVersion"].rpartition("/")
        key = (group, version, obj["kind"])
        if key not in KIND_INDEX:
            raise SystemExit("%s: unknown kind %s %s" %
                             (origin, obj["apiVersion"], obj["kind"]))
        g, v, plural, kind, namespaced = KIND_INDEX[key]
        meta = obj.setdefault("metadata", {})
        ns = meta.get("namespace", "") if namespaced else ""
        if namespaced and not ns:
            raise SystemExit("%s: %s %s has no namespace" %
                             (origin, kind, meta.get("name")))
        bucket = self.objects.setdefault((g, v, plural), {})
        if (ns, meta["name"]) in bucket:
            raise SystemExit("%s: duplicate %s %s/%s" %
                             (origin, kind, ns, meta["name"]))
        bucket[(ns, meta["name"])] = obj

    def load_dir(self, d):
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not name.endswith(".json"):
                continue
            with open(path) as f:
                doc = json.load(f)
            if name == "_throttling.json":
                self.throttling.update(doc.get("ratios", {}))
                self.cpus.update(doc.get("cpus", {}))
                self.threads.update(doc.get("threads", {}))
                self.pids_max.update(doc.get("pids_max", {}))
                continue
            if name.startswith("_"):
                continue
            for obj in doc.get("items", [doc]) if doc.get("kind", "").endswith(
                    "List") else [doc]:
                self.add(obj, path)

    def generate_pods(self, n, nodes=0, containers=1, training=False):
        """n small pods over namespaces gen-a, gen-b, gen-c (paging); with
        nodes > 0, Running on that many Nodes gen-node-K, round robin.
        containers: containers per Pod.  training: each container runs
        torchrun with 8 ranks and 4 loader workers each in 4 CPUs (the
        first) or python with no thread variables, and every 100 Pods of a
        namespace belong to one ReplicaSet of one Deployment (owner
        references, as a Deployment's Pods have)."""
        tiers = ["batch", "web", "etl"]
        for k in range(nodes):
            self.add({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": "gen-node-%03d" % k}},
                     "--pod-nodes")
        owners = set()
        # Every generated Pod has the same containers: one list, shared by
        # all of them (read only: the server never changes a stored
        # object), so 10,000 Pods x 100 containers start in a second.
        conts = []
        for c in range(containers):
            name = "main" if c == 0 else "side%03d" % c
            if training:
                conts.append({
                    "name": name, "image": "pytorch/pytorch:2.3.0",
                    "command": ["torchrun", "--nproc_per_node=8",
                                "train.py", "--num-workers", "4"]
                    if c == 0 else ["python", "train.py"],
                    "resources": {"requests": {"cpu": "4"},
                                  "limits": {"cpu": "4"}}})
            else:
                conts.append({
                    "name": name, "image": "busybox:1.36",
                    "command": ["sleep", "infinity"],
                    "resources": {"limits": {"cpu": "100m"}}})
        for i in range(n):
            shard = "abc"[i % 3]
            ns = "gen-" + shard
            spec = {"containers": conts, "restartPolicy": "Always"}
            if nodes:
                spec["nodeName"] = "gen-node-%03d" % (i % nodes)
            meta = {
                "name": "gen-pod-%04d" % i,
                "namespace": ns,
                "uid": "00000000-0000-4000-8000-%012d" % i,
                "resourceVersion": str(1000 + i),
                "creationTimestamp": "2025-03-01T00:00:00Z",
                "labels": {"app": "gen", "shard": shard,
                           "tier": tiers[i % 3]},
            }
            if training:
                group = (i // 3) // 100
                rs, dep = "gen-train-%03d-7d9f8" % group, "gen-train-%03d" % group
                rs_uid = "10000000-0000-4000-8000-%03d%09d" % ("abc".index(shard), group)
                dep_uid = "20000000-0000-4000-8000-%03d%09d" % ("abc".index(shard), group)
                meta["name"] = "%s-%05d" % (rs, i)
                meta["labels"]["pod-template-hash"] = "7d9f8"
                meta["ownerReferences"] = [{
                    "apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": rs, "uid": rs_uid, "controller": True}]
                if (ns, group) not in owners:
                    owners.add((ns, group))
                    tmpl = {"metadata": {"labels": {"app": "gen"}},
                            "spec": {"containers": conts}}
                    self.add({"apiVersion": "apps/v1", "kind": "Deployment",
                              "metadata": {"name": dep, "namespace": ns,
                                           "uid": dep_uid},
                              "spec": {"replicas": 100, "template": tmpl}},
                             "--training")
                    self.add({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                              "metadata": {"name": rs, "namespace": ns,
                                           "uid": rs_uid,
                                           "ownerReferences": [{
                                               "apiVersion": "apps/v1",
                                               "kind": "Deployment",
                                               "name": dep, "uid": dep_uid,
                                               "controller": True}]},
                              "spec": {"replicas": 100, "template": tmpl}},
                             "--training")
            self.add({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": meta,
                "spec": spec,
                "status": {"phase": "Running"},
            }, "--generate-pods")

    def add_namespaces(self):
        names = {"default", "kube-system"}
        for bucket in self.objects.values():
            names.update(ns for ns, _ in bucket if ns)
        bucket = self.objects.setdefault(("", "v1", "namespaces"), {})
        for ns in sorted(names):
            if ("", ns) in bucket:
                continue
            bucket[("", ns)] = {
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns,
                             "labels": {"kubernetes.io/metadata.name": ns},
                             "uid": str(hashlib.md5(ns.encode()).hexdigest()),
                             "resourceVersion": "1",
                             "creationTimestamp": "2025-01-01T00:00:00Z"},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }


# ---- selectors ---------------------------------------------------------------

SET_RE = re.compile(r"^\s*([A-Za-z0-9./_-]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def split_selector(text):
    """Splits on commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def parse_label_selector(text):
    """Returns a predicate over a labels dict; ValueError when malformed."""
    reqs = []
    for part in split_selector(text):
        m = SET_RE.match(part)
        if m:
            values = {v.strip() for v in m.group(3).split(",") if v.strip()}
            reqs.append((m.group(1), m.group(2), values))
            continue
        p = part.strip()
        for op in ("==", "!=", "="):
            if op in p:
                k, v = p.split(op, 1)
                reqs.append((k.strip(), "!=" if op == "!=" else "=",
                             v.strip()))
                break
        else:
            if p.startswith("!"):
                reqs.append((p[1:].strip(), "!exists", None))
            elif re.match(r"^[A-Za-z0-9./_-]+$", p):
                reqs.append((p, "exists", None))
            else:
                raise ValueError(part)

    def match(labels):
        for k, op, v in reqs:
            have = labels.get(k)
            if op == "=" and have != v:
                return False
            if op == "!=" and have == v:
                return False
            if op == "in" and have not in v:
                return False
            if op == "notin" and have in v:
                return False
            if op == "exists" and k not in labels:
                return False
            if op == "!exists" and k in labels:
                return False
        return True
    return match


FIELDS = {
    "metadata.name": lambda o: o["metadata"].get("name"),
    "metadata.namespace": lambda o: o["metadata"].get("namespace"),
    "spec.nodeName": lambda o: o.get("spec", {}).get("nodeName", ""),
    "status.phase": lambda o: o.get("status", {}).get("phase", ""),
}


def parse_field_selector(text):
    reqs = []
    for part in split_selector(text):
        for op in ("==", "!=", "="):
            if op in part:
                k, v = part.split(op, 1)
                k = k.strip()
                if k not in FIELDS:
                    raise ValueError(k)
                reqs.append((FIELDS[k], op != "!=", v.strip()))
                break
        else:
            raise ValueError(part)
    return lambda o: all((get(o) == v) == eq for get, eq, v in reqs)


# ---- HTTP --------------------------------------------------------------------

def status_body(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": message, "reason": reason,
            "code": code}
    if details is not None:
        body["details"] = details
    return body


# The API server's limits on the warnings of one request
# (k8s.io/apiserver endpoints/filters/warning.go): past 4096 runes in all,
# every warning is cut to 256 runes; one with a control character is
# dropped.  The server here applies them as the recorder does.
WARN_TOTAL_RUNES = 4 * 1024
WARN_ITEM_RUNES = 256


def warning_header(text):
    """The Warning header the API server sends for a warning: code 299,
    agent "-", the text quoted with \\ and \" escaped."""
    return '299 - "%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def recorded_warnings(texts):
    """The warnings as the API server's recorder keeps them: deduplicated,
    control characters dropped, cut to WARN_ITEM_RUNES each once they pass
    WARN_TOTAL_RUNES in all."""
    out = []
    for t in texts:
        if not t or t in out or any(ord(c) < 32 or ord(c) == 127
                                    for c in t):
            continue
        out.append(t)
    if sum(len(t) for t in out) > WARN_TOTAL_RUNES:
        out = [t[:WARN_ITEM_RUNES] for t in out]
    return out


class Config:
    """Everything the handlers read; set once in main()."""
    store = None
    tokens = {}         # token -> user
    deny = []           # (verb, resource, namespace or None)
    too_many = {}       # path -> remaining 429 answers
    retry_after = 1
    delay = {}          # path -> seconds
    watch_hostile = None  # --watch-hostile: "end" or "gone"
    endless_continue = False  # lists never end (empty pages, new tokens)
    items_first = False  # lists put items before kind and metadata
    echo_auth = False   # error Status messages quote the Authorization
    log = None
    log_lock = threading.Lock()
    counter_lock = threading.Lock()
    scrapes = {}        # node -> reads so far
    conn_ids = itertools.count(1)
    started = time.time()
    store_lock = threading.Lock()
    # Watch: every write is an event (rv, (group, version, plural), type,
    # object); the last MAX_EVENTS are kept.  compacted: resourceVersions
    # below it are gone (410); expire_gen and drop_gen end the open
    # watches with a 410 ERROR event (SIGUSR1) or by closing their
    # connections mid-stream (SIGUSR2).
    events = []
    watch_cond = threading.Condition()
    compacted = 0
    expire_gen = 0
    drop_gen = 0
    bookmark_every = 5.0
    # A validating admission webhook, called as the API server's
    # admission chain calls one (see call_webhook): None, or a dict with
    # url, ca (file), name, resources (plurals), timeout (s).
    webhook = None


MAX_EVENTS = 10000


def add_event(key, typ, obj):
    """Records a write for the watches; called with store_lock held, after
    Config.store.rv was raised for it."""
    with Config.watch_cond:
        Config.events.append((Config.store.rv, key, typ,
                              json.loads(json.dumps(obj))))
        if len(Config.events) > MAX_EVENTS:
            del Config.events[:len(Config.events) - MAX_EVENTS]
            Config.compacted = max(Config.compacted, Config.events[0][0])
        Config.watch_cond.notify_all()


def expire_watches(*_):
    """SIGUSR1: history is compacted to now and every open watch gets a
    410 Gone ERROR event, as when a watcher falls too far behind."""
    with Config.watch_cond:
        Config.compacted = Config.store.rv
        Config.expire_gen += 1
        Config.watch_cond.notify_all()


def drop_watches(*_):
    """SIGUSR2: every open watch's connection is closed mid-stream."""
    with Config.watch_cond:
        Config.drop_gen += 1
        Config.watch_cond.notify_all()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cpulint-fake-apiserver"
    sys_version = ""
    timeout = 30

    def log_message(self, fmt, *args):
        pass

    # -- plumbing --

    def send(self, code, body, ctype="application/json", headers=()):
        if Config.echo_auth and isinstance(body, dict) and \
                body.get("kind") == "Status" and code >= 400:
            # A careless server or proxy that echoes the request.
            body = dict(body, message="%s (request had Authorization: %s)" % (
                body.get("message", ""), self.headers.get("Authorization", "")))
        if isinstance(body, (dict, list)):
            data = json.dumps(body, separators=(",", ":")).encode()
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        # Logged first, so a client that has its answer finds it logged.
        self.record(code)
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Audit-Id", "%08x-fake" % (hash(self.path) &
                                                     0xffffffff))
        self.send_header("Cache-Control", "no-cache, private")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def record(self, code):
        url = urllib.parse.urlsplit(self.path)
        entry = {
            "time": round(time.time() - Config.started, 3),
            "conn": getattr(self.request, "cpl_conn", 0),
            "method": self.command,
            "path": url.path,
            "query": url.query,
            "params": urllib.parse.parse_qs(url.query),
            "auth": self.auth_kind,
            "user": self.user,
            "status": code,
            "accept": self.headers.get("Accept", ""),
            "user_agent": self.headers.get("User-Agent", ""),
        }
        with Config.log_lock:
            Config.log.write(json.dumps(entry) + "\n")
            Config.log.flush()

    def authenticate(self):
        """Sets auth_kind (cert, token, bad-token, basic, none) and user."""
        self.user = None
        cert = self.request.getpeercert() if hasattr(
            self.request, "getpeercert") else None
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        self.user = v
            self.auth_kind = "cert"
            return True
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            user = Config.tokens.get(auth[7:].strip())
            if user:
                self.auth_kind, self.user = "token", user
                return True
            self.auth_kind = "bad-token"
            return False
        self.auth_kind = "basic" if auth.startswith("Basic ") else "none"
        return False

    # -- entry --

    def do_GET(self):
        self.auth_kind, self.user = "none", None
        url = urllib.parse.urlsplit(self.path)
        path = url.path.rstrip("/") or "/"
        params = {k: v[-1] for k, v in
                  urllib.parse.parse_qs(url.query,
                                        keep_blank_values=True).items()}
        if path in Config.delay:
            time.sleep(Config.delay[path])
        if not self.authenticate():
            self.send(401, status_body(401, "Unauthorized", "Unauthorized"))
            return
        with Config.counter_lock:
            left = Config.too_many.get(path, 0)
            if left > 0:
                Config.too_many[path] = left - 1
        if left > 0:
            self.send(429, status_body(
                429, "TooManyRequests",
                "Too many requests, please try again later.",
                {"retryAfterSeconds": Config.retry_after}),
                headers=[("Retry-After", str(Config.retry_after))])
            return
        try:
            self.route(path, params)
        except BrokenPipeError:
            pass

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        self.write("create")

    def do_PUT(self):
        self.write("update")

    def do_DELETE(self):
        self.write("delete")

    def do_PATCH(self):
        """A JSON merge patch (RFC 7386; what kubectl label and annotate
        send: merge-patch+json, or strategic-merge-patch+json for built-in
        kinds, the same for the maps they change) or a JSON patch (RFC
        6902), applied to the stored object and written as an update
        (webhooks called); other patch types (apply) get 415."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0]
        if ctype.strip() in admission.PATCH_TYPES:
            self.write("update", patch=ctype.strip())
            return
        self.auth_kind, self.user = "none", None
        self.authenticate()
        self.read_body()
        self.send(415, status_body(415, "UnsupportedMediaType",
                                   "the fake API server patches with "
                                   "merge and JSON patches only, not %s" %
                                   ctype))

    # -- writes --

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def write(self, verb, patch=None):
        """POST (create), PUT (replace) and DELETE of one object, with
        the validating webhook called on create and update, its warnings
        sent back in Warning headers, and its denial as the API server
        words it."""
        self.auth_kind, self.user = "none", None
        body = self.read_body()
        if not self.authenticate():
            self.send(401, status_body(401, "Unauthorized", "Unauthorized"))
            return
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if parts[0] == "api" and len(parts) >= 3:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 4:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            self.not_found_resource()
            return
        ns = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            ns, rest = rest[1], rest[2:]
        info = RES_INDEX.get((group, version, rest[0]))
        if info is None or len(rest) > 2 or (verb == "create") != \
                (len(rest) == 1) or (ns is not None and not info[4]):
            self.not_found_resource()
            return
        plural, kind = info[2], info[3]
        if self.denied(verb, group, plural, ns, rest[1] if len(rest) > 1
                       else None):
            return
        key = (group, version, plural)
        if verb == "delete":
            with Config.store_lock:
                obj = Config.store.objects.get(key, {}).pop(
                    (ns or "", rest[1]), None)
                Config.store.rv += 1
                if obj is not None:
                    obj["metadata"]["resourceVersion"] = str(
                        Config.store.rv)
                    add_event(key, "DELETED", obj)
            if obj is None:
                self.send_not_found(group, plural, rest[1])
                return
            self.send(200, obj)
            return
        if patch is not None:       # PATCH: the stored object, patched
            with Config.store_lock:
                cur = Config.store.objects.get(key, {}).get(
                    (ns or "", rest[1]))
            if cur is None:
                self.send_not_found(group, plural, rest[1])
                return
            try:
                body = json.dumps(admission.patch_object(
                    cur, patch, json.loads(body))).encode()
            except (ValueError, KeyError, TypeError) as e:
                self.send(422, status_body(422, "Invalid",
                                           "the patch does not apply: %s"
                                           % e))
                return
        try:
            obj = json.loads(body)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
        except ValueError as e:
            self.send(400, status_body(400, "BadRequest",
                                       "the body is not JSON: %s" % e))
            return
        if obj.get("kind") != kind or obj.get("apiVersion") != \
                gv_string(group, version):
            self.send(400, status_body(400, "BadRequest",
                                       "the object is not a %s %s" %
                                       (gv_string(group, version), kind)))
            return
        meta = obj.setdefault("metadata", {})
        if info[4]:
            meta.setdefault("namespace", ns)
        name = meta.get("name")
        if verb == "update" and name != rest[1]:
            self.send(400, status_body(400, "BadRequest",
                                       "the name in the body is not the "
                                       "name in the path"))
            return
        if not name:
            self.send(422, status_body(422, "Invalid",
                                       "%s is invalid: metadata.name: "
                                       "Required value" % kind))
            return
        with Config.store_lock:
            old = Config.store.objects.get(key, {}).get((ns or "", name))
        if verb == "create" and old is not None:
            qual = plural if not group else plural + "." + group
            self.send(409, status_body(409, "AlreadyExists",
                                       '%s "%s" already exists' %
                                       (qual, name),
                                       {"name": name, "kind": plural}))
            return
        if verb == "update" and old is None:
            self.send_not_found(group, plural, name)
            return
        dry = "All" in urllib.parse.parse_qs(url.query).get("dryRun", [])
        obj, chain_warnings, refusal = self.run_chain(
            (group, version, plural, kind, info[4], ns, name,
             "CREATE" if verb == "create" else "UPDATE"), obj, old, dry)
        if refusal is not None:
            code, msg = refusal
            headers = [("Warning", warning_header(w).encode().decode(
                "latin-1")) for w in recorded_warnings(chain_warnings)]
            self.send(code, status_body(code, {403: "Forbidden"}.get(
                code, "InternalError"), msg), headers=headers)
            return
        meta = obj["metadata"]
        warnings, refusal = self.call_webhook(
            group, version, plural, kind, ns, name,
            "CREATE" if verb == "create" else "UPDATE", obj, old, dry)
        # Go sends a header's UTF-8 bytes as they are; http.server
        # encodes headers as Latin-1, so the bytes go through that way.
        headers = [("Warning", warning_header(w).encode().decode("latin-1"))
                   for w in recorded_warnings(chain_warnings + warnings)]
        if refusal is not None:
            code, msg = refusal
            self.send(code, status_body(code, {403: "Forbidden"}.get(
                code, "BadRequest"), msg), headers=headers)
            return
        conflict = None
        with Config.store_lock:
            # Optimistic concurrency: an update that names a
            # resourceVersion other than the stored one is refused, in
            # the same lock as the write, so of two writers from one
            # version exactly one wins.
            now = Config.store.objects.get(key, {}).get((ns or "", name))
            want = meta.get("resourceVersion")
            if verb == "update" and want and now is not None and \
                    want != now["metadata"].get("resourceVersion"):
                qual = plural if not group else plural + "." + group
                conflict = status_body(
                    409, "Conflict", 'Operation cannot be fulfilled on '
                    '%s "%s": the object has been modified; please apply '
                    'your changes to the latest version and try again' %
                    (qual, name), {"name": name, "group": group,
                                   "kind": plural})
            elif verb == "create" and now is not None:
                qual = plural if not group else plural + "." + group
                conflict = status_body(409, "AlreadyExists",
                                       '%s "%s" already exists' %
                                       (qual, name),
                                       {"name": name, "kind": plural})
            else:
                Config.store.rv += 1
                if old is not None:
                    meta["uid"] = old["metadata"].get("uid")
                    meta["creationTimestamp"] = old["metadata"].get(
                        "creationTimestamp")
                else:
                    meta["uid"] = str(uuid.uuid4())
                    meta["creationTimestamp"] = time.strftime(
                        "%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                meta["resourceVersion"] = str(Config.store.rv)
                meta["generation"] = (old or {}).get("metadata", {}).get(
                    "generation", 0) + 1
                if not dry:
                    Config.store.objects.setdefault(key, {})[
                        (ns or "", name)] = obj
                    add_event(key, "ADDED" if old is None else "MODIFIED",
                              obj)
        if conflict is not None:
            self.send(409, conflict)
            return
        self.send(201 if verb == "create" else 200, obj, headers=headers)

    def send_not_found(self, group, plural, name):
        qual = plural if not group else plural + "." + group
        details = {"name": name, "kind": plural}
        if group:
            details["group"] = group
        self.send(404, status_body(404, "NotFound", '%s "%s" not found'
                                   % (qual, name), details))

    def run_chain(self, info, obj, old, dry):
        """The webhook configurations applied to this server, called as
        the API server's admission chain calls them (admission.py).
        Returns (object, warnings, refusal)."""
        with Config.store_lock:
            objs = Config.store.objects
            configs = {
                "mutating": list(objs.get((
                    "admissionregistration.k8s.io", "v1",
                    "mutatingwebhookconfigurations"), {}).values()),
                "validating": list(objs.get((
                    "admissionregistration.k8s.io", "v1",
                    "validatingwebhookconfigurations"), {}).values())}
            namespaces = {
                k[1]: (v.get("metadata") or {}).get("labels") or {}
                for k, v in objs.get(("", "v1", "namespaces"), {}).items()}
        if not configs["mutating"] and not configs["validating"]:
            return obj, [], None

        def log(event):
            event["time"] = round(time.time() - Config.started, 3)
            with Config.log_lock:
                Config.log.write(json.dumps(event) + "\n")
                Config.log.flush()
        try:
            obj, warnings = admission.run_chain(
                configs, namespaces, info, obj, old, self.user, dry, log)
        except admission.Refusal as r:
            return obj, [], (r.code, r.message)
        return obj, warnings, None

    def call_webhook(self, group, version, plural, kind, ns, name, op, obj,
                     old, dry):
        """Calls the webhook as the API server's admission chain does
        (admission.k8s.io/v1 AdmissionReview over HTTPS, verified with
        its CA bundle, within its timeout; failurePolicy Ignore: an
        error or a timeout admits).  Returns (warnings, refusal), refusal
        None or (code, message)."""
        hook = Config.webhook
        if hook is None or plural not in hook["resources"]:
            return [], None
        review = {"apiVersion": "admission.k8s.io/v1",
                  "kind": "AdmissionReview",
                  "request": {
                      "uid": str(uuid.uuid4()),
                      "kind": {"group": group, "version": version,
                               "kind": kind},
                      "resource": {"group": group, "version": version,
                                   "resource": plural},
                      "requestKind": {"group": group, "version": version,
                                      "kind": kind},
                      "requestResource": {"group": group,
                                          "version": version,
                                          "resource": plural},
                      "name": name, "namespace": ns or "",
                      "operation": op,
                      "userInfo": {"username": self.user or "",
                                   "groups": ["system:authenticated"]},
                      "object": obj, "oldObject": old, "dryRun": dry,
                      "options": {"apiVersion": "meta.k8s.io/v1",
                                  "kind": "CreateOptions" if op == "CREATE"
                                  else "UpdateOptions"}}}
        ctx = ssl.create_default_context(cafile=hook["ca"])
        req = urllib.request.Request(
            hook["url"], data=json.dumps(review).encode(), method="POST",
            headers={"Content-Type": "application/json",
                     "Accept": "application/json, */*"})
        event = {"time": round(time.time() - Config.started, 3),
                 "event": "webhook", "operation": op, "resource": plural,
                 "name": name}
        try:
            with urllib.request.urlopen(req, context=ctx,
                                        timeout=hook["timeout"]) as r:
                answer = json.loads(r.read())
            resp = answer["response"]
            if resp.get("uid") != review["request"]["uid"]:
                raise ValueError("expected response.uid %r, got %r" % (
                    review["request"]["uid"], resp.get("uid")))
            allowed = resp["allowed"]
            warnings = resp.get("warnings") or []
            event.update(allowed=allowed, warnings=len(warnings))
        except Exception as e:      # failurePolicy: Ignore
            event.update(error="%s: %s" % (type(e).__name__, e))
            with Config.log_lock:
                Config.log.write(json.dumps(event) + "\n")
                Config.log.flush()
            return [], None
        with Config.log_lock:
            Config.log.write(json.dumps(event) + "\n")
            Config.log.flush()
        if allowed:
            return warnings, None
        st = resp.get("status") or {}
        code = st.get("code") or 403
        msg = 'admission webhook "%s" denied the request' % hook["name"]
        if st.get("message"):
            msg += ": " + st["message"]
        return warnings, (code, msg)

    # -- routing --

    def route(self, path, params):
        if path == "/version":
            self.send(200, {"major": "1", "minor": "31",
                            "gitVersion": "v1.31.4",
                            "gitCommit": "0000000000000000000000000000000000000000",
                            "gitTreeState": "clean",
                            "buildDate": "2025-01-01T00:00:00Z",
                            "goVersion": "go1.22.10", "compiler": "gc",
                            "platform": "linux/amd64"})
            return
        if path == "/healthz" or path == "/readyz" or path == "/livez":
            self.send(200, "ok", "text/plain; charset=utf-8")
            return
        if path == "/api":
            self.send(200, {"kind": "APIVersions", "versions": ["v1"],
                            "serverAddressByClientCIDRs": [{
                                "clientCIDR": "0.0.0.0/0",
                                "serverAddress": "127.0.0.1:%d" %
                                self.server.server_address[1]}]})
            return
        if path == "/apis":
            self.send(200, self.group_list())
            return
        if path == "/openapi/v3" or path.startswith("/openapi/v3/"):
            self.openapi_v3(path[len("/openapi/v3"):].strip("/"))
            return
        parts = path.strip("/").split("/")
        if parts[0] == "api" and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) == 2:
            self.send_group(parts[1])
            return
        elif parts[0] == "apis" and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            self.send(404, "404 page not found\n",
                      "text/plain; charset=utf-8")
            return
        if not any(g == group and v == version
                   for g, v, *_ in RESOURCES):
            self.not_found_resource()
            return
        if not rest:
            self.send(200, self.resource_list(group, version))
            return
        self.route_resource(group, version, rest, params)

    def route_resource(self, group, version, rest, params):
        ns = None
        if rest[0] == "namespaces" and len(rest) >= 3 and group == "":
            ns, rest = rest[1], rest[2:]
        elif rest[0] == "namespaces" and len(rest) >= 3:
            ns, rest = rest[1], rest[2:]
        plural = rest[0]
        info = RES_INDEX.get((group, version, plural))
        if info is None or (ns is not None and not info[4]):
            self.not_found_resource()
            return
        name = rest[1] if len(rest) > 1 else None
        sub = "/".join(rest[2:]) if len(rest) > 2 else None
        verb = "get" if name else "list"
        if params.get("watch") in ("1", "true"):
            verb = "watch"
        resource = plural + ("/" + sub.split("/")[0] if sub else "")
        if self.denied(verb, group, resource, ns, name):
            return
        if verb == "watch":
            if name is not None:
                self.send(405, status_body(405, "MethodNotAllowed",
                                           "the fake API server watches "
                                           "collections only"))
                return
            self.watch_objects(info, ns, params)
            return
        if name is None:
            self.list_objects(info, ns, params)
            return
        with Config.store_lock:
            obj = Config.store.objects.get((group, version, plural),
                                           {}).get((ns or "", name))
        if obj is None:
            qual = plural if group == "" else plural + "." + group
            details = {"name": name, "kind": plural}
            if group:
                details["group"] = group
            self.send(404, status_body(404, "NotFound", '%s "%s" not found'
                                       % (qual, name), details))
            return
        if sub is None:
            self.send(200, obj)
        elif plural == "nodes" and sub == "proxy/metrics/cadvisor":
            self.send(200, self.cadvisor(name),
                      "text/plain; version=0.0.4; charset=utf-8")
        else:
            self.not_found_resource()

    def denied(self, verb, group, resource, ns, name):
        for dverb, dres, dns, dname in Config.deny:
            if dverb not in ("*", verb) or dres != resource:
                continue
            if dns is not None and dns != ns:
                continue
            if dname is not None and dname != name:
                continue
            qual = resource.split("/")[0]
            if group:
                qual += "." + group
            what = '%s "%s"' % (qual, name) if name else qual
            where = ('in the namespace "%s"' % ns if ns
                     else "at the cluster scope")
            msg = ('%s is forbidden: User "%s" cannot %s resource "%s" in '
                   'API group "%s" %s' % (what, self.user, verb, resource,
                                          group, where))
            details = {"kind": resource.split("/")[0]}
            if name:
                details["name"] = name
            if group:
                details["group"] = group
            self.send(403, status_body(403, "Forbidden", msg, details))
            return True
        return False

    def not_found_resource(self):
        self.send(404, status_body(404, "NotFound",
                                   "the server could not find the "
                                   "requested resource", {}))

    # -- discovery --

    def group_list(self):
        groups = []
        seen = []
        for g, v, *_ in RESOURCES:
            if g and (g, v) not in seen:
                seen.append((g, v))
        for g in dict.fromkeys(g for g, _ in seen):
            versions = [{"groupVersion": g + "/" + v, "version": v}
                        for gg, v in seen if gg == g]
            groups.append({"name": g, "versions": versions,
                           "preferredVersion": versions[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1",
                "groups": groups}

    def send_group(self, group):
        for g in self.group_list()["groups"]:
            if g["name"] == group:
                self.send(200, dict(g, kind="APIGroup", apiVersion="v1"))
                return
        self.not_found_resource()

    def resource_list(self, group, version):
        out = []
        for g, v, plural, kind, ns, short, verbs, cats in RESOURCES:
            if (g, v) != (group, version):
                continue
            r = {"name": plural, "singularName": kind.lower(),
                 "namespaced": ns, "kind": kind, "verbs": verbs,
                 "storageVersionHash": base64.b64encode(hashlib.sha256(
                     plural.encode()).digest()[:8]).decode()}
            if short:
                r["shortNames"] = short
            if cats:
                r["categories"] = cats
            out.append(r)
        for name, kind, ns, verbs in SUBRESOURCES.get((group, version), []):
            out.append({"name": name, "singularName": "", "namespaced": ns,
                        "kind": kind, "verbs": verbs})
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": gv_string(group, version), "resources": out}

    # -- OpenAPI v3: only what kubectl reads to learn that the server
    # validates fields (the fieldValidation query parameter of each
    # kind's PATCH), so `kubectl apply` validates on the server and
    # needs no schema --

    def openapi_v3(self, gv):
        gvs = []
        for g, v, *_ in RESOURCES:
            if (g, v) not in gvs:
                gvs.append((g, v))

        def gv_path(g, v):
            return "api/" + v if not g else "apis/%s/%s" % (g, v)
        if not gv:
            self.send(200, {"paths": {
                gv_path(g, v): {"serverRelativeURL": "/openapi/v3/%s?hash="
                                "%s" % (gv_path(g, v), hashlib.sha256(
                                    gv_path(g, v).encode()).hexdigest()
                                    [:16].upper())}
                for g, v in gvs}})
            return
        match = [(g, v) for g, v in gvs if gv_path(g, v) == gv]
        if not match:
            self.send(404, "404 page not found\n",
                      "text/plain; charset=utf-8")
            return
        g, v = match[0]
        paths = {}
        for rg, rv, plural, kind, namespaced, *_ in RESOURCES:
            if (rg, rv) != (g, v):
                continue
            where = "/" + gv_path(g, v) + (
                "/namespaces/{namespace}" if namespaced else "")
            gvk = {"group": g, "version": v, "kind": kind}
            param = [{"name": "fieldValidation", "in": "query",
                      "schema": {"type": "string", "uniqueItems": True}}]
            ok = {"200": {"description": "OK"}}
            paths[where + "/" + plural + "/{name}"] = {
                "patch": {"operationId": "patch" + kind,
                          "x-kubernetes-action": "patch",
                          "x-kubernetes-group-version-kind": gvk,
                          "parameters": param, "responses": ok},
                "put": {"operationId": "replace" + kind,
                        "x-kubernetes-action": "put",
                        "x-kubernetes-group-version-kind": gvk,
                        "parameters": param, "responses": ok}}
            paths[where + "/" + plural] = {
                "post": {"operationId": "create" + kind,
                         "x-kubernetes-action": "post",
                         "x-kubernetes-group-version-kind": gvk,
                         "parameters": param, "responses": ok}}
        self.send(200, {"openapi": "3.0.0",
                        "info": {"title": "Kubernetes",
                                 "version": "v1.31.4"},
                        "paths": paths, "components": {}})

    # -- lists --

    def list_objects(self, info, ns, params):
        group, version, plural, kind, _ = info
        try:
            labels = parse_label_selector(params.get("labelSelector", ""))
            fields = parse_field_selector(params.get("fieldSelector", ""))
        except ValueError as e:
            self.send(400, status_body(400, "BadRequest",
                                       "unable to parse requirement: %s" % e))
            return
        with Config.store_lock:
            bucket = dict(Config.store.objects.get((group, version, plural),
                                                   {}))
        items = [bucket[k] for k in sorted(bucket)
                 if (ns is None or k[0] == ns)
                 and labels(bucket[k]["metadata"].get("labels", {}))
                 and fields(bucket[k])]
        key = hashlib.sha256(repr((group, version, plural, ns,
                                   params.get("labelSelector", ""),
                                   params.get("fieldSelector", ""))).encode()
                             ).hexdigest()[:16]
        start = 0
        if params.get("continue"):
            try:
                tok = json.loads(base64.urlsafe_b64decode(
                    params["continue"].encode()))
                if tok["k"] != key:
                    raise ValueError("wrong list")
                start = int(tok["o"])
            except (ValueError, KeyError, TypeError):
                self.send(400, status_body(400, "BadRequest",
                                           "continue key is not valid"))
                return
        limit = 0
        if params.get("limit"):
            try:
                limit = max(int(params["limit"]), 0)
            except ValueError:
                limit = 0
        meta = {"resourceVersion": str(Config.store.rv)}
        if Config.endless_continue:
            # A broken server: no items, and always a new token.
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"k": key, "o": start + 1}).encode()).decode()
            self.send(200, {"kind": kind + "List",
                            "apiVersion": gv_string(group, version),
                            "metadata": meta, "items": []})
            return
        page = items[start:start + limit] if limit else items[start:]
        end = start + len(page)
        if limit and end < len(items):
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"k": key, "o": end}).encode()).decode()
            meta["remainingItemCount"] = len(items) - end
        if group in BUILTIN_GROUPS:
            # A real server leaves TypeMeta out of built-in list items.
            page = [{k: v for k, v in o.items()
                     if k not in ("apiVersion", "kind")} for o in page]
        if Config.items_first:
            # Valid JSON in an order Kubernetes never writes.
            self.send(200, {"items": page, "metadata": meta,
                            "kind": kind + "List",
                            "apiVersion": gv_string(group, version)})
            return
        self.send(200, {"kind": kind + "List",
                        "apiVersion": gv_string(group, version),
                        "metadata": meta, "items": page})

    # -- watch --

    def watch_objects(self, info, ns, params):
        """A watch as the API server streams one: 200, chunked, one JSON
        event per line; from resourceVersion (none or "0": ADDED for what
        exists first), BOOKMARKs every Config.bookmark_every seconds when
        allowed, a 410 ERROR event for a resourceVersion older than the
        compacted history, the end after timeoutSeconds."""
        group, version, plural, kind, _ = info
        key = (group, version, plural)
        try:
            labels = parse_label_selector(params.get("labelSelector", ""))
            fields = parse_field_selector(params.get("fieldSelector", ""))
            timeout = float(params.get("timeoutSeconds") or 1800)
        except ValueError as e:
            self.send(400, status_body(400, "BadRequest", str(e)))
            return
        bookmarks = params.get("allowWatchBookmarks") in ("true", "1")
        rv_param = params.get("resourceVersion", "")

        def matches(obj):
            meta = obj.get("metadata", {})
            return ((ns is None or meta.get("namespace", "") == ns) and
                    labels(meta.get("labels", {})) and fields(obj))

        def chunk(ev):
            data = (json.dumps(ev, separators=(",", ":")) + "\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def gone():
            chunk({"type": "ERROR", "object": status_body(
                410, "Expired", "too old resource version: %s (%d)" %
                (rv_param, Config.compacted))})

        self.record(200)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        if Config.watch_hostile:
            # --watch-hostile: every watch ends at once, empty or with a
            # 410 Gone, however often it is opened again.
            if Config.watch_hostile == "gone":
                gone()
            self.wfile.write(b"0\r\n\r\n")
            return
        deadline = time.time() + timeout
        with Config.watch_cond:
            expire, drop = Config.expire_gen, Config.drop_gen
            now_rv = Config.store.rv
            compacted = Config.compacted
        try:
            if rv_param in ("", "0"):
                with Config.store_lock:
                    now_rv = Config.store.rv
                    current = [o for _, o in sorted(
                        Config.store.objects.get(key, {}).items())]
                for o in current:
                    if matches(o):
                        chunk({"type": "ADDED", "object": o})
                pos = now_rv
            else:
                try:
                    pos = int(rv_param)
                except ValueError:
                    pos = -1
                if pos < compacted:
                    gone()
                    self.wfile.write(b"0\r\n\r\n")
                    return
            last_mark = time.time()
            while True:
                with Config.watch_cond:
                    pending = [e for e in Config.events
                               if e[0] > pos and e[1] == key]
                    if not pending and Config.expire_gen == expire and \
                            Config.drop_gen == drop:
                        Config.watch_cond.wait(max(0.05, min(
                            deadline - time.time(), 0.5)))
                        pending = [e for e in Config.events
                                   if e[0] > pos and e[1] == key]
                    expired = Config.expire_gen != expire
                    dropped = Config.drop_gen != drop
                    # Every event up to the last recorded one is in
                    # pending or already sent: a bookmark may say so.
                    mark_rv = Config.events[-1][0] if Config.events \
                        else pos
                if dropped:
                    self.close_connection = True
                    return      # no last chunk: the stream breaks off
                if expired:
                    gone()
                    break
                for rv, _, typ, obj in pending:
                    if matches(obj):
                        chunk({"type": typ, "object": obj})
                    pos = rv
                if pending:
                    mark_rv = max(mark_rv, pos)
                if time.time() >= deadline:
                    break
                if bookmarks and time.time() - last_mark >= \
                        Config.bookmark_every:
                    pos = max(pos, mark_rv)
                    chunk({"type": "BOOKMARK", "object": {
                        "kind": kind, "apiVersion": gv_string(group,
                                                              version),
                        "metadata": {"resourceVersion": str(pos)}}})
                    last_mark = time.time()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError,
                OSError):
            self.close_connection = True

    # -- cAdvisor metrics --

    def cadvisor(self, node):
        with Config.counter_lock:
            n = Config.scrapes.get(node, 0) + 1
            Config.scrapes[node] = n
        pods = [o for (ns, _), o in sorted(Config.store.objects.get(
            ("", "v1", "pods"), {}).items())
            if o.get("spec", {}).get("nodeName") == node]
        ts = int(time.time() * 1000)
        series = {"periods": [], "throttled": [], "seconds": [], "usage": [],
                  "threads": [], "threads_max": []}
        now = time.time()
        for pod in pods:
            meta = pod["metadata"]
            uid = meta.get("uid", "")
            qos = pod.get("status", {}).get("qosClass", "Burstable").lower()
            cg = "/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice" % (
                qos, qos, uid.replace("-", "_"))
            pod_periods = pod_throttled = 0
            for c in pod["spec"].get("containers", []):
                key = "%s/%s/%s" % (meta["namespace"], meta["name"], c["name"])
                ratio = Config.store.throttling.get(key, 0.0)
                seed = int(hashlib.md5(key.encode()).hexdigest()[:6], 16)
                base = 900000 + seed % 400000
                periods = base + 6000 * n
                throttled = int(round(base * ratio)) + int(round(6000 * n *
                                                                ratio))
                pod_periods += periods
                pod_throttled += throttled
                cid = hashlib.sha256(key.encode()).hexdigest()
                labels = ('container="%s",id="%s/cri-containerd-%s.scope",'
                          'image="%s",name="%s",namespace="%s",pod="%s"' % (
                              c["name"], cg, cid, c.get("image", ""), cid,
                              meta["namespace"], meta["name"]))
                series["periods"].append((labels, periods))
                series["throttled"].append((labels, throttled))
                series["seconds"].append((labels, throttled * 0.0371))
                # CPU time moves with the clock: cpus x seconds since the
                # container started (its status, else the server start).
                started = Config.started
                for st in pod.get("status", {}).get("containerStatuses", []):
                    if st.get("name") == c["name"]:
                        at = st.get("state", {}).get("running", {}).get(
                            "startedAt")
                        if at:
                            started = calendar.timegm(time.strptime(
                                at, "%Y-%m-%dT%H:%M:%SZ"))
                cpus = Config.store.cpus.get(key, 0.5)
                series["usage"].append((labels + ',cpu="total"',
                                        cpus * max(0.0, now - started)))
                series["threads"].append((labels,
                                          Config.store.threads.get(key, 4)))
                series["threads_max"].append((labels,
                                              Config.store.pids_max.get(
                                                  key, 0)))
            pod_labels = ('container="",id="%s",image="",name="",'
                          'namespace="%s",pod="%s"' % (
                              cg, meta["namespace"], meta["name"]))
            series["periods"].append((pod_labels, pod_periods))
            series["throttled"].append((pod_labels, pod_throttled))
            series["threads_max"].append((pod_labels, Config.store.pids_max.get(
                "%s/%s" % (meta["namespace"], meta["name"]), 0)))
        # The node's CPUs, as the kubelet's cAdvisor endpoint says them.
        machine = []
        nobj = Config.store.objects.get(("", "v1", "nodes"), {}).get(
            ("", node))
        cap = (nobj or {}).get("status", {}).get("capacity", {}).get("cpu")
        if cap:
            cores = float(cap[:-1]) / 1000 if cap.endswith("m") else \
                float(cap)
            machine.append(('boot_id="%s",machine_id="%s",system_uuid="%s"'
                            % ((hashlib.md5(node.encode()).hexdigest(),) *
                               3), cores))
        out = []

        def family(name, help_, typ, rows):
            out.append("# HELP %s %s" % (name, help_))
            out.append("# TYPE %s %s" % (name, typ))
            for labels, value in rows:
                out.append("%s{%s} %s %d" % (name, labels, go_float(value),
                                             ts))
        family("cadvisor_version_info",
               "A metric with a constant '1' value labeled by kernel "
               "version, OS version, docker version, cadvisor version & "
               "cadvisor revision.", "gauge",
               [('cadvisorRevision="",cadvisorVersion="",dockerVersion="",'
                 'kernelVersion="6.1.119",osVersion="Amazon Linux 2023"', 1)])
        if machine:
            family("machine_cpu_cores", "Number of logical CPU cores.",
                   "gauge", machine)
        family("container_cpu_cfs_periods_total",
               "Number of elapsed enforcement period intervals.",
               "counter", series["periods"])
        family("container_cpu_cfs_throttled_periods_total",
               "Number of throttled period intervals.", "counter",
               series["throttled"])
        family("container_cpu_cfs_throttled_seconds_total",
               "Total time duration the container has been throttled.",
               "counter", series["seconds"])
        family("container_cpu_usage_seconds_total",
               "Cumulative cpu time consumed in seconds.", "counter",
               series["usage"])
        family("container_threads",
               "Number of threads running inside the container", "gauge",
               series["threads"])
        family("container_threads_max",
               "Maximum number of threads allowed inside the container, "
               "infinity if value is zero", "gauge", series["threads_max"])
        out.append("")
        return "\n".join(out)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """HTTPS with the TLS handshake in the connection's own thread."""
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, context):
        self.context = context
        super().__init__(addr, Handler)

    def finish_request(self, request, client_address):
        # Headers and body go out in separate writes: without NODELAY,
        # Nagle and delayed ACKs add 40 ms to every answer.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request.settimeout(10)
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as e:
            with Config.log_lock:
                Config.log.write(json.dumps({
                    "time": round(time.time() - Config.started, 3),
                    "event": "tls-error", "error": str(e)}) + "\n")
                Config.log.flush()
            return
        tls.cpl_conn = next(Config.conn_ids)
        tls.settimeout(Handler.timeout)
        try:
            self.RequestHandlerClass(tls, client_address, self)
        except (OSError, ssl.SSLError):
            pass
        finally:
            try:
                tls.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        pass


def parse_pair(text, what):
    key, sep, value = text.rpartition("=")
    if not sep or not key:
        raise SystemExit("%s: expected PATH=VALUE, got %r" % (what, text))
    return key, value


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True,
                    help="directory for certificates, kubeconfigs, the "
                    "request log and the port file")
    ap.add_argument("--fixtures", action="append",
                    help="fixture set under fixtures/ (or a directory); "
                    "repeatable; default: default")
    ap.add_argument("--generate-pods", type=int, default=0, metavar="N",
                    help="add N pods over namespaces gen-a/b/c")
    ap.add_argument("--items-first", action="store_true",
                    help="lists write items before kind, apiVersion and "
                    "metadata (Kubernetes writes them after)")
    ap.add_argument("--endless-continue", action="store_true",
                    help="every list page is empty and has a new "
                    "continue token")
    ap.add_argument("--echo-auth", action="store_true",
                    help="error Status messages quote the Authorization "
                    "header "
                    "(a hostile server, for the never-print-a-token test)")
    ap.add_argument("--pod-nodes", type=int, default=0, metavar="K",
                    help="with --generate-pods: run them on K nodes")
    ap.add_argument("--containers-per-pod", type=int, default=1,
                    metavar="M",
                    help="with --generate-pods: M containers in each Pod")
    ap.add_argument("--training", action="store_true",
                    help="with --generate-pods: torchrun containers, 100 "
                    "Pods per Deployment (through a ReplicaSet)")
    ap.add_argument("--bookmark-every", type=float, default=5,
                    help="seconds between a watch's BOOKMARK events "
                    "(default 5)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="exit after this many seconds (default 300)")
    ap.add_argument("--token", action="append", default=[],
                    metavar="TOKEN[=USER]",
                    help="an extra accepted bearer token")
    ap.add_argument("--deny", action="append", default=[],
                    metavar="VERB:RESOURCE[:NAMESPACE[:NAME]]",
                    help="answer 403 as RBAC would (get:nodes/proxy, "
                    "list:pods:ml, get:nodes/proxy::minikube); an empty "
                    "namespace matches any")
    ap.add_argument("--too-many", action="append", default=[],
                    metavar="PATH=N",
                    help="answer the first N requests for PATH with 429")
    ap.add_argument("--retry-after", type=int, default=1,
                    help="Retry-After seconds sent with 429 (default 1)")
    ap.add_argument("--watch-hostile", choices=["end", "gone"],
                    help="every watch ends at once: empty (end) or with "
                    "a 410 Gone ERROR event (gone)")
    ap.add_argument("--delay", action="append", default=[],
                    metavar="PATH=SECONDS", help="sleep before answering")
    ap.add_argument("--started", action="append", default=[],
                    metavar="NS/POD=EPOCH",
                    help="the Pod and its containers started at EPOCH "
                         "(seconds; status startTime and every "
                         "containerStatuses[].state.running.startedAt)")
    ap.add_argument("--webhook", metavar="URL",
                    help="call this validating admission webhook on "
                    "create and update (as a ValidatingWebhookConfiguration "
                    "with failurePolicy Ignore would)")
    ap.add_argument("--webhook-ca", metavar="FILE",
                    help="the webhook's CA bundle (its caBundle)")
    ap.add_argument("--webhook-name", default="validate.cpulint.io",
                    help="the webhook's name, as denials quote it")
    ap.add_argument("--webhook-resources",
                    default="pytorchjobs,tfjobs,mpijobs,trainjobs,jobs,pods",
                    help="plurals the webhook's rules match")
    ap.add_argument("--webhook-timeout", type=float, default=5,
                    help="timeoutSeconds (default 5)")
    args = ap.parse_args()

    d = os.path.abspath(args.dir)
    os.makedirs(d, exist_ok=True)
    for stale in ("port",):
        if os.path.exists(os.path.join(d, stale)):
            os.unlink(os.path.join(d, stale))

    store = Store()
    for fx in args.fixtures or ["default"]:
        path = fx if os.path.isdir(fx) else os.path.join(HERE, "fixtures", fx)
        if not os.path.isdir(path):
            raise SystemExit("no fixture set %s" % fx)
        store.load_dir(path)
    store.generate_pods(args.generate_pods, args.pod_nodes,
                        args.containers_per_pod, args.training)
    store.add_namespaces()
    for rule in args.started:
        key, at = parse_pair(rule, "--started")
        ns, _, name = key.partition("/")
        pod = store.objects.get(("", "v1", "pods"), {}).get((ns, name))
        if pod is None:
            raise SystemExit("--started: no pod %s" % key)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ",
                              time.gmtime(int(float(at))))
        status = pod.setdefault("status", {})
        status["startTime"] = stamp
        for st in status.get("containerStatuses", []):
            st["state"] = {"running": {"startedAt": stamp}}
    Config.store = store

    token = "cpl-" + base64.b32encode(os.urandom(20)).decode().lower()
    with open(os.path.join(d, "token"), "w") as f:
        f.write(token)
    Config.tokens[token] = "cpl-tester"
    for t in args.token:
        tok, _, user = t.partition("=")
        Config.tokens[tok] = user or "cpl-extra"
    for rule in args.deny:
        bits = rule.split(":")
        if len(bits) not in (2, 3, 4):
            raise SystemExit("--deny: expected VERB:RESOURCE[:NS[:NAME]]")
        bits += [""] * (4 - len(bits))
        Config.deny.append((bits[0], bits[1], bits[2] or None,
                            bits[3] or None))
    for rule in args.too_many:
        p, n = parse_pair(rule, "--too-many")
        Config.too_many[p.rstrip("/")] = int(n)
    Config.watch_hostile = args.watch_hostile
    for rule in args.delay:
        p, s = parse_pair(rule, "--delay")
        Config.delay[p.rstrip("/")] = float(s)
    Config.retry_after = args.retry_after
    Config.bookmark_every = args.bookmark_every
    if args.webhook:
        Config.webhook = {"url": args.webhook, "ca": args.webhook_ca,
                          "name": args.webhook_name,
                          "resources": set(args.webhook_resources.split(
                              ",")),
                          "timeout": args.webhook_timeout}
    Config.echo_auth = args.echo_auth
    Config.endless_continue = args.endless_continue
    Config.items_first = args.items_first
    Config.log = open(os.path.join(d, "requests.jsonl"), "a")

    make_certs(d)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(d, "server.crt"),
                        os.path.join(d, "server.key"))
    ctx.load_verify_locations(os.path.join(d, "ca.crt"))
    ctx.verify_mode = ssl.CERT_OPTIONAL

    server = Server(("127.0.0.1", 0), ctx)
    port = server.server_address[1]
    write_kubeconfigs(d, port, token)
    with open(os.path.join(d, "pid"), "w") as f:
        f.write("%d\n" % os.getpid())
    with open(os.path.join(d, "port.tmp"), "w") as f:
        f.write("%d\n" % port)
    os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGUSR1, expire_watches)
    signal.signal(signal.SIGUSR2, drop_watches)
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    stop.wait(args.timeout)
    server.shutdown()
    server.server_close()
    Config.log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
