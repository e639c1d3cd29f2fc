#!/usr/bin/env python3
"""skinbench's CPU frame against ozz-animation's, on one machine, alternated.

Usage: scripts/ozz-compare/compare.py [--rig RIG] [--instances N,...] [--threads T,...]
                                      [--rounds R] [--out DIR] [--summarize]

Example (the committed report's run):
    scripts/ozz-compare/compare.py --instances 1000,10000 --rounds 3 \\
        --out bench-results/2026-12-01_intel-xeon_ozz-compare

How it works: it builds ozz_frame (build.sh) and writes the rig for it
(`cargo run --release --example ozz_input`). Each round runs, for every crowd size,
ozz_frame at every thread count (full detail: ozz-animation has no mesh levels), then
`skinbench bench --workload crowd --quick` with the same sizes and threads (the release
binary in target/, built first), so a slow phase of the shared machine falls on both. Every
run's output stays in --out. The summary (printed, and written to --out/summary.md) takes
the median over the rounds of each run's median frame: ozz-animation's frame against
skinbench's CPU stages (the same four jobs: sample, hierarchy, palette, skin) with both
LODs off, with geometric LOD on (each character skinned at the level it draws), and with
both LODs on, from each of the crowd workload's cameras.
--summarize: run nothing; read what a previous run left in --out.
"""
import argparse, glob, json, os, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def run(args, out_file=None):
    print("compare:", " ".join(args), flush=True)
    if out_file:
        with open(out_file, "w") as sink:
            done = subprocess.run(args, cwd=REPO, stdout=sink)
    else:
        done = subprocess.run(args, cwd=REPO)
    if done.returncode != 0:
        sys.exit(f"compare: {' '.join(args)} exited with {done.returncode}")


def measure(opts):
    os.makedirs(opts.out, exist_ok=True)
    ozz_dir = os.path.join(REPO, "target", "ozz-compare")
    run(["bash", os.path.join(HERE, "build.sh"), ozz_dir])
    run(["cargo", "build", "--release", "--bin", "skinbench", "--example", "ozz_input"])
    rig_file = os.path.join(ozz_dir, "rig.skoz")
    run([os.path.join(REPO, "target", "release", "examples", "ozz_input"), opts.rig, rig_file])
    for r in range(1, opts.rounds + 1):
        for n in opts.instances:
            for t in opts.threads:
                frames = "60" if n <= 1000 else "30"
                run([os.path.join(ozz_dir, "ozz_frame"), rig_file, "--instances", str(n),
                     "--threads", str(t), "--frames", frames],
                    os.path.join(opts.out, f"ozz_{n}inst_{t}threads_round{r}.txt"))
            run([os.path.join(REPO, "target", "release", "skinbench"), "bench", "--rig",
                 opts.rig, "--workload", "crowd", "--quick", "--instances", str(n),
                 "--threads", ",".join(map(str, opts.threads)), "--out",
                 os.path.join(opts.out, f"skinbench_round{r}")])


def summarize(opts):
    ozz = {}  # (instances, threads) -> [frame µs per round]
    for path in glob.glob(os.path.join(opts.out, "ozz_*inst_*threads_round*.txt")):
        m = re.search(r"ozz_(\d+)inst_(\d+)threads_round", os.path.basename(path))
        frame = re.search(r"^frame: (\d+)", open(path).read(), re.M)
        if m and frame:
            ozz.setdefault((int(m[1]), int(m[2])), []).append(float(frame[1]))
    ours = {}  # (instances, camera, threads, lod, mesh) -> [cpu stages µs per round]
    machine = None
    for path in glob.glob(os.path.join(opts.out, "skinbench_round*", "*_crowd*.json")):
        report = json.load(open(path))
        machine = report["machine"]
        crowd = report["crowd"]
        for row in crowd["rows"]:
            key = (crowd["instances"], row["camera"], row["threads"], row["lod"], row["mesh_lod"])
            ours.setdefault(key, []).append((row["cpu_stages_us"], row["skinned_vertices"],
                                             row["full_vertices"]))
    if not ozz or not ours:
        sys.exit(f"compare: no ozz_frame outputs or crowd reports in {opts.out}")
    med = statistics.median
    lines = ["# skinbench's CPU frame against ozz-animation's", ""]
    if machine:
        lines += [f"Machine: {machine['cpu']} ({machine['cpu_id']}), {machine['cores']} "
                  f"threads, {machine['simd']}; skinbench {machine['git_sha']}, "
                  "ozz-animation 0.16.0 (third_party/ozz-animation), both -O3 for this CPU.", ""]
    lines += [
        "Medians over the rounds of each run's median frame, µs. ozz = ozz_frame: ozz-animation's "
        "SamplingJob, LocalToModelJob, its palette (model × inverse bind) and SkinningJob for "
        "every character at full detail (it has no mesh levels). skinbench = the crowd "
        "workload's CPU column (the same four stages, `simd` / `pulled`), the level each "
        "character draws where geometric LOD is on. × = ozz over skinbench.", "",
        "| characters | camera | threads | ozz, full detail | skinbench, full detail | × | "
        "skinbench, geometric LOD | × | vertices skinned | skinbench, both LODs (1 px) | × |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, t in sorted(ozz):
        o = med(ozz[(n, t)])
        for camera in ("overview", "street"):
            cells = []
            for lod, mesh in ((False, False), (False, True), (True, True)):
                runs = ours.get((n, camera, t, lod, mesh))
                if not runs:
                    cells.append(None)
                    continue
                cells.append((med(r[0] for r in runs), runs[0][1] / runs[0][2]))
            if cells[0] is None:
                continue
            fmt = lambda c: ("–", "–") if c is None else (f"{c[0]:,.0f}", f"{o / c[0]:.1f}×")
            full, mesh_on, both = fmt(cells[0]), fmt(cells[1]), fmt(cells[2])
            share = "–" if cells[1] is None else f"{100 * cells[1][1]:.0f} %"
            lines.append(f"| {n:,} | {camera} | {t} | {o:,.0f} | {full[0]} | {full[1]} | "
                         f"{mesh_on[0]} | {mesh_on[1]} | {share} | {both[0]} | {both[1]} |")
    rounds = {len(v) for v in ozz.values()} | {len(v) for v in ours.values()}
    lines += ["", f"Rounds: {', '.join(map(str, sorted(rounds)))} runs a figure."]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(opts.out, "summary.md"), "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rig", default="reference")
    p.add_argument("--instances", default="1000,10000")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=os.path.join(REPO, "bench-results", "local", "ozz-compare"))
    p.add_argument("--summarize", action="store_true")
    opts = p.parse_args()
    try:
        opts.instances = [int(x) for x in opts.instances.split(",")]
        opts.threads = [int(x) for x in opts.threads.split(",")]
    except ValueError:
        p.error("--instances and --threads take whole numbers separated by commas")
    if opts.rounds < 1 or min(opts.instances + opts.threads) < 1:
        p.error("--rounds, --instances and --threads must be at least 1")
    opts.out = os.path.abspath(opts.out)
    if not opts.summarize:
        measure(opts)
    summarize(opts)


if __name__ == "__main__":
    main()
