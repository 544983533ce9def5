#!/usr/bin/python3
"""bench_vs_torch.py - Stepformer against PyTorch, side by side.

Runs `stepformer bench --only NAME` and the matching PyTorch script of
tools/ alternately, ROUNDS times (three by default), and prints each round's
two medians and their ratio (PyTorch ms / Stepformer ms: above 1 means
Stepformer is faster), then the median ratio and its range. Alternating
keeps a load that changes during the run from favouring one side; on a
shared machine quote the median and the range, not one round.

    tools/bench_vs_torch.py [--rounds 3] [--seconds 3] [--stepformer build/stepformer]
        [forward_base_b1_s32 train_classroom_b32_s16 ...]

One JSON line per round and one summary line per comparison. Not needed to
build or test Stepformer (PyTorch lives in /usr/bin/python3 here).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Stepformer bench entry -> (PyTorch script in tools/, the line to read)
PAIRS = {
    "forward_base_b1_s32": ("torch_forward_bench.py", "torch_forward_base_b1_s32_best"),
    "train_classroom_b32_s16": ("torch_train_bench.py", "torch_train_classroom_b32_s16_best"),
}


def lines(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(s) for s in out.splitlines() if s.startswith("{")]


def ours(exe, name, seconds):
    rows = lines([exe, "bench", "--only", name] + (["--quick"] if seconds < 1 else []))
    row = next(r for r in rows if r["name"] == name)
    peak = next((r["gflops"] for r in rows if r["name"] == "sgemm_peak"), None)
    return row["median_ms"], row.get("peak_fraction"), peak


def theirs(script, line, seconds):
    rows = lines([sys.executable, os.path.join(HERE, script), "--seconds", str(seconds)])
    row = next(r for r in rows if r["name"] == line)
    return row["median_ms"], row["threads"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--stepformer", default=os.path.join(HERE, "..", "build", "stepformer"))
    ap.add_argument("names", nargs="*", default=list(PAIRS))
    a = ap.parse_args()
    for name in a.names:
        if name not in PAIRS:
            sys.exit(f"bench_vs_torch: no PyTorch side for {name!r}; known: {', '.join(PAIRS)}")
        script, line = PAIRS[name]
        ratios = []
        for r in range(a.rounds):
            ms, frac, peak = ours(a.stepformer, name, a.seconds)
            tms, threads = theirs(script, line, a.seconds)
            ratios.append(tms / ms)
            print(json.dumps({"name": name, "round": r + 1, "stepformer_ms": ms,
                              "peak_fraction": frac, "sgemm_peak_gflops": peak,
                              "torch_ms": tms, "torch_threads": threads,
                              "ratio": round(tms / ms, 3)}), flush=True)
        print(json.dumps({"name": name, "rounds": a.rounds,
                          "median_ratio": round(statistics.median(ratios), 3),
                          "min_ratio": round(min(ratios), 3),
                          "max_ratio": round(max(ratios), 3),
                          "loadavg_1min": os.getloadavg()[0]}), flush=True)


if __name__ == "__main__":
    main()
