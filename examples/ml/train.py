#!/usr/bin/env python3
"""One worker of an Indexed Job: trains the example MLP on its shard of the
synthetic data set (shard = JOB_COMPLETION_INDEX), checkpointing every
CKPT_EVERY steps to <DATA_DIR>/runs/<JOB_UID>/worker-<index>/ with atomic
renames. A replacement pod resumes from the newest readable checkpoint and
prints "resumed from step N". When a worker finishes it writes its shard
model; whichever worker finds every shard model present averages them into
<DATA_DIR>/runs/<JOB_UID>/model.npz (+ model.json).

Before training, the workers meet as torch.distributed's rendezvous does:
worker 0 listens on MASTER_PORT; every other worker resolves MASTER_ADDR (the
stable DNS name of worker 0's pod behind the Job's headless Service,
<job>-0.<job>) and registers there; worker 0 starts once every worker has
(a worker whose shard is already trained is not waited for, nor anyone by a
worker 0 that resumes from a checkpoint). Worker 0 keeps
listening while it trains, so a replacement pod registers again.

Environment: JOB_UID (downward API: the Job's uid label), JOB_COMPLETION_INDEX,
NUM_SHARDS (2), MASTER_ADDR (unset: no rendezvous), MASTER_PORT (29500),
RDZV_TIMEOUT (300 s), DATA_DIR (/data), STEPS (300), CKPT_EVERY (25), BATCH (64),
LR (0.1), HIDDEN (32), SEED (1234), SAMPLES (12000), STEP_SLEEP (0.1 s: paces
the demo like a bigger model would), MODEL_VERSION (recorded in model.json).
"""
import glob
import json
import os
import re
import signal
import socket
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlcore  # noqa: E402


def env(name, default, conv=str):
    v = os.environ.get(name)
    return conv(v) if v not in (None, "") else default


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def latest_checkpoint(wdir):
    """(step, params) of the newest checkpoint that loads, or (0, None)."""
    found = []
    for path in glob.glob(os.path.join(wdir, "ckpt-*.npz")):
        m = re.match(r"ckpt-(\d+)\.npz$", os.path.basename(path))
        if m:
            found.append((int(m.group(1)), path))
    for step, path in sorted(found, reverse=True):
        try:
            params, _ = mlcore.load_params(path)
            return step, params
        except Exception as e:  # a torn file cannot happen with rename, but be safe
            log(f"skipping unreadable checkpoint {path}: {e}")
    return 0, None


def prune(wdir, keep=3):
    paths = sorted(glob.glob(os.path.join(wdir, "ckpt-*.npz")))
    for p in paths[:-keep]:
        try:
            os.unlink(p)
        except OSError:
            pass


def average_if_complete(run_dir, shards, meta):
    paths = [os.path.join(run_dir, f"worker-{i}", "model.npz") for i in range(shards)]
    if not all(os.path.exists(p) for p in paths):
        return False
    models = [mlcore.load_params(p)[0] for p in paths]
    avg = {k: np.mean([m[k] for m in models], axis=0) for k in models[0]}
    xt, yt = mlcore.dataset(meta["seed"], 2000, offset=1)
    meta = dict(meta, test_accuracy=round(mlcore.accuracy(avg, xt, yt), 4),
                shard_test_accuracy=[round(mlcore.accuracy(m, xt, yt), 4) for m in models])
    mlcore.save_npz(os.path.join(run_dir, "model.npz"), **avg)
    mlcore.save_json(os.path.join(run_dir, "model.json"), meta)
    log(f"wrote averaged model {os.path.join(run_dir, 'model.npz')} "
        f"(test accuracy {meta['test_accuracy']}, shards {meta['shard_test_accuracy']})")
    return True


class Rendezvous:
    """Worker 0's side: who has registered, served on a thread."""

    def __init__(self, port):
        self.joined = {0: socket.gethostname()}
        self.cond = threading.Condition()
        self.sock = socket.create_server(("", port), reuse_port=False)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            conn, peer = self.sock.accept()
            with conn:
                try:
                    conn.settimeout(10)
                    hello = json.loads(conn.makefile("r").readline())
                    rank = int(hello["rank"])
                    with self.cond:
                        self.joined[rank] = hello.get("host", "?")
                        world = sorted(self.joined)
                        log(f"rendezvous: worker {rank} ({hello.get('host')}) registered from {peer[0]}; "
                            f"workers {world}")
                        self.cond.notify_all()
                    conn.sendall((json.dumps({"master": socket.gethostname(), "world": world}) + "\n").encode())
                except (OSError, ValueError, KeyError) as e:
                    log(f"rendezvous: bad registration from {peer[0]}: {e}")

    def wait(self, ranks, timeout):
        deadline = time.time() + timeout
        with self.cond:
            while not ranks <= set(self.joined):
                left = deadline - time.time()
                if left <= 0:
                    return False
                self.cond.wait(min(left, 1.0))
        return True


def join_master(addr, port, index, timeout, master_done):
    """Registers with worker 0 at addr:port; retries while its name does not
    resolve yet or it does not listen yet. False if worker 0 finished first."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        if master_done():
            log(f"rendezvous: worker 0 already finished its shard; not waiting for {addr}")
            return False
        try:
            ip = socket.getaddrinfo(addr, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
            with socket.create_connection((ip, port), timeout=5) as c:
                c.sendall((json.dumps({"rank": index, "host": socket.gethostname()}) + "\n").encode())
                reply = json.loads(c.makefile("r").readline())
            log(f"rendezvous: found worker 0 at {addr} ({ip}:{port}, pod {reply['master']}); "
                f"workers {reply['world']}")
            return True
        except (OSError, ValueError, KeyError) as e:
            if str(e) != last:
                log(f"rendezvous: {addr}:{port} not reachable yet ({e}); retrying")
                last = str(e)
            time.sleep(0.5)
    raise SystemExit(f"rendezvous: worker 0 at {addr}:{port} not reached in {timeout:.0f}s")


def main():
    uid = env("JOB_UID", "local")
    index = env("JOB_COMPLETION_INDEX", 0, int)
    shards = env("NUM_SHARDS", 2, int)
    data_dir = env("DATA_DIR", "/data")
    steps = env("STEPS", 300, int)
    every = env("CKPT_EVERY", 25, int)
    batch = env("BATCH", 64, int)
    lr = env("LR", 0.1, float)
    hidden = env("HIDDEN", 32, int)
    seed = env("SEED", 1234, int)
    samples = env("SAMPLES", 12000, int)
    pause = env("STEP_SLEEP", 0.1, float)
    version = env("MODEL_VERSION", "1")
    master = env("MASTER_ADDR", "")
    master_port = env("MASTER_PORT", 29500, int)
    rdzv_timeout = env("RDZV_TIMEOUT", 300.0, float)

    run_dir = os.path.join(data_dir, "runs", uid)
    wdir = os.path.join(run_dir, f"worker-{index}")
    os.makedirs(wdir, exist_ok=True)
    meta = {"job_uid": uid, "shards": shards, "steps": steps, "hidden": hidden, "seed": seed,
            "samples": samples, "lr": lr, "batch": batch, "model_version": version}
    log(f"worker {index}/{shards} of job {uid} on {socket.gethostname()}: numpy {np.__version__}, "
        f"{steps} steps, checkpoint every {every}, run dir {run_dir}")

    if os.path.exists(os.path.join(wdir, "model.npz")):
        log(f"shard {index} already trained; nothing to do")
        average_if_complete(run_dir, shards, meta)
        return 0

    if master and index == 0:
        rdzv = Rendezvous(master_port)
        others = {i for i in range(1, shards)
                  if not os.path.exists(os.path.join(run_dir, f"worker-{i}", "model.npz"))}
        if glob.glob(os.path.join(wdir, "ckpt-*.npz")):
            others = set()  # a resumed worker 0: the others registered with its predecessor
        log(f"rendezvous: listening on port {master_port} as {master}; waiting for workers {sorted(others)}")
        if not rdzv.wait(others, rdzv_timeout):
            raise SystemExit(f"rendezvous: workers {sorted(others - set(rdzv.joined))} did not register "
                             f"in {rdzv_timeout:.0f}s")
        log(f"rendezvous: all {shards} workers present")
    elif master:
        join_master(master, master_port, index, rdzv_timeout,
                    lambda: os.path.exists(os.path.join(run_dir, "worker-0", "model.npz")))

    x, y = mlcore.dataset(seed, samples)
    x, y = mlcore.shard(x, y, index, shards)
    step, params = latest_checkpoint(wdir)
    if params is None:
        params = mlcore.init_params(seed, hidden)
        log(f"starting from step 0 ({len(y)} samples in shard {index})")
    else:
        log(f"resumed from step {step} ({len(y)} samples in shard {index})")

    stop = {"sig": None}

    def on_term(signum, _frame):
        stop["sig"] = signum

    signal.signal(signal.SIGTERM, on_term)
    loss = float("nan")
    while step < steps:
        # the minibatch of each step depends only on (seed, index, step): resumable
        rng = np.random.default_rng([seed, index, step])
        pick = rng.integers(0, len(y), size=batch)
        loss = mlcore.sgd_step(params, x[pick], y[pick], lr)
        step += 1
        if step % every == 0 or step == steps or stop["sig"]:
            mlcore.save_npz(os.path.join(wdir, f"ckpt-{step:06d}.npz"), step=step, **params)
            prune(wdir)
            log(f"step {step}/{steps} loss {loss:.4f} train accuracy "
                f"{mlcore.accuracy(params, x, y):.3f}; checkpoint ckpt-{step:06d}.npz")
        if stop["sig"]:
            log(f"received signal {stop['sig']} at step {step}: checkpoint saved, exiting")
            return 128 + stop["sig"]
        if pause > 0:
            time.sleep(pause)

    mlcore.save_npz(os.path.join(wdir, "model.npz"), **params)
    log(f"shard {index} done: wrote {os.path.join(wdir, 'model.npz')}")
    average_if_complete(run_dir, shards, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
