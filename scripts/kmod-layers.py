#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kmod-layers.py - the module's layers, measured from its includes and calls.

Usage: scripts/kmod-layers.py [--map kmod/LAYERS] [--max-up N]
                              [--max-circle N] [-v] [KMOD_DIR]

A room is one concern: x.c and x.h together.  An arrow runs from room A to
room B when a file of A includes B's header, or names a function or
variable B's .c defines (not static), or a macro or inline function B's
header defines.  Arrows are counted once per (A, B) pair.

kmod/LAYERS gives each room a layer, lowest first (its own comments say
how to read it).  An arrow is "up" when it runs from a lower layer to a
higher one: a foundation that reaches into what is built on it.  A circle
is a set of rooms each of which reaches every other (a strongly connected
component); the largest one is reported.

Prints the figures, and with -v every up arrow with the names behind it.
Exits 1 when a room has no layer, when there are more up arrows than
--max-up, or when the largest circle has more rooms than --max-circle
(by default the budgets LAYERS gives: "max-up: N", "max-circle: N"); 0
otherwise.  make check and make check-host run it.  Needs only Python 3: no ctags, no compiler.
"""
import argparse
import collections
import os
import re
import sys


def strip_c(src):
    """Source without comments and string or character literals."""
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    src = re.sub(r'//[^\n]*', ' ', src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])'", "' '", src)
    return src


# A definition at file scope, kernel style: starts in column 0.
FUNC_DEF = re.compile(r'^(?!static\b|typedef\b|extern\b|struct\s+\w+\s*\{)'
                      r'[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{',
                      re.M)
VAR_DEF = re.compile(r'^(?!static\b|typedef\b|extern\b|return\b)'
                     r'(?:const\s+)?(?:struct\s+\w+|unsigned\s+\w+|\w+)'
                     r'[\s\*]+(\w+)\s*(?:\[[^\]]*\])?\s*(?:=|;)', re.M)
STATIC_DEF = re.compile(r'^static\b[^;=(]*?\b(\w+)\s*\(', re.M)
INLINE_DEF = re.compile(r'^static\s+(?:__always_)?inline\b[^;{(]*?\b(\w+)\s*\(',
                        re.M)
MACRO_DEF = re.compile(r'^#\s*define\s+(\w+)', re.M)
INCLUDE = re.compile(r'^#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def room_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def read_rooms(kdir):
    files = sorted(os.path.join(kdir, f) for f in os.listdir(kdir)
                   if f.endswith(('.c', '.h')) and not f.endswith('.mod.c'))
    src = {p: open(p, encoding='utf-8').read() for p in files}
    return files, src


def defining_rooms(files, src):
    """name -> room that defines it (first definition wins)."""
    defs = {}
    for p in files:
        s = strip_c(src[p])
        r = room_of(p)
        if p.endswith('.c'):
            names = FUNC_DEF.findall(s) + VAR_DEF.findall(s)
        else:
            names = INLINE_DEF.findall(s) + MACRO_DEF.findall(src[p])
        for n in names:
            if n in ('if', 'for', 'while', 'switch', 'return', 'sizeof'):
                continue
            defs.setdefault(n, r)
    return defs


def arrows(files, src, defs):
    """(room, room) -> the names (or '#include') behind that arrow."""
    why = collections.defaultdict(set)
    for p in files:
        a = room_of(p)
        own = set(STATIC_DEF.findall(strip_c(src[p])))  # its own, not another room's
        for h in INCLUDE.findall(src[p]):
            b = room_of(h)
            if b != a:
                why[(a, b)].add('#include')
        for tok in set(IDENT.findall(strip_c(src[p]))):
            b = defs.get(tok)
            if b and b != a and tok not in own:
                why[(a, b)].add(tok)
    return why


def largest_circle(rooms, graph):
    """The largest strongly connected set of rooms (iterative Tarjan)."""
    index, low, onstack, stack, best = {}, {}, set(), [], []
    counter = 0
    for root in rooms:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    onstack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in onstack:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > len(best):
                    best = comp
    return sorted(best)


def read_layers(path):
    """LAYERS: 'N name: room room ...' lines, lowest N first, and the
    budgets 'max-up: N' and 'max-circle: N'."""
    layer, names, budget = {}, {}, {}
    for line in open(path, encoding='utf-8'):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        head, _, rooms = line.partition(':')
        if head in ('max-up', 'max-circle'):
            budget[head] = int(rooms)
            continue
        num, _, name = head.partition(' ')
        for r in rooms.split():
            layer[r] = int(num)
        names[int(num)] = name.strip()
    return layer, names, budget


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('kdir', nargs='?', default=None)
    ap.add_argument('--map', default=None)
    ap.add_argument('--max-up', type=int, default=None)
    ap.add_argument('--max-circle', type=int, default=None)
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    kdir = args.kdir or os.path.join(os.path.dirname(__file__), '..', 'kmod')
    files, src = read_rooms(kdir)
    rooms = sorted({room_of(p) for p in files})
    why = arrows(files, src, defining_rooms(files, src))
    graph = collections.defaultdict(set)
    for a, b in why:
        graph[a].add(b)
    layer, names, budget = read_layers(args.map or os.path.join(kdir, 'LAYERS'))
    max_up = args.max_up if args.max_up is not None else budget.get('max-up')
    max_circle = (args.max_circle if args.max_circle is not None
                  else budget.get('max-circle'))
    status = 0
    lost = [r for r in rooms if r not in layer]
    if lost:
        print('kmod-layers: rooms without a layer in LAYERS: ' + ' '.join(lost))
        status = 1
    up = sorted((a, b) for a, b in why if layer.get(a, -1) < layer.get(b, -1))
    circle = largest_circle(rooms, graph)
    for n in sorted(names):
        print(f'kmod-layers: layer {n} {names[n]}: '
              + ' '.join(r for r in rooms if layer.get(r) == n))
    print(f'kmod-layers: {len(rooms)} rooms, {len(why)} arrows, '
          f'{len(up)} up, largest circle {len(circle)}: {" ".join(circle)}')
    if args.v:
        for a, b in up:
            print(f'  up {a} ({layer[a]}) -> {b} ({layer[b]}): '
                  + ' '.join(sorted(why[(a, b)])))
    if max_up is not None and len(up) > max_up:
        print(f'kmod-layers: FAILED: {len(up)} up arrows, at most {max_up}')
        status = 1
    if max_circle is not None and len(circle) > max_circle:
        print(f'kmod-layers: FAILED: a circle of {len(circle)} rooms, '
              f'at most {max_circle}')
        status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
