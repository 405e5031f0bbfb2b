"""Shared pieces of the skiff ML example: the synthetic data set, a small
numpy MLP (features -> hidden tanh -> softmax classes), and atomic .npz
writes. Everything is deterministic given the seeds, so a replaced worker
that resumes from a checkpoint computes exactly what the lost one would have.
"""
import json
import os
import tempfile

import numpy as np

FEATURES = 16
CLASSES = 3


def teacher(seed):
    """A fixed random 'teacher' that labels points: the task to learn."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(FEATURES, CLASSES)), rng.normal(size=(CLASSES,)) * 0.5


def dataset(seed, n, offset=0):
    """n labelled samples; `offset` selects a disjoint stream (train/test/scoring)."""
    w, b = teacher(seed)
    rng = np.random.default_rng([seed, 1 + offset])
    x = rng.normal(size=(n, FEATURES))
    logits = np.tanh(x) @ w + b
    y = np.argmax(logits + rng.gumbel(size=logits.shape) * 0.3, axis=1)
    return x, y


def shard(x, y, index, count):
    """The rows of shard `index` out of `count` (JOB_COMPLETION_INDEX of the Job)."""
    return x[index::count], y[index::count]


def init_params(seed, hidden):
    rng = np.random.default_rng([seed, 7])
    return {
        "w1": rng.normal(size=(FEATURES, hidden)) / np.sqrt(FEATURES),
        "b1": np.zeros(hidden),
        "w2": rng.normal(size=(hidden, CLASSES)) / np.sqrt(hidden),
        "b2": np.zeros(CLASSES),
    }


def forward(p, x):
    h = np.tanh(x @ p["w1"] + p["b1"])
    z = h @ p["w2"] + p["b2"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return h, e / e.sum(axis=1, keepdims=True)


def sgd_step(p, x, y, lr):
    """One minibatch step of softmax cross-entropy; returns the loss."""
    h, prob = forward(p, x)
    n = x.shape[0]
    loss = -np.log(prob[np.arange(n), y] + 1e-12).mean()
    dz = prob.copy()
    dz[np.arange(n), y] -= 1
    dz /= n
    dh = (dz @ p["w2"].T) * (1 - h * h)
    grads = {"w2": h.T @ dz, "b2": dz.sum(0), "w1": x.T @ dh, "b1": dh.sum(0)}
    for k, g in grads.items():
        p[k] -= lr * g
    return float(loss)


def accuracy(p, x, y):
    return float((forward(p, x)[1].argmax(1) == y).mean())


def save_npz(path, **arrays):
    """Write path atomically: temporary file in the same directory, fsync, rename."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dfd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def save_json(path, obj):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


def load_params(path):
    with np.load(path) as z:
        return {k: z[k].copy() for k in ("w1", "b1", "w2", "b2")}, {k: z[k].copy() for k in z.files}
