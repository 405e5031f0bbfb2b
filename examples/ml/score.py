#!/usr/bin/env python3
"""Batch scoring (run by the CronJob): loads the newest trained model under
<DATA_DIR>/runs/*/model.npz (or MODEL_PATH), scores a batch of new synthetic
samples and writes <DATA_DIR>/scores/<UTC time>.json atomically.

Environment: DATA_DIR (/data), MODEL_PATH (optional), BATCH_SIZE (500), SEED (1234).
"""
import glob
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlcore  # noqa: E402


def main():
    data_dir = os.environ.get("DATA_DIR", "/data")
    n = int(os.environ.get("BATCH_SIZE", "500"))
    seed = int(os.environ.get("SEED", "1234"))
    path = os.environ.get("MODEL_PATH") or ""
    if not path:
        models = glob.glob(os.path.join(data_dir, "runs", "*", "model.npz"))
        if not models:
            print("no trained model yet", flush=True)
            return 1
        path = max(models, key=os.path.getmtime)
    params, _ = mlcore.load_params(path)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    # each run scores a fresh batch: the stream offset comes from the minute
    x, y = mlcore.dataset(seed, n, offset=2 + int(time.time() // 60) % 100000)
    pred = mlcore.forward(params, x)[1].argmax(1)
    counts = np.bincount(pred, minlength=mlcore.CLASSES).tolist()
    result = {"model": path, "time": stamp, "samples": n, "class_counts": counts,
              "accuracy": round(float((pred == y).mean()), 4)}
    out = os.path.join(data_dir, "scores")
    os.makedirs(out, exist_ok=True)
    mlcore.save_json(os.path.join(out, f"{stamp}.json"), result)
    print(f"scored {n} samples with {path}: class counts {counts}, accuracy {result['accuracy']}; "
          f"wrote scores/{stamp}.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
