"""The ablation table of the ParaC evaluation from bench_parac's JSON lines:
kernel time per program and size for every variant, the speed-up of -O2
over -O0, and what switching each optimisation off costs at -O2."""
import json
import sys
from collections import defaultdict

VARIANTS = ["O0", "O2", "no_vectorize", "no_vector_loads", "no_merge_stores", "no_restrict", "no_fuse", "no_one_launch",
            "no_fuse_stencils", "w4", "w8", "r1", "if_convert", "local_memory", "no_stage"]


def main(path):
    t = defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        t[r["case"]][r["method"]] = r["median_ms"]
    print("| program, size | " + " | ".join(VARIANTS) + " | -O2 vs -O0 | off: vectorize | off: vector loads | off: merge stores | off: restrict | off: fusion | off: one launch | off: stencil fusion | one row per work-item | if-conversion on | local-memory tiles on | off: stages in local memory |")
    print("|---" * (len(VARIANTS) + 13) + "|")
    for case in t:
        row = t[case]
        o2 = row.get("O2")
        cells = [f"{row[v]:.3f}" if v in row else "-" for v in VARIANTS]

        def cost(v):
            return f"{100 * (row[v] / o2 - 1):+.1f} %" if o2 and v in row else "-"

        speed = f"{row['O0'] / o2:.2f}×" if o2 and "O0" in row else "-"
        print(f"| {case} | " + " | ".join(cells) + f" | {speed} | {cost('no_vectorize')} | "
              f"{cost('no_vector_loads')} | {cost('no_merge_stores')} | {cost('no_restrict')} | {cost('no_fuse')} | {cost('no_one_launch')} | "
              f"{cost('no_fuse_stencils')} | {cost('r1')} | {cost('if_convert')} | {cost('local_memory')} | {cost('no_stage')} |")


if __name__ == "__main__":
    main(sys.argv[1])
