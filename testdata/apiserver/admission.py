"""admission.py — the fake API server's admission chain for webhook
configurations applied to it (server.py imports it).

As kube-apiserver does for admissionregistration.k8s.io/v1 objects: on a
create or update, every MutatingWebhookConfiguration's webhooks (in the
order of the configurations' names, then as listed) whose rules,
namespaceSelector and objectSelector match are called in turn, each
seeing the object the previous one patched; then every
ValidatingWebhookConfiguration's on the final object.  A call is an
admission.k8s.io/v1 AdmissionReview POSTed over HTTPS to clientConfig.url
(a service reference cannot be reached from here: it counts as an error),
verified with clientConfig.caBundle, within timeoutSeconds (default 10);
an error or a timeout admits with failurePolicy Ignore and refuses with
Fail (the default), as "failed calling webhook".  A JSONPatch answer
(RFC 6902: add, remove, replace, test, move, copy; pointers RFC 6901) is
applied to the object; a patch that does not apply is an error
(500), as is one that changes the object's kind, apiVersion, name or
namespace.  A denial is a 403 worded as the API server words it.
Standard library only.
"""
import base64
import copy
import json
import ssl
import time
import urllib.request
import uuid


class Refusal(Exception):
    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code
        self.message = message


# ---- selectors (metav1.LabelSelector) ---------------------------------------

def selector_matches(sel, labels):
    """A LabelSelector: matchLabels and matchExpressions (In, NotIn,
    Exists, DoesNotExist); an empty or absent one matches everything."""
    if not sel:
        return True
    labels = labels or {}
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        k, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and k in labels and labels[k] in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def rule_matches(rule, group, version, plural, op, namespaced):
    def has(lst, v):
        return "*" in (lst or []) or v in (lst or [])
    scope = rule.get("scope") or "*"
    if scope == "Namespaced" and not namespaced:
        return False
    if scope == "Cluster" and namespaced:
        return False
    return (has(rule.get("operations"), op) and
            has(rule.get("apiGroups"), group) and
            has(rule.get("apiVersions"), version) and
            has(rule.get("resources"), plural))


# ---- JSON pointers and patches (RFC 6901, RFC 6902) ------------------------

def pointer_tokens(ptr):
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError("pointer %r does not start with /" % ptr)
    out = []
    for t in ptr[1:].split("/"):
        i = 0
        while True:
            i = t.find("~", i)
            if i < 0:
                break
            if t[i + 1:i + 2] not in ("0", "1"):
                raise ValueError("bad ~ escape in %r" % ptr)
            i += 2
        out.append(t.replace("~1", "/").replace("~0", "~"))
    return out


def _index(arr, tok, allow_end):
    if tok == "-" and allow_end:
        return len(arr)
    if not tok.isdigit() or (tok != "0" and tok.startswith("0")):
        raise ValueError("bad array index %r" % tok)
    i = int(tok)
    if i > len(arr) or (i == len(arr) and not allow_end):
        raise ValueError("array index %d out of range" % i)
    return i


def _parent(doc, ptr):
    toks = pointer_tokens(ptr)
    if not toks:
        raise ValueError("the root cannot be patched here")
    cur = doc
    for t in toks[:-1]:
        if isinstance(cur, dict):
            if t not in cur:
                raise ValueError("path %r does not exist" % ptr)
            cur = cur[t]
        elif isinstance(cur, list):
            cur = cur[_index(cur, t, False)]
        else:
            raise ValueError("path %r does not exist" % ptr)
    return cur, toks[-1]


def _get(doc, ptr):
    cur = doc
    for t in pointer_tokens(ptr):
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list):
            cur = cur[_index(cur, t, False)]
        else:
            raise ValueError("path %r does not exist" % ptr)
    return cur


def _add(doc, ptr, value):
    parent, t = _parent(doc, ptr)
    if isinstance(parent, dict):
        parent[t] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, t, True), value)
    else:
        raise ValueError("path %r does not exist" % ptr)


def _remove(doc, ptr):
    parent, t = _parent(doc, ptr)
    if isinstance(parent, dict):
        if t not in parent:
            raise ValueError("path %r does not exist" % ptr)
        return parent.pop(t)
    if isinstance(parent, list):
        return parent.pop(_index(parent, t, False))
    raise ValueError("path %r does not exist" % ptr)


def apply_patch(doc, ops):
    """The document with the RFC 6902 operations applied (a copy)."""
    doc = copy.deepcopy(doc)
    if not isinstance(ops, list):
        raise ValueError("a JSONPatch is a list of operations")
    for op in ops:
        kind, path = op.get("op"), op.get("path")
        if not isinstance(path, str):
            raise ValueError("an operation without a path")
        if kind == "add":
            _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            _remove(doc, path)
            _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise ValueError("test failed at %r" % path)
        elif kind in ("move", "copy"):
            v = _get(doc, op["from"])
            if kind == "move":
                _remove(doc, op["from"])
            _add(doc, path, copy.deepcopy(v))
        else:
            raise ValueError("unknown operation %r" % kind)
    return doc


# ---- PATCH of a stored object ----------------------------------------------

PATCH_TYPES = ("application/merge-patch+json",
               "application/strategic-merge-patch+json",
               "application/json-patch+json")


def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def patch_object(obj, ctype, patch):
    """obj with patch applied as ctype says.  A strategic merge patch is
    read as a JSON merge patch: the same for the maps kubectl label and
    annotate change (lists would be merged by key on a real server)."""
    if ctype == "application/json-patch+json":
        return apply_patch(obj, patch)
    return merge_patch(obj, patch)


# ---- the chain ---------------------------------------------------------------

def _call(hook, review, log):
    cc = hook.get("clientConfig") or {}
    url = cc.get("url")
    if not url:
        raise ValueError("clientConfig.service cannot be reached from the "
                         "fake API server; use clientConfig.url")
    cadata = base64.b64decode(cc.get("caBundle") or "").decode()
    ctx = ssl.create_default_context(cadata=cadata or None)
    req = urllib.request.Request(
        url, data=json.dumps(review).encode(), method="POST",
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, */*"})
    with urllib.request.urlopen(req, context=ctx,
                                timeout=hook.get("timeoutSeconds", 10)) as r:
        answer = json.loads(r.read())
    resp = answer["response"]
    if resp.get("uid") != review["request"]["uid"]:
        raise ValueError("expected response.uid %r, got %r" % (
            review["request"]["uid"], resp.get("uid")))
    if not isinstance(resp.get("allowed"), bool):
        raise ValueError("response.allowed is not a boolean")
    return resp


def run_chain(configs, namespaces, info, obj, old, user, dry, log):
    """Runs the mutating, then the validating webhooks of configs
    ({"mutating": [...], "validating": [...]}, each a list of stored
    configuration objects) over obj.  info: (group, version, plural,
    kind, namespaced, ns, name, op).  namespaces: name -> labels.
    Returns (object, warnings); raises Refusal."""
    group, version, plural, kind, namespaced, ns, name, op = info
    warnings = []
    for phase in ("mutating", "validating"):
        for cfg in sorted(configs.get(phase, []),
                          key=lambda c: c["metadata"]["name"]):
            for hook in cfg.get("webhooks") or []:
                if not any(rule_matches(r, group, version, plural, op,
                                        namespaced)
                           for r in hook.get("rules") or []):
                    continue
                if namespaced and not selector_matches(
                        hook.get("namespaceSelector"),
                        namespaces.get(ns) or {}):
                    continue
                labels = (obj.get("metadata") or {}).get("labels")
                old_labels = ((old or {}).get("metadata") or {}).get(
                    "labels")
                if not (selector_matches(hook.get("objectSelector"),
                                         labels) or
                        (old is not None and selector_matches(
                            hook.get("objectSelector"), old_labels))):
                    continue
                review = {
                    "apiVersion": "admission.k8s.io/v1",
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
                        "userInfo": {"username": user or "",
                                     "groups": ["system:authenticated"]},
                        "object": obj, "oldObject": old, "dryRun": dry,
                        "options": {"apiVersion": "meta.k8s.io/v1",
                                    "kind": "CreateOptions"
                                    if op == "CREATE" else
                                    "UpdateOptions"}}}
                event = {"event": "webhook", "phase": phase,
                         "webhook": hook.get("name"), "operation": op,
                         "resource": plural, "name": name}
                try:
                    resp = _call(hook, review, log)
                    patched = obj
                    if phase == "mutating" and resp.get("patch"):
                        if resp.get("patchType") != "JSONPatch":
                            raise ValueError("patchType %r" %
                                             resp.get("patchType"))
                        ops = json.loads(base64.b64decode(resp["patch"]))
                        patched = apply_patch(obj, ops)
                        event["patch"] = ops
                        m0, m1 = obj["metadata"], patched.get(
                            "metadata") or {}
                        if (patched.get("kind"), patched.get("apiVersion"),
                                m1.get("name"), m1.get("namespace")) != (
                                obj.get("kind"), obj.get("apiVersion"),
                                m0.get("name"), m0.get("namespace")):
                            raise ValueError("the patch changes the "
                                             "object's identity")
                except Exception as e:
                    event["error"] = "%s: %s" % (type(e).__name__, e)
                    log(event)
                    if hook.get("failurePolicy", "Fail") == "Ignore":
                        continue
                    raise Refusal(500, 'Internal error occurred: failed '
                                  'calling webhook "%s": %s' %
                                  (hook.get("name"), e))
                w = resp.get("warnings") or []
                warnings.extend(w)
                event.update(allowed=resp["allowed"], warnings=len(w))
                log(event)
                if not resp["allowed"]:
                    st = resp.get("status") or {}
                    msg = 'admission webhook "%s" denied the request' % \
                        hook.get("name")
                    if st.get("message"):
                        msg += ": " + st["message"]
                    raise Refusal(st.get("code") or 403, msg)
                obj = patched
    return obj, warnings
