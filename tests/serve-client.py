#!/usr/bin/env python3
"""An HTTPS client for tests/e2e/serve.sh (Python standard library only).

  serve-client.py req CA METHOD URL [BODYFILE]
      one request; prints the status on the first line, then the body
  serve-client.py review FILE.yaml OPERATION [UID]
      prints an admission.k8s.io/v1 AdmissionReview of the object in FILE
  serve-client.py limits RESPONSE
      checks an AdmissionReview response's warnings against the API
      server's limits (each at most 256 runes, at most 4096 in all, no
      control character); prints "warnings N runes M"
  serve-client.py crowd CA URL IDLE BUSY BODYFILE
      opens IDLE TLS connections that send nothing, then BUSY POSTs of
      BODYFILE at once on other threads; prints the statuses counted
      ("200 x BUSY") and closes the idle ones
  serve-client.py slow CA URL
      sends half a request's headers and stops: prints how the server
      ended it ("closed" when it closed the connection)
"""
import collections
import json
import socket
import ssl
import sys
import threading
import urllib.parse
import urllib.request

import yaml


def ctx_for(ca):
    return ssl.create_default_context(cafile=ca)


def req(ca, method, url, body=None):
    r = urllib.request.Request(url, data=body, method=method,
                               headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, context=ctx_for(ca), timeout=60) as f:
            return f.status, f.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def main():
    cmd = sys.argv[1]
    if cmd == "req":
        ca, method, url = sys.argv[2:5]
        body = open(sys.argv[5], "rb").read() if len(sys.argv) > 5 else None
        status, data = req(ca, method, url, body)
        sys.stdout.write("%d\n" % status)
        sys.stdout.buffer.write(data)
        return 0
    if cmd == "review":
        obj = yaml.safe_load(open(sys.argv[2]))
        op = sys.argv[3]
        uid = sys.argv[4] if len(sys.argv) > 4 else "e2e-uid-1"
        g, _, v = obj["apiVersion"].rpartition("/")
        meta = obj.get("metadata", {})
        print(json.dumps({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid,
                        "kind": {"group": g, "version": v,
                                 "kind": obj["kind"]},
                        "operation": op, "name": meta.get("name", ""),
                        "namespace": meta.get("namespace", ""),
                        "object": None if op == "DELETE" else obj,
                        "oldObject": obj if op == "DELETE" else None}}))
        return 0
    if cmd == "limits":
        resp = json.load(open(sys.argv[2]))["response"]
        ws = resp.get("warnings", [])
        for w in ws:
            if len(w) > 256:
                print("too long (%d runes): %s" % (len(w), w[:60]))
                return 1
            if any(ord(c) < 32 or ord(c) == 127 for c in w):
                print("control character in: %r" % w[:60])
                return 1
        total = sum(len(w) for w in ws)
        if total > 4096:
            print("%d runes in all, over 4096" % total)
            return 1
        print("warnings %d runes %d" % (len(ws), total))
        return 0
    if cmd == "crowd":
        ca, url, idle, busy, bodyfile = sys.argv[2:7]
        u = urllib.parse.urlsplit(url)
        held = []
        for _ in range(int(idle)):
            s = socket.create_connection((u.hostname, u.port), timeout=30)
            held.append(s)
        body = open(bodyfile, "rb").read()
        counts = collections.Counter()
        lock = threading.Lock()

        def one():
            try:
                status, _ = req(ca, "POST", url, body)
            except Exception as e:   # counted, not raised
                status = type(e).__name__
            with lock:
                counts[status] += 1
        threads = [threading.Thread(target=one) for _ in range(int(busy))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for s in held:
            s.close()
        print(" ".join("%s x %d" % kv for kv in sorted(counts.items(),
                                                       key=str)))
        return 0
    if cmd == "slow":
        ca, url = sys.argv[2:4]
        u = urllib.parse.urlsplit(url)
        raw = socket.create_connection((u.hostname, u.port), timeout=60)
        s = ctx_for(ca).wrap_socket(raw, server_hostname=u.hostname)
        s.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Le")
        try:
            data = s.recv(100)
            print("closed" if not data else "answered")
        except (ssl.SSLError, OSError) as e:
            print("closed (%s)" % type(e).__name__)
        return 0
    print("unknown command " + cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
