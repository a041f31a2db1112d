#!/usr/bin/env python3
"""Hostile HTTPS clients for tests/e2e/serve-hostile.sh (standard library).

Every client is bounded: a fixed number of connections, each with a
socket timeout, and a fixed length of time; it prints what it saw and
exits.

  serve-hostile.py get CA URL [SOURCE]
      one GET from the address SOURCE (default 127.0.0.1), at most 5 s;
      prints the status or "no answer (...)"
  serve-hostile.py bodies CA URL PID N MIB
      N connections each POST a body of MIB MiB (a piece to each in
      turn), all but its last bytes;
      with every one sent, prints how much PID's resident memory grew
      ("grew M MiB"), then sends the last bytes and prints the statuses
      counted ("400 x 3 503 x 21")
  serve-hostile.py slowloris CA URL N SECONDS [URLS...]
      N connections (from 127.0.0.1) send a request line, then one
      header line every 2 s, for at most SECONDS; meanwhile, once all
      are open, each of URLS is asked (GET, or POST with an empty body
      for /validate) from 127.0.0.2 with 5 s to answer.  Prints
      "answered URL STATUS" or "starved URL (...)" for each, then
      "closed K of N by T s" (K held connections the server closed, T
      the latest it closed one)
"""
import socket
import ssl
import sys
import threading
import time
import urllib.parse


def tls(ca, url, source="127.0.0.1", timeout=5.0):
    u = urllib.parse.urlsplit(url)
    raw = socket.create_connection((u.hostname, u.port), timeout=timeout,
                                   source_address=(source, 0))
    ctx = ssl.create_default_context(cafile=ca)
    return ctx.wrap_socket(raw, server_hostname=u.hostname), u


def ask(ca, url, source="127.0.0.1", timeout=5.0):
    """One request with timeout seconds in all; the status or why not."""
    start = time.monotonic()
    try:
        s, u = tls(ca, url, source, timeout)
        method = "POST" if u.path == "/validate" else "GET"
        s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                   "Connection: close\r\n\r\n" % (method, u.path)).encode())
        data = b""
        while b"\r\n" not in data:
            s.settimeout(max(0.1, timeout - (time.monotonic() - start)))
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        line = data.split(b"\r\n")[0].decode("latin-1")
        return line.split(" ")[1] if line.startswith("HTTP/") else \
            "no answer (closed)"
    except (OSError, ssl.SSLError) as e:
        return "no answer (%s)" % type(e).__name__


def rss_kib(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bodies(ca, url, pid, n, mib):
    size = mib << 20
    before = rss_kib(pid)
    conns = []
    chunk = b"1," * (1 << 17)
    for _ in range(n):
        s, u = tls(ca, url, timeout=30)
        s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: "
                   "application/json\r\nContent-Length: %d\r\nConnection: "
                   "close\r\n\r\n[" % (u.path, size)).encode())
        conns.append(s)
    # A piece to each in turn, so none is idle long enough to be closed.
    left = size - 3              # "[" sent; "1]" at the end
    while left > 0:
        part = chunk[:min(len(chunk), left)]
        for s in conns:
            s.sendall(part)
        left -= len(part)
    time.sleep(1)
    grew = (rss_kib(pid) - before) >> 10
    print("grew %d MiB" % grew)
    counts = {}
    # The last bytes to all first: read one by one, the others would wait
    # idle while the server judges each.
    for s in conns:
        try:
            s.sendall(b"1]")
        except (OSError, ssl.SSLError):
            pass
    for s in conns:
        try:
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            st = data.split(b" ")[1].decode() if data.startswith(b"HTTP/") \
                else "closed"
        except (OSError, ssl.SSLError) as e:
            st = type(e).__name__
        counts[st] = counts.get(st, 0) + 1
        s.close()
    print(" ".join("%s x %d" % kv for kv in sorted(counts.items())))


def slowloris(ca, url, n, seconds, urls):
    start = time.monotonic()
    closed = []
    opened = []
    lock = threading.Lock()

    def one():
        try:
            s, u = tls(ca, url, timeout=seconds)
            s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n" % u.path).encode())
        except (OSError, ssl.SSLError):
            with lock:
                opened.append(False)
            return
        with lock:
            opened.append(True)
        i = 0
        s.settimeout(2)
        while time.monotonic() - start < seconds:
            try:
                s.sendall(b"X-Slow-%d: 1\r\n" % i)
                i += 1
                if s.recv(100) == b"":
                    raise OSError("closed")
            except socket.timeout:
                continue
            except (OSError, ssl.SSLError):
                with lock:
                    closed.append(time.monotonic() - start)
                break
        s.close()

    threads = [threading.Thread(target=one, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    while len(opened) < n and time.monotonic() - start < seconds:
        time.sleep(0.1)
    time.sleep(1)
    for u in urls:
        st = ask(ca, u, source="127.0.0.2")
        print(("answered %s %s" if st.isdigit() else "starved %s (%s)")
              % (urllib.parse.urlsplit(u).path, st))
    for t in threads:
        t.join(seconds + 5)
    print("closed %d of %d by %d s" % (len(closed), opened.count(True),
                                       int(max(closed, default=0) + 0.999)))


def main():
    cmd = sys.argv[1]
    if cmd == "get":
        src = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
        print(ask(sys.argv[2], sys.argv[3], src))
        return 0
    if cmd == "bodies":
        ca, url, pid, n, mib = sys.argv[2:7]
        bodies(ca, url, pid, int(n), int(mib))
        return 0
    if cmd == "slowloris":
        ca, url, n, seconds = sys.argv[2:6]
        slowloris(ca, url, int(n), float(seconds), sys.argv[6:])
        return 0
    print("unknown command " + cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
