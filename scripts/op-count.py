#!/usr/bin/env python3
"""The instruction mix of a function's hot loops, read from the release binary.

Usage: scripts/op-count.py target/release/skinbench 'skinbench::skin::simd::skin_lanes::with_avx512'

How it works: objdump disassembles the named function (nm finds its address range). Every
backward jump marks a loop from its target (the head) to its last back edge; the loops
that contain floating-point arithmetic and no inner loop of their own are printed, one
line each, with their instructions by kind. A loop body is counted once, so an inner loop
that runs once per iteration (a vertex's single store) counts as it runs; a block the loop
skips with a forward jump and that holds subtractions (a cache refilled only when the
joints change) is printed apart as the rare path. Kinds: fma (fused multiply-adds), mul,
add (adds and subtracts), other_fp (max, rsqrt, ...), int (vector integer ops), shuffle
(unpack, permute, insert, extract), broadcast, load and store (vector moves to and from
memory), store_nt (non-temporal), vmov (register moves), scalar (everything else: index
arithmetic, loop control); mem_operands counts arithmetic that reads one operand from
memory (each also a load).
"""
import re, subprocess, sys, collections
binary, sym = sys.argv[1], sys.argv[2]
nm = subprocess.run(['nm', '-C', '--defined-only', '-n', binary], capture_output=True, text=True).stdout.splitlines()
addrs = [(int(l.split()[0], 16), l.split(' ', 2)[2]) for l in nm if len(l.split()) >= 3]
for i, (a, n) in enumerate(addrs):
    if n == sym:
        start = a; end = next(b for b, _ in addrs[i+1:] if b > a); break
out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-M', 'intel', f'--start-address={start}', f'--stop-address={end}', binary], capture_output=True, text=True).stdout
ins = []
for l in out.splitlines():
    m = re.match(r'\s+([0-9a-f]+):\s+(\S+)\s*(.*)', l)
    if m: ins.append((int(m.group(1), 16), m.group(2), m.group(3)))
idx = {a: i for i, (a, _, _) in enumerate(ins)}
heads = {}
for i, (a, op, args) in enumerate(ins):
    if op.startswith('j'):
        t = re.match(r'([0-9a-f]+)', args)
        if t and int(t.group(1), 16) <= a and int(t.group(1), 16) in idx:
            h = idx[int(t.group(1), 16)]
            heads[h] = max(heads.get(h, i), i)
SHUF = ('vunpck', 'vshuf', 'vperm', 'vinsert', 'vextract', 'vblendps', 'vmovlhps', 'vmovhlps', 'vpunpck', 'vmovsldup', 'vmovshdup')
def cat(op, args):
    if re.match(r'vf(n?)m(add|sub)', op): return 'fma'
    if op in ('vmulps',): return 'mul'
    if op in ('vaddps', 'vsubps'): return 'add'
    if op.startswith(SHUF): return 'shuffle'
    if op in ('vmaxps','vminps','vrsqrtps','vrsqrt14ps','vsqrtps','vdivps','vrcp14ps','vrcpps','vandps','vxorps','vorps','vandnps','vblendvps','vcmpps'): return 'other_fp'
    if op.startswith('vp') and op not in ('vpbroadcastd',): return 'int'
    if op in ('vbroadcastss', 'vpbroadcastd'): return 'broadcast'
    if op.startswith('vmovnt'): return 'store_nt'
    if op.startswith('vmov'):
        if re.match(r'\s*(YMMWORD|XMMWORD|DWORD|QWORD|ZMMWORD) PTR', args): return 'store'
        if 'PTR' in args: return 'load'
        return 'vmov'
    return 'scalar'
ranges = sorted((s, e) for s, e in heads.items())
def fp(s, e): return any(cat(op, a) in ('fma', 'mul') for _, op, a in ins[s:e+1])
inner = [(s, e) for s, e in ranges if fp(s, e) and not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) and fp(s2, e2) for s2, e2 in ranges)]
cols = ['fma', 'mul', 'add', 'other_fp', 'int', 'shuffle', 'broadcast', 'load', 'store', 'store_nt', 'vmov', 'scalar']
print('range', *cols, 'mem_operands', 'total', sep='\t')
print_rare = []
for s, e in inner:
    rare = set()
    for i in range(s, e + 1):
        a, op, args = ins[i]
        t = re.match(r'([0-9a-f]+)', args) if op == 'jmp' else None
        if t and int(t.group(1), 16) in idx:
            ti = idx[int(t.group(1), 16)]
            if i < ti <= e and any(o == 'vsubps' for _, o, _ in ins[i+1:ti]):
                rare.update(range(i + 1, ti))
    body = [ins[i] for i in range(s, e + 1) if i not in rare]
    if rare:
        rb = [ins[i] for i in sorted(rare)]
        rc = collections.Counter(cat(op, a) for _, op, a in rb)
        print_rare.append(f'{ins[s][0]:x} rare (per joint-set change): ' + ' '.join(f'{k}={v}' for k, v in sorted(rc.items())) + f' total={len(rb)}')
    c = collections.Counter(cat(op, a) for _, op, a in body)
    mem = sum(1 for _, op, a in body if cat(op, a) in ('fma', 'mul', 'add') and 'PTR' in a)
    print(f'{ins[s][0]:x}-{ins[e][0]:x}', *[c.get(k, 0) for k in cols], mem, len(body), sep='\t')

print(*print_rare, sep='\n')
