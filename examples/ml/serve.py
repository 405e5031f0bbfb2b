#!/usr/bin/env python3
"""Model server: loads MODEL_PATH (an .npz written by train.py) in the
background and answers predictions over HTTP (Python's http.server).

  GET  /healthz            200 while the process serves (liveness)
  GET  /ready              200 once the model is loaded and until SIGTERM (startup/readiness)
  GET  /predict?sample=K   predict test sample K of the synthetic data set
  POST /predict            {"instances": [[16 floats], ...]} -> {"predictions": [...]}

Environment: MODEL_PATH, MODEL_VERSION, PORT (8080), LOAD_DELAY (seconds of
simulated weight loading, 3), DRAIN_SECONDS (keep serving after SIGTERM so
clients that still hold this pod's address get answers, 3), SEED (1234).
"""
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlcore  # noqa: E402

MODEL_PATH = os.environ.get("MODEL_PATH", "/data/model.npz")
VERSION = os.environ.get("MODEL_VERSION", "1")
PORT = int(os.environ.get("PORT", "8080"))
LOAD_DELAY = float(os.environ.get("LOAD_DELAY", "3"))
DRAIN = float(os.environ.get("DRAIN_SECONDS", "3"))
SEED = int(os.environ.get("SEED", "1234"))
HOST = socket.gethostname()

state = {"params": None, "draining": False, "served": 0, "meta": {}}
test_x, test_y = mlcore.dataset(SEED, 1000, offset=1)


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def load():
    t0 = time.time()
    while not os.path.exists(MODEL_PATH):
        log(f"waiting for {MODEL_PATH}")
        time.sleep(1)
    params, _ = mlcore.load_params(MODEL_PATH)
    meta_path = os.path.join(os.path.dirname(MODEL_PATH), "model.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            state["meta"] = json.load(f)
    time.sleep(LOAD_DELAY)  # stands in for moving large weights into memory
    state["params"] = params
    log(f"model version {VERSION} loaded from {MODEL_PATH} in {time.time() - t0:.1f}s "
        f"(test accuracy {mlcore.accuracy(params, test_x, test_y):.3f}); ready")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj):
        body = (json.dumps(obj) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def predict(self, x, labels=None):
        params = state["params"]
        if params is None:
            return self.reply(503, {"error": "model not loaded"})
        prob = mlcore.forward(params, np.asarray(x, dtype=float).reshape(-1, mlcore.FEATURES))[1]
        state["served"] += 1
        out = {"model_version": VERSION, "pod": HOST, "predictions": prob.argmax(1).tolist(),
               "probabilities": np.round(prob, 4).tolist()}
        if labels is not None:
            out["labels"] = labels
        self.reply(200, out)

    def do_GET(self):
        u = urlparse(self.path)
        if u.path == "/healthz":
            return self.reply(200, {"status": "ok"})
        if u.path == "/ready":
            ok = state["params"] is not None and not state["draining"]
            return self.reply(200 if ok else 503, {"ready": ok, "model_version": VERSION,
                                                   "draining": state["draining"]})
        if u.path == "/predict":
            q = parse_qs(u.query)
            k = int(q.get("sample", ["0"])[0]) % len(test_y)
            return self.predict(test_x[k:k + 1], labels=[int(test_y[k])])
        if u.path == "/model":
            return self.reply(200, {"model_version": VERSION, "path": MODEL_PATH, "meta": state["meta"]})
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        if urlparse(self.path).path != "/predict":
            return self.reply(404, {"error": "not found"})
        try:
            n = int(self.headers.get("Content-Length", "0"))
            req = json.loads(self.rfile.read(n) or b"{}")
            x = req["instances"]
        except (ValueError, KeyError) as e:
            return self.reply(400, {"error": f"bad request: {e}"})
        self.predict(x)


def main():
    srv = ThreadingHTTPServer(("", PORT), Handler)
    srv.daemon_threads = True

    def on_term(signum, _frame):
        # stop passing readiness first; keep answering for DRAIN seconds
        state["draining"] = True
        log(f"signal {signum}: draining for {DRAIN:.0f}s after {state['served']} predictions")
        threading.Timer(DRAIN, srv.shutdown).start()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    log(f"model server {HOST} version {VERSION} listening on :{PORT}; loading {MODEL_PATH}")
    threading.Thread(target=load, daemon=True).start()
    srv.serve_forever()
    log("stopped")


if __name__ == "__main__":
    main()
