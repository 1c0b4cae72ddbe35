#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test-contrib.py - host checks of the monitoring examples in contrib/, TAP:

  - contrib/grafana/hixl-dashboard.json: a dashboard (uid, panels, each with
    a Prometheus expression), every hixl_* metric it queries present in
    tests/tools/hixlctl-stats.prom (the output of `hixlctl stats
    --prometheus` saved from the VM test latency_hixlctl, which checks that
    its families are still hixlctl's), no grouping by pid or engine;
  - that saved output passes tests/tools/prom_check.py (format, histogram
    rules) and has no pid or engine label;
  - prom_check.py itself refuses broken expositions made from it (a bucket
    that decreases, no +Inf bucket, _count not the +Inf bucket, a series
    twice, a bad escape, a counter without _total, a dashboard metric that
    is missing);
  - contrib/systemd/hixl-textfile.sh with a stand-in hixlctl: writes
    hixl.prom whole, leaves no temporary file, removes hixl.prom and fails
    when hixlctl fails;
  - the systemd units pass `systemd-analyze verify` (skipped without it).

Run from anywhere; a second or so.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(REPO, 'tests', 'tools'))
import prom_check  # noqa: E402

DASH = os.path.join(REPO, 'contrib', 'grafana', 'hixl-dashboard.json')
SAMPLE = os.path.join(REPO, 'tests', 'tools', 'hixlctl-stats.prom')
SYSTEMD = os.path.join(REPO, 'contrib', 'systemd')

results = []


def tap(ok, name, why=''):
    results.append((ok, name, why))


def skip(name, why):
    results.append((None, name, why))


def read(path):
    with open(path) as f:
        return f.read()


def test_dashboard():
    dash = json.load(open(DASH))
    ex = prom_check.parse(read(SAMPLE))
    errors, names = prom_check.check_dashboard(ex, dash)
    panels = dash.get('panels', [])
    bad = [p.get('title') for p in panels
           if not any(t.get('expr') for t in p.get('targets', []))]
    tap(dash.get('uid') and dash.get('title') and panels and not bad,
        'dashboard: uid, title, panels each with an expression', 'panels without one: %s' % bad)
    tap(not errors and len(names) >= 10,
        'dashboard: its %d metrics are in hixlctl\'s output' % len(names), '; '.join(errors))
    hist = [n for n in names if n.endswith('_bucket')]
    tap(len(hist) >= 2, 'dashboard: queries the engine and link latency histograms', str(hist))


def test_sample():
    text = read(SAMPLE)
    ex = prom_check.parse(text)
    tap(not ex.errors and ex.samples, 'saved output: %d samples pass prom_check' % len(ex.samples),
        '; '.join(ex.errors))
    types = ex.types
    tap(types.get('hixl_engine_transfer_duration_seconds') == 'histogram' and
        types.get('hixl_link_transfer_duration_seconds') == 'histogram',
        'saved output: engine and link latency histograms', str(types))
    labels = {k for _, lab, _ in ex.samples for k in lab}
    tap(not labels & {'pid', 'engine'}, 'saved output: no pid or engine label',
        str(sorted(labels)))


def mutate(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def test_parser_refuses():
    text = read(SAMPLE)
    lines = text.split('\n')
    inf = next(ln for ln in lines if ln.startswith('hixl_engine_transfer_duration_seconds_bucket')
               and 'le="+Inf"' in ln)
    first = next(ln for ln in lines if ln.startswith('hixl_engine_transfer_duration_seconds_bucket'))
    count = next(ln for ln in lines if ln.startswith('hixl_engine_transfer_duration_seconds_count'))
    name, val = inf.rsplit(' ', 1)
    cname, cval = count.rsplit(' ', 1)
    cases = {
        'a bucket that decreases': mutate(text, first, first.rsplit(' ', 1)[0] + ' 99'),
        'no +Inf bucket': mutate(text, inf + '\n', ''),
        '_count not the +Inf bucket': mutate(text, count, '%s %d' % (cname, int(cval) + 1)),
        'a series twice': mutate(text, first, first + '\n' + first),
        'a bad escape': mutate(text, 'name="', 'name="\\t', 1),
        'a counter without _total': mutate(text, '# TYPE hixl_engine_transfer_errors_total counter',
                                           '# TYPE hixl_engine_transfer_errors counter'),
        'a value that is no number': mutate(text, inf, name + ' one'),
    }
    for what, bad in cases.items():
        ex = prom_check.parse(bad)
        tap(bool(ex.errors), 'prom_check refuses %s' % what, 'no error found')
    ex = prom_check.parse(text)
    errors, _ = prom_check.check_dashboard(ex, {'panels': [{'targets': [
        {'expr': 'rate(hixl_engine_no_such_metric_total[5m])'},
        {'expr': 'sum by (pid) (hixl_engine_links)'}]}]})
    tap(len(errors) == 2, 'dashboard check refuses a missing metric and grouping by pid',
        str(errors))


def run_textfile(d, script, env):
    e = dict(os.environ, **env)
    return subprocess.run([os.path.join(SYSTEMD, 'hixl-textfile.sh'), d], env=e,
                          capture_output=True, text=True, timeout=30)


def test_textfile():
    tmp = tempfile.mkdtemp(prefix='hixl-textfile.')
    try:
        out = os.path.join(tmp, 'out')
        os.mkdir(out)
        fake = os.path.join(tmp, 'hixlctl')
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\n[ "$*" = "stats --prometheus" ] || exit 2\ncat "%s"\n' % SAMPLE)
        os.chmod(fake, 0o755)
        r = run_textfile(out, fake, {'HIXLCTL': fake})
        files = sorted(os.listdir(out))
        tap(r.returncode == 0 and files == ['hixl.prom'] and
            read(os.path.join(out, 'hixl.prom')) == read(SAMPLE),
            'hixl-textfile.sh writes hixl.prom whole, no temporary left',
            'exit %d, files %s, %s' % (r.returncode, files, r.stderr))
        mode = os.stat(os.path.join(out, 'hixl.prom')).st_mode & 0o777
        tap(mode == 0o644, 'hixl-textfile.sh: hixl.prom is mode 0644', oct(mode))
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\necho partial\nexit 1\n')
        r = run_textfile(out, fake, {'HIXLCTL': fake})
        files = sorted(os.listdir(out))
        tap(r.returncode == 1 and files == [] and 'failed' in r.stderr,
            'hixl-textfile.sh: hixlctl failing removes hixl.prom, fails, says why',
            'exit %d, files %s, %s' % (r.returncode, files, r.stderr))
        r = run_textfile(os.path.join(tmp, 'none'), fake, {'HIXLCTL': fake})
        tap(r.returncode == 1 and 'no directory' in r.stderr,
            'hixl-textfile.sh: a missing directory is named', r.stderr)
    finally:
        shutil.rmtree(tmp)


def test_units():
    sa = shutil.which('systemd-analyze')
    if not sa:
        skip('systemd units pass systemd-analyze verify', 'no systemd-analyze')
        return
    tmp = tempfile.mkdtemp(prefix='hixl-units.')
    try:
        for u in ('hixl-textfile.service', 'hixl-textfile.timer'):
            # the script where the unit would find it installed: here, the repo's
            text = read(os.path.join(SYSTEMD, u)).replace(
                '/usr/local/libexec/hixl/hixl-textfile.sh', os.path.join(SYSTEMD, 'hixl-textfile.sh'))
            with open(os.path.join(tmp, u), 'w') as f:
                f.write(text)
        r = subprocess.run([sa, 'verify', '--man=no', os.path.join(tmp, 'hixl-textfile.timer'),
                            os.path.join(tmp, 'hixl-textfile.service')],
                           capture_output=True, text=True, timeout=60)
        # verify also reports on the host's own units: only ours count
        ours = [ln for ln in (r.stdout + r.stderr).split('\n') if 'hixl-textfile' in ln]
        tap(r.returncode == 0 and not ours, 'systemd units pass systemd-analyze verify',
            'exit %d: %s' % (r.returncode, (r.stdout + r.stderr).strip()))
    finally:
        shutil.rmtree(tmp)


def main():
    for t in (test_dashboard, test_sample, test_parser_refuses, test_textfile, test_units):
        try:
            t()
        except Exception as e:  # a crash of one group is its failure, the rest still run
            tap(False, t.__name__, repr(e))
    print('TAP version 13')
    print('1..%d' % len(results))
    failed = 0
    for i, (ok, name, why) in enumerate(results, 1):
        if ok is None:
            print('ok %d - %s # SKIP %s' % (i, name, why))
        elif ok:
            print('ok %d - %s' % (i, name))
        else:
            failed += 1
            print('not ok %d - %s' % (i, name))
            for ln in str(why).split('\n'):
                print('#   %s' % ln)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
