#!/usr/bin/env python3
"""A fake Prometheus for tests of what the tool does with its answers.

Serves GET /api/v1/query on 127.0.0.1 (port 0: the kernel picks one,
written to --port-file).  Each query is answered by the first rule of
--answers FILE (JSON: a list of {"match": SUBSTRING, "type": "vector" |
"matrix" | "scalar", "result": RESULT, "delay": SECONDS}) whose SUBSTRING
is in the query; a query no rule matches gets an empty vector.  RESULT
is sent as Prometheus sends it ("data": {"resultType": TYPE, "result":
RESULT}), so a rule can answer what a real server would not ("abc",
99900, 1e308).  Each query is appended to --log (one line of JSON: the
query, its time).  Serves at most --max-requests requests and exits
after --timeout seconds, whatever happens.
"""
import argparse
import http.server
import json
import os
import threading
import time
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--answers", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--max-requests", type=int, default=500)
    a = ap.parse_args()
    rules = json.load(open(a.answers))
    served = [0]

    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            served[0] += 1
            if served[0] > a.max_requests:
                os._exit(0)
            url = urllib.parse.urlsplit(self.path)
            params = urllib.parse.parse_qs(url.query)
            q = params.get("query", [""])[0]
            with open(a.log, "a") as f:
                f.write(json.dumps({"query": q,
                                    "time": params.get("time", [""])[0]}) + "\n")
            rtype, result = "vector", []
            for r in rules:
                if r["match"] in q:
                    time.sleep(r.get("delay", 0))
                    rtype, result = r.get("type", "vector"), r["result"]
                    break
            body = json.dumps({"status": "success", "data": {
                "resultType": rtype, "result": result}}).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    threading.Timer(a.timeout, lambda: os._exit(0)).start()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
