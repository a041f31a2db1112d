"""metrics.py: the training loop's own Prometheus counters, served the way
a job exports them from its metrics endpoint (no prometheus_client: the
text format is three lines per counter).

Owns: the counters of one process (examples processed, seconds spent
waiting for a batch) and the HTTP thread that serves them on
127.0.0.1:$METRICS_PORT (no endpoint when the variable is unset).
A run under the lab also gets LAB_STATUS, a file where mark() writes when
the loop is warm and finish() its own totals, so the harness can check
Prometheus against the process.
"""
import http.server
import json
import os
import threading
import time

_lock = threading.Lock()
_counters = {"train_examples_total": 0.0, "train_loader_wait_seconds_total": 0.0}
_help = {"train_examples_total": "Training examples processed.",
         "train_loader_wait_seconds_total": "Seconds the loop waited for a batch."}
_marks = {}


def add(examples, wait_seconds):
    with _lock:
        _counters["train_examples_total"] += examples
        _counters["train_loader_wait_seconds_total"] += wait_seconds


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
