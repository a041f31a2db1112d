"""promlab.py: the lab's measurement side: an exporter of each run's real
cgroup counters (under cAdvisor's names) and of its training loop's own
counters (train_examples_total, train_loader_wait_seconds_total, read
from the file the loop writes them to, workloads/metrics.py), a real
Prometheus (Debian's package, on 127.0.0.1, its own data directory under
the lab's output) scraping it, the PromQL figures of one run (the
queries `compare` makes, lib/plan/compare.c), and the test API server
(testdata/apiserver/server.py) serving the plan's Pods.

The exporter runs in the lab's own process, outside every run's quota:
served from a thread inside the throttled training process, the loop's
counters missed scrapes (docs/lab.md, third run).

Owns: the exporter thread, the Prometheus and API server processes (each
also exits by itself after its timeout).
"""
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "workloads"))
import metrics  # noqa: E402  (the counters file's layout, one place)

TRAIN_HELP = {"train_examples_total": "Training examples processed.",
              "train_loader_wait_seconds_total": "Seconds the loop waited for a batch."}


class Lab:
    def __init__(self, out, timeout, scrape_ms=1000):
        self.scrape_ms = scrape_ms
        self.out = out
        self.dir = os.path.join(out, "prometheus")
        self.timeout = timeout
        self.lock = threading.Lock()
        self.groups = []        # (group, aliases, counters files)
        self.procs = []
        self.srv = None
        self.url = None

    # -- the exporter: cAdvisor's names and labels, real counters --
    def metrics(self):
        fam = {"container_cpu_usage_seconds_total": [], "container_cpu_cfs_periods_total": [],
               "container_cpu_cfs_throttled_periods_total": [], "container_threads": []}
        train = {"train_examples_total": [], "train_loader_wait_seconds_total": []}
        with self.lock:
            groups = list(self.groups)
        for g, aliases, files in groups:
            usage, periods, throttled, threads = g.counters()
            for rank, path in enumerate(files):
                got = metrics.read_counters(path)
                if got is None:
                    continue
                for ns, pod in aliases:
                    lab = 'namespace="%s",pod="%s",rank="%d"' % (ns, pod, rank)
                    train["train_examples_total"].append((lab, got[0]))
                    train["train_loader_wait_seconds_total"].append((lab, got[1]))
            for ns, pod in aliases:
                lab = 'container="train",id="/kubepods/%s/%s/train",image="lab",namespace="%s",pod="%s"' % (
                    ns, pod, ns, pod)
                fam["container_cpu_usage_seconds_total"].append((lab + ',cpu="total"', usage))
                fam["container_cpu_cfs_periods_total"].append((lab, periods))
                fam["container_cpu_cfs_throttled_periods_total"].append((lab, throttled))
                fam["container_threads"].append((lab, threads))
        out = []
        for name, rows in fam.items():
            out.append("# TYPE %s %s" % (name, "gauge" if name == "container_threads" else "counter"))
            out += ["%s{%s} %r" % (name, l, float(v)) for l, v in rows]
        for name, rows in train.items():
            out.append("# HELP %s %s" % (name, TRAIN_HELP[name]))
            out.append("# TYPE %s counter" % name)
            out += ["%s{%s} %r" % (name, l, float(v)) for l, v in rows]
        return ("\n".join(out) + "\n").encode()

    def add_run(self, g, aliases, files):
        """A run's cgroup and the counters files its ranks write (made
        here at zero, so its series start from 0 as an endpoint's do)."""
        for path in files:
            with open(path, "wb") as f:
                f.write(b"\0" * metrics.SIZE)
        with self.lock:
            self.groups.append((g, aliases, list(files)))
        g.counters()

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        lab = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = lab.metrics()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.srv.daemon_threads = True
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        with open(os.path.join(self.dir, "prometheus.yml"), "w") as f:
            # 1 s for runs of 5 s and more; shorter runs (the smoke) need
            # 500 ms for two samples in their window
            f.write("""global:
  scrape_interval: %dms
  scrape_timeout: %dms
scrape_configs:
  - job_name: cadvisor
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:%d"]
""" % (self.scrape_ms, self.scrape_ms - 100, self.srv.server_address[1]))
        data = os.path.join(self.dir, "data")
        subprocess.run(["rm", "-rf", data])
        log = open(os.path.join(self.dir, "prometheus.log"), "w")
        p = subprocess.Popen(["timeout", str(self.timeout), "prometheus",
                              "--config.file=" + os.path.join(self.dir, "prometheus.yml"),
                              "--storage.tsdb.path=" + data,
                              "--web.listen-address=127.0.0.1:%d" % port],
                             stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        self.url = "http://127.0.0.1:%d" % port
        for _ in range(200):
            try:
                r = self.query('up{job="cadvisor"}', time.time())
                if r and r[0]["value"][1] == "1":
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("Prometheus did not start scraping (%s)" % os.path.join(self.dir, "prometheus.log"))

    def query(self, q, at):
        data = urllib.parse.urlencode({"query": q, "time": "%.3f" % at}).encode()
        with urllib.request.urlopen(self.url + "/api/v1/query", data, timeout=20) as r:
            return json.load(r)["data"]["result"]

    def one(self, q, at):
        r = self.query(q, at)
        return float(r[0]["value"][1]) if r else None

    def figures(self, ns, pod, start, finish):
        """The figures compare reads for one Pod over its life."""
        w = max(1, finish - start)
        m = '{namespace="%s",pod="%s"' % (ns, pod)
        c = m + ',container="train"'
        return {
            "window": w,
            "examples_per_s": self.one("sum(rate(train_examples_total%s}[%ds]))" % (m, w), finish),
            "wait": self.one("sum(rate(train_loader_wait_seconds_total%s}[%ds]))" % (m, w), finish),
            "cpu": self.one('sum(rate(container_cpu_usage_seconds_total%s,cpu=~"total|"}[%ds]))' % (c, w), finish),
            "throttled_pct": self.one("100 * sum(rate(container_cpu_cfs_throttled_periods_total%s}[%ds])) / "
                                      "sum(rate(container_cpu_cfs_periods_total%s}[%ds]))" % (c, w, c, w), finish),
            "threads_seen": self.one("max(max_over_time(container_threads%s}[%ds]))" % (c, w), finish),
        }

    # -- the API server the plan's Pods are read from --
    def apiserver(self, fixtures, timeout=900):
        d = os.path.join(self.out, "apiserver")
        subprocess.run(["rm", "-rf", d])
        os.makedirs(d)
        log = open(os.path.join(d, "server.log"), "w")
        p = subprocess.Popen(["python3", os.path.join(ROOT, "testdata", "apiserver", "server.py"),
                              "--dir", d, "--fixtures", fixtures, "--timeout", str(timeout)],
                             stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        for _ in range(300):
            if os.path.exists(os.path.join(d, "port")) and open(os.path.join(d, "port")).read().strip():
                return os.path.join(d, "kubeconfig")
            if p.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("the test API server did not start (%s)" % os.path.join(d, "server.log"))

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.srv:
            self.srv.shutdown()
