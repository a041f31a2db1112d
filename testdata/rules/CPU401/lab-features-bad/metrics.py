"""metrics.py: the training loop's own Prometheus counters, served the way
a job exports them from its metrics endpoint (no prometheus_client: the
text format is three lines per counter).

Owns: the counters of one process (examples processed, seconds spent
waiting for a batch) and the HTTP thread that serves them on
127.0.0.1:$METRICS_PORT (no endpoint when the variable is unset).
A run under the lab gets LAB_COUNTERS instead of a port: a fixed-size
file the counters are also written to on every add() (mapped, a sequence
number around each write so a reader never takes half of one), which the
lab's exporter (tests/lab/promlab.py, outside the run's CPU quota) serves
under the same names: under a quota the exporting thread is throttled
with the loop and misses scrapes, which a real cluster's sidecar or node
exporter does not (tests/lab/README.md).  And LAB_STATUS, a file where
mark() writes when the loop is warm and finish() its own totals, so the
harness can check Prometheus against the process.
"""
import http.server
import json
import mmap
import os
import struct
import threading
import time

# LAB_COUNTERS's layout: sequence (odd while a write is under way),
# examples, wait seconds; little-endian, SIZE bytes in all
LAYOUT, SIZE = "<Qdd", 64
_file = None
_seq = 0


def _open_counters():
    global _file
    path = os.environ.get("LAB_COUNTERS")
    if not path or _file is not None:
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size < SIZE:
            os.ftruncate(fd, SIZE)
        _file = mmap.mmap(fd, SIZE)
    finally:
        os.close(fd)


def _write_counters():
    """Under _lock: the counters into LAB_COUNTERS's map."""
    global _seq
    if _file is None:
        return
    _seq += 1
    struct.pack_into("<Q", _file, 0, _seq)
    struct.pack_into("<dd", _file, 8, _counters["train_examples_total"],
                     _counters["train_loader_wait_seconds_total"])
    _seq += 1
    struct.pack_into("<Q", _file, 0, _seq)


def read_counters(path):
    """(examples, wait seconds) from a LAB_COUNTERS file, or None when it
    is missing or stays mid-write (the exporter's side)."""
    try:
        with open(path, "rb") as f:
            for _ in range(20):
                f.seek(0)
                b = f.read(struct.calcsize(LAYOUT))
                if len(b) < struct.calcsize(LAYOUT):
                    return None
                seq, ex, wait = struct.unpack(LAYOUT, b)
                f.seek(0)
                if seq % 2 == 0 and f.read(8) == b[:8]:
                    return ex, wait
                time.sleep(0.001)
    except OSError:
        pass
    return None

_lock = threading.Lock()
_counters = {"train_examples_total": 0.0, "train_loader_wait_seconds_total": 0.0}
_help = {"train_examples_total": "Training examples processed.",
         "train_loader_wait_seconds_total": "Seconds the loop waited for a batch."}
_marks = {}


def add(examples, wait_seconds):
    with _lock:
        _counters["train_examples_total"] += examples
        _counters["train_loader_wait_seconds_total"] += wait_seconds
        _write_counters()


def _text():
    out = []
    with _lock:
        for name, value in _counters.items():
            out.append("# HELP %s %s" % (name, _help[name]))
            out.append("# TYPE %s counter" % name)
            out.append("%s %r" % (name, float(value)))
    return ("\n".join(out) + "\n").encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = _text()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve():
    _open_counters()
    port = os.environ.get("METRICS_PORT")
    if not port:
        return
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), _Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def deadline():
    """When a bounded run (the lab's LAB_SECONDS after warm-up) stops."""
    s = os.environ.get("LAB_SECONDS")
    return float(s) if s else None


def mark(what):
    _marks[what] = time.time()
    with _lock:
        _marks[what + "_examples"] = _counters["train_examples_total"]
        _marks[what + "_wait"] = _counters["train_loader_wait_seconds_total"]
    path = os.environ.get("LAB_STATUS")
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(_marks, f)
        os.replace(path + ".tmp", path)


def finish(linger=2.5):
    """Mark the end and keep the endpoint up for a last scrape."""
    mark("end")
    if os.environ.get("METRICS_PORT"):
        time.sleep(linger)
