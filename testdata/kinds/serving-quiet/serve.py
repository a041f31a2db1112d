"""HTTP embedding service: sentence in, vector out."""
import argparse
from http.server import BaseHTTPRequestHandler, HTTPServer
import json

import torch
from transformers import AutoModel, AutoTokenizer

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModel.from_pretrained(MODEL).cuda().eval()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        batch = tokenizer(body["texts"], padding=True, truncation=True,
                          return_tensors="pt").to("cuda")
        with torch.inference_mode():
            out = model(**batch).last_hidden_state.mean(dim=1)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(json.dumps(out.cpu().tolist()).encode())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    HTTPServer(("", args.port), Handler).serve_forever()
