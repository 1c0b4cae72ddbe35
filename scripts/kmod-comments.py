#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kmod-comments.py - the share of hixl.ko's source lines that are comments.

Usage: scripts/kmod-comments.py [--max SHARE] [-v] [KMOD_DIR]

Counts, over KMOD_DIR/*.c and *.h (default kmod/; not kbuild's *.mod.c), the non-blank lines and
among them the comment lines: a line is a comment line when, outside string
literals, it holds nothing but comment text (a line of code with a comment
after it counts as code).  Prints the share, and with -v the share of each
file, most commented first.  Exits 1 when the share exceeds --max (drivers
in the tree: drivers/infiniband/ulp/rtrs 0.13, drivers/block/ublk_drv.c
0.11, net/rds/ib* 0.18), else 0.  Needs only Python 3.
"""
import argparse
import glob
import os
import sys


def count(path):
    """(non-blank lines, comment-only lines) of one C file."""
    lines = comments = 0
    in_block = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            lines += 1
            code = False
            i, n = 0, len(s)
            had_comment = in_block
            while i < n:
                if in_block:
                    j = s.find('*/', i)
                    if j < 0:
                        i = n
                        break
                    in_block = False
                    i = j + 2
                    continue
                if s.startswith('/*', i):
                    in_block = True
                    had_comment = True
                    i += 2
                elif s.startswith('//', i):
                    had_comment = True
                    break
                elif s[i] in '"\'':
                    q = s[i]
                    i += 1
                    while i < n and s[i] != q:
                        i += 2 if s[i] == '\\' else 1
                    i += 1
                    code = True
                else:
                    if not s[i].isspace():
                        code = True
                    i += 1
            if had_comment and not code:
                comments += 1
    return lines, comments


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max', type=float, default=None)
    ap.add_argument('-v', action='store_true')
    ap.add_argument('kdir', nargs='?', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'kmod'))
    a = ap.parse_args()
    per = []
    for p in sorted(glob.glob(os.path.join(a.kdir, '*.[ch]'))):
        if not p.endswith('.mod.c'):	# kbuild's, after a build in place
            per.append((p, *count(p)))
    lines = sum(x[1] for x in per)
    comments = sum(x[2] for x in per)
    share = comments / lines if lines else 0.0
    if a.v:
        for p, l_, c in sorted(per, key=lambda x: -x[2] / max(x[1], 1)):
            print(f'{c / max(l_, 1):.2f} {c:5d}/{l_:5d} {os.path.basename(p)}')
    print(f'kmod-comments: {comments} of {lines} non-blank lines are comments: '
          f'{share:.3f}' + (f' (budget {a.max:.2f})' if a.max is not None else ''))
    if a.max is not None and share > a.max:
        print('kmod-comments: over budget: say what and why, briefly; measured '
              'facts belong in docs/developing.md', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
