#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test-kmod-layers.py - TAP: scripts/kmod-layers.py on small made-up trees.

Each case writes a few rooms (x.c, x.h) and a LAYERS file into a scratch
directory, runs the script on it and checks its exit status and figures:
a call down is fine, a call or an include up fails the "max-up: 0"
budget, a static function of the same name is not an arrow, two rooms
calling each other are a circle of two, and a room without a layer fails.
"""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                      'scripts', 'kmod-layers.py')
LAYERS = '0 low: low\n1 high: high\nmax-up: 0\nmax-circle: 1\n'
LOW_H = '#ifndef LOW_H\n#define LOW_H\nint low_get(void);\n#endif\n'
HIGH_H = '#ifndef HIGH_H\n#define HIGH_H\nint high_get(void);\n#endif\n'
LOW_C = '#include "low.h"\n\nint low_get(void)\n{\n\treturn 1;\n}\n'
HIGH_C = ('#include "low.h"\n#include "high.h"\n\n'
          'int high_get(void)\n{\n\treturn low_get();\n}\n')

CASES = [
    # (name, files, layers, want exit status, want in the output)
    ('a call down is no up arrow',
     {}, LAYERS, 0, '2 rooms, 1 arrows, 0 up, largest circle 1'),
    ('a call up fails max-up: 0',
     {'low.c': '#include "low.h"\n\nint high_get(void);\n\n'
               'int low_get(void)\n{\n\treturn high_get();\n}\n'},
     LAYERS, 1, 'FAILED: 1 up arrows, at most 0'),
    ('an include up fails max-up: 0',
     {'low.c': LOW_C.replace('#include "low.h"\n', '#include "low.h"\n#include "high.h"\n')},
     LAYERS, 1, 'up low (0) -> high (1): #include'),
    ('a static function of the same name is not an arrow',
     {'low.c': LOW_C + '\nstatic int high_get(void)\n{\n\treturn 2;\n}\n'},
     LAYERS, 0, '0 up'),
    ('two rooms calling each other are a circle of two',
     {'low.c': '#include "low.h"\n\nint high_get(void);\n\n'
               'int low_get(void)\n{\n\treturn high_get();\n}\n'},
     LAYERS.replace('max-up: 0', 'max-up: 1'), 1,
     'FAILED: a circle of 2 rooms, at most 1'),
    ('a room without a layer fails',
     {'extra.c': 'int extra_get(void)\n{\n\treturn 0;\n}\n'},
     LAYERS, 1, 'rooms without a layer in LAYERS: extra'),
]


def run_case(files, layers):
    with tempfile.TemporaryDirectory() as d:
        tree = {'low.h': LOW_H, 'high.h': HIGH_H, 'low.c': LOW_C, 'high.c': HIGH_C}
        tree.update(files)
        for name, text in tree.items():
            with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                f.write(text)
        with open(os.path.join(d, 'LAYERS'), 'w', encoding='utf-8') as f:
            f.write(layers)
        p = subprocess.run([sys.executable, SCRIPT, '-v', d], capture_output=True,
                           text=True, check=False)
        return p.returncode, p.stdout + p.stderr


def main():
    print(f'1..{len(CASES)}')
    bad = 0
    for i, (name, files, layers, want_rc, want_text) in enumerate(CASES, 1):
        rc, out = run_case(files, layers)
        ok = rc == want_rc and want_text in out
        print(f'{"ok" if ok else "not ok"} {i} - {name}')
        if not ok:
            bad += 1
            print(f'# exit {rc} (want {want_rc}), want "{want_text}" in:')
            for line in out.splitlines():
                print('#   ' + line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
