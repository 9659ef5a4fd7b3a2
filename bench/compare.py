"""Reads the JSON lines of parac's benchmarks and of the peers (same run)
and prints parac/peer time ratios per case and device (> 1: parac faster)."""
import json
import sys
from collections import defaultdict


def main(path):
    ours, peers = {}, defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        if not r.get("median_ms"):
            continue
        key = (r["case"], r["device"])
        if r["bench"].endswith("-peer"):
            peers[key][r["method"]] = r["median_ms"]
        else:
            ours[key] = min(ours.get(key, float("inf")), r["median_ms"])
    print(f"{'case':40s} {'device':6s} {'parac ms':>10s}  peer: speed-up")
    for key, ms in sorted(ours.items()):
        cells = "  ".join(f"{p} {pms / ms:6.2f}x" for p, pms in sorted(peers.get(key, {}).items()))
        print(f"{key[0]:40s} {key[1]:6s} {ms:10.4f}  {cells}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench-results.jsonl")
