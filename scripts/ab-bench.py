#!/usr/bin/env python3
"""Before and after: two or more skinbench binaries' bench runs, alternated.

Usage: scripts/ab-bench.py [--rounds N] [--out DIR] [--md FILE] [--stand-in NEW=OLD]
                           [--summarize] NAME=BINARY[@CHECKOUT]... -- BENCH ARGS

Example:
    scripts/ab-bench.py --rounds 4 --out bench-results/ab before=/tmp/old after=target/release/skinbench \\
        -- --workload skin,hierarchy,frame

A binary runs in CHECKOUT where one is given: a report names the commit of the folder it
runs in, so give each binary a checkout of the commit it was built from
(`git worktree add --detach DIR COMMIT`).

How it works: round r runs every binary once (`skinbench bench BENCH ARGS --out DIR`), in
the given order on even rounds and reversed on odd ones (A B, B A, A B, ...), so a slow
phase of the shared machine falls on all of them alike. Every run's report stays in DIR
(`skinbench bench` never replaces one). For each row (workload, variant, method, SIMD
level, instances, threads, schedule) it prints the median over the rounds of each
binary's row median and the ratio of each binary to the first, and writes that table as
Markdown to --md if given. A ratio below 1 is faster than the first binary.

--stand-in NEW=OLD: where the first binary has no rows at SIMD level NEW (a level the later
binaries add), its rows at level OLD stand in for them (the row says so).
--summarize: run nothing; read the reports a previous run left in --out.
"""
import json, os, statistics, subprocess, sys, tempfile


def row_key(workload, row, instances):
    parts = [workload, row.get('variant') or f"{row.get('hierarchy')}+{row.get('skin')}",
             row.get('method', ''), row.get('simd', '')]
    parts.append(str(row.get('instances', instances)))
    if 'threads' in row:
        parts.append(f"{row['threads']}t {row.get('schedule', '')}")
    return ' '.join(p for p in parts if p)


def rows_of(report):
    for workload in ('hierarchy', 'skin', 'frame'):
        section = report.get(workload)
        if not section:
            continue
        for row in section['rows']:
            if row.get('refused') or not row.get('timing'):
                continue
            t = row['timing']
            yield row_key(workload, row, section.get('instances')), t['median_us'], t.get('ns_per_item')
            if workload == 'hierarchy' and row.get('with_palette_median_us'):
                key = row_key('hierarchy+palette', row, section.get('instances'))
                yield key, row['with_palette_median_us'], None


def main():
    args = sys.argv[1:]
    rounds, out, md, stand_in, summarize = 4, None, None, {}, False
    while args and args[0].startswith('--'):
        flag = args.pop(0)
        if flag == '--':
            break
        if flag == '--summarize':
            summarize = True
            continue
        value = args.pop(0)
        if flag == '--stand-in':
            new, old = value.split('=', 1)
            stand_in[new] = old
        elif flag == '--rounds':
            rounds = int(value)
        elif flag == '--out':
            out = value
        elif flag == '--md':
            md = value
        else:
            sys.exit(f'unknown option {flag}')
    if '--' not in args:
        sys.exit(__doc__)
    split = args.index('--')
    binaries = [a.split('=', 1) for a in args[:split]]
    checkouts = {}
    for b in binaries:
        if len(b) == 2 and '@' in b[1]:
            b[1], checkouts[b[0]] = b[1].split('@', 1)
    bench_args = args[split + 1:]
    if len(binaries) < 2 or any(len(b) != 2 for b in binaries):
        sys.exit('give at least two NAME=BINARY')
    out = out or tempfile.mkdtemp(prefix='ab-bench-')
    os.makedirs(out, exist_ok=True)
    medians = {}  # key -> name -> [median per round]
    ns = {}
    order = []
    def take(name, report):
        for key, median, per_item in rows_of(report):
            if key not in medians:
                medians[key] = {}
                order.append(key)
            medians[key].setdefault(name, []).append(median)
            if per_item is not None:
                ns.setdefault(key, {}).setdefault(name, []).append(per_item)

    report = None
    for r in range(rounds):
        sequence = binaries if r % 2 == 0 else binaries[::-1]
        for name, binary in sequence:
            if summarize:
                suffix = f'_{name}_round{r + 1}.json'
                [path] = [f for f in os.listdir(out) if f.endswith(suffix)]
                report = json.load(open(os.path.join(out, path)))
                take(name, report)
                continue
            with tempfile.TemporaryDirectory() as run_dir:
                subprocess.run([os.path.abspath(binary), 'bench', *bench_args, '--out', run_dir],
                               check=True, cwd=checkouts.get(name), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                [report_name] = [f for f in os.listdir(run_dir) if f.endswith('.json')]
                report = json.load(open(os.path.join(run_dir, report_name)))
                stem = f'{report_name[:-5]}_{name}_round{r + 1}'
                for ext in ('json', 'md'):
                    src = os.path.join(run_dir, f'{report_name[:-5]}.{ext}')
                    os.replace(src, os.path.join(out, f'{stem}.{ext}'))
            take(name, report)
            print(f'round {r + 1}: {name} done', file=sys.stderr)
    names = [n for n, _ in binaries]
    cpu = report['machine']['cpu']
    lines = [f'{rounds} rounds, alternating {" / ".join(names)}, on {cpu}; '
             f'bench {" ".join(bench_args)}; reports in {out}', '',
             '| row | ' + ' | '.join(f'{n} µs' for n in names) + ' | '
             + ' | '.join(f'{n}/{names[0]}' for n in names[1:]) + ' | per round |',
             '|---|' + '---:|' * (2 * len(names) - 1) + '---|']
    for key in order:
        m = dict(medians[key])
        note = ''
        if names[0] not in m:
            for new_level, old_level in stand_in.items():
                if f' {new_level} ' in f' {key} ':
                    old_key = f' {key} '.replace(f' {new_level} ', f' {old_level} ').strip()
                    if names[0] in medians.get(old_key, {}):
                        m[names[0]] = medians[old_key][names[0]]
                        note = f' ({names[0]} at {old_level})'
        if any(n not in m for n in names):
            continue
        mid = {n: statistics.median(m[n]) for n in names}
        ratios = [mid[n] / mid[names[0]] for n in names[1:]]
        per_round = ', '.join(
            '/'.join(f'{m[n][i] / m[names[0]][i]:.3f}' for n in names[1:])
            for i in range(min(len(m[n]) for n in names)))
        lines.append(f'| {key}{note} | ' + ' | '.join(f'{mid[n]:.1f}' for n in names) + ' | '
                     + ' | '.join(f'{x:.3f}' for x in ratios) + f' | {per_round} |')
    text = '\n'.join(lines)
    print(text)
    if md:
        with open(md, 'w') as f:
            f.write(text + '\n')


if __name__ == '__main__':
    main()
