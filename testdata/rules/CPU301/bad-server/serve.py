"""A small embedding service: one thread pool encodes batches."""
import argparse
import os
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer

from sentence_transformers import SentenceTransformer

model = SentenceTransformer("all-MiniLM-L6-v2")
pool = ThreadPoolExecutor(max_workers=os.cpu_count())


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        vec = pool.submit(model.encode, body.decode()).result()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(repr(vec.tolist()).encode())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8000)
    args = ap.parse_args()
    HTTPServer(("", args.port), Handler).serve_forever()
