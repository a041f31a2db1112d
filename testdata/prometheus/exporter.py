#!/usr/bin/env python3
"""A test exporter of cAdvisor-shaped series for a real Prometheus.

Serves /metrics on 127.0.0.1 (port 0: the kernel picks one, written to
--port-file) in the Prometheus text format, with the series the kubelet's
cAdvisor exports per container and whose counters move with the clock:

  container_cpu_cfs_periods_total            10 per second (100 ms periods)
  container_cpu_cfs_throttled_periods_total  throttled share x periods
  container_cpu_usage_seconds_total{cpu="total"}  cpus x seconds
  container_threads                          a constant gauge

The containers come from --container NS/POD/NAME=THROTTLED,CPUS,THREADS
(repeatable), so a test knows what Prometheus must answer: the throttled
share THROTTLED (0..1, or more for a test of absurd figures), CPUS CPUs
used, THREADS threads (any number, "inf" too).  A suffix @EPOCH makes a
container that starts at EPOCH (seconds): no series before, counters from
zero after, as a container started then has.  A pod-level
cgroup series (container="") and a sandbox (container="POD") are served
too, as cAdvisor does, for the queries to leave out.  Exits after
--timeout seconds.

--app NS/POD=EXAMPLES,WAIT@EPOCH (repeatable) serves what a training
loop would export for `compare --throughput/--wait`: counters
train_examples_total (EXAMPLES per second) and
train_loader_wait_seconds_total (WAIT seconds per second: the share of
time the loop waits for batches), from EPOCH on.
"""
import argparse
import http.server
import os
import threading
import time

START = time.time()
CONTAINERS = []     # (ns, pod, name, throttled, cpus, threads, born)
APPS = []           # (ns, pod, examples per second, wait share, born)


def prom_float(v):
    """A sample value as Prometheus writes it (+Inf, -Inf, NaN)."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


def metrics():
    # One clock reading for every value, written beside each sample as
    # its timestamp, as cAdvisor stamps its container series: a scrape
    # that a loaded machine serves late then still gives Prometheus a
    # value that matches its time, so rate() is the rate that was set.
    now = time.time()
    t = now - START
    stamp = int(now * 1000)
    out = []

    def family(name, typ, rows):
        out.append("# HELP %s cAdvisor-shaped test series." % name)
        out.append("# TYPE %s %s" % (name, typ))
        for labels, value in rows:
            out.append("%s{%s} %s %d" % (name, labels, prom_float(value),
                                         stamp))

    periods, throttled, usage, threads = [], [], [], []
    for ns, pod, name, thr, cpus, nthreads, born in CONTAINERS:
        base = 'namespace="%s",pod="%s"' % (ns, pod)
        lab = 'container="%s",id="/kubepods/%s/%s",image="x",%s' % (
            name, pod, name, base)
        if born is not None:
            # Started at born: nothing before, counters from zero.
            if now < born:
                continue
            p = 10.0 * (now - born)
            periods.append((lab, p))
            throttled.append((lab, thr * p))
            usage.append((lab + ',cpu="total"',
                          cpus * (now - born)))
            threads.append((lab, nthreads))
            continue
        # A history before the exporter started, as a running container
        # has; the rates over the window do not depend on it.
        p = 50000 + 10.0 * t
        periods.append((lab, p))
        throttled.append((lab, thr * p))
        usage.append((lab + ',cpu="total"', 1000 + cpus * t))
        threads.append((lab, nthreads))
        pod_lab = 'container="",id="/kubepods/%s",image="",%s' % (pod, base)
        periods.append((pod_lab, p))
        throttled.append((pod_lab, thr * p))
        usage.append((pod_lab + ',cpu="total"', 1000 + (cpus + 1) * t))
        threads.append((pod_lab, nthreads + 1))
        sandbox = 'container="POD",id="/kubepods/%s/pause",image="pause",%s' % (
            pod, base)
        threads.append((sandbox, 1))
    family("container_cpu_cfs_periods_total", "counter", periods)
    family("container_cpu_cfs_throttled_periods_total", "counter", throttled)
    family("container_cpu_usage_seconds_total", "counter", usage)
    family("container_threads", "gauge", threads)
    examples, waits = [], []
    for ns, pod, rate, wait, born in APPS:
        if now < born:
            continue
        lab = 'namespace="%s",pod="%s"' % (ns, pod)
        examples.append((lab, rate * (now - born)))
        waits.append((lab, wait * (now - born)))
    if APPS:
        family("train_examples_total", "counter", examples)
        family("train_loader_wait_seconds_total", "counter", waits)
    return ("\n".join(out) + "\n").encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] != "/metrics":
            self.send_error(404)
            return
        body = metrics()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--container", action="append", default=[])
    ap.add_argument("--app", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    for spec in args.container:
        key, vals = spec.split("=")
        ns, pod, name = key.split("/")
        vals, _, born = vals.partition("@")
        thr, cpus, nthreads = vals.split(",")
        CONTAINERS.append((ns, pod, name, float(thr), float(cpus),
                           float(nthreads), float(born) if born else None))
    for spec in args.app:
        key, vals = spec.split("=")
        ns, pod = key.split("/")
        vals, _, born = vals.partition("@")
        rate, wait = vals.split(",")
        APPS.append((ns, pod, float(rate), float(wait), float(born)))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    threading.Timer(args.timeout, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
