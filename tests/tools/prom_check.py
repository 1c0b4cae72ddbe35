#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""prom_check.py - check a Prometheus text exposition (format 0.0.4), such as
`hixlctl stats --prometheus` prints, and what a Grafana dashboard asks of it.

    prom_check.py [--dashboard DASH.json] [--families SAMPLE.prom] FILE|-

Checks, each failure one line on stderr and exit status 1:
  - every line is a comment (# HELP / # TYPE / other #), blank, or a sample
    NAME{LABEL="VALUE",...} VALUE with valid metric and label names, label
    values escaped as the format says (\\\\, \\", \\n) and a float value;
  - each family has at most one # HELP and one # TYPE, the TYPE before its
    samples, and its samples in one group; a counter's name ends in _total;
  - no series (name and label set) appears twice;
  - a histogram: per label set (without le) buckets with increasing le,
    cumulative counts that never decrease, a le="+Inf" bucket equal to
    _count, and a _sum;
  - --dashboard: every hixl_* metric named in a target expression of the
    Grafana dashboard DASH.json has samples in FILE (and the dashboard
    groups by no label that changes on a restart: pid, engine);
  - --families: FILE has the same metric families as SAMPLE.prom (a saved
    output kept in the repository, so that a check of it stays honest).

No promtool on the machine (Debian's prometheus package is a server): this
follows https://prometheus.io/docs/instrumenting/exposition_formats/ and
the histogram rules of https://prometheus.io/docs/concepts/metric_types/.
"""
import json
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')
UNSTABLE_LABELS = ('pid', 'engine')


class Exposition:
    """The parsed exposition: families (name -> type), samples."""

    def __init__(self):
        self.types = {}       # family -> type
        self.helps = set()
        self.samples = []     # (name, labels dict, value)
        self.errors = []

    def family_of(self, name):
        """The family a sample name belongs to (histogram and summary suffixes)."""
        for suffix in ('_bucket', '_sum', '_count'):
            if name.endswith(suffix):
                base = name[: -len(suffix)]
                if self.types.get(base) in ('histogram', 'summary'):
                    return base
        return name


def parse_labels(text, pos, lineno, errors):
    """Labels from text[pos] == '{' to the matching '}': (dict, next pos) or None."""
    labels = {}
    pos += 1
    while True:
        if text[pos:pos + 1] == '}':
            return labels, pos + 1
        m = LABEL.match(text, pos)
        if not m:
            errors.append('line %d: bad label name at column %d' % (lineno, pos + 1))
            return None
        lname = m.group(0)
        pos = m.end()
        if text[pos:pos + 2] != '="':
            errors.append('line %d: label %s: no ="' % (lineno, lname))
            return None
        pos += 2
        val = []
        while True:
            if pos >= len(text):
                errors.append('line %d: label %s: unterminated value' % (lineno, lname))
                return None
            ch = text[pos]
            if ch == '\\':
                nxt = text[pos + 1:pos + 2]
                if nxt not in ('\\', '"', 'n'):
                    errors.append('line %d: label %s: bad escape \\%s' % (lineno, lname, nxt))
                    return None
                val.append('\n' if nxt == 'n' else nxt)
                pos += 2
            elif ch == '"':
                pos += 1
                break
            else:
                val.append(ch)
                pos += 1
        if lname in labels:
            errors.append('line %d: label %s twice' % (lineno, lname))
            return None
        labels[lname] = ''.join(val)
        if text[pos:pos + 1] == ',':
            pos += 1
        elif text[pos:pos + 1] != '}':
            errors.append('line %d: after label %s: expected , or }' % (lineno, lname))
            return None


def parse(text):
    """Parse and check an exposition; Exposition with .errors filled."""
    ex = Exposition()
    seen_series = set()
    family_done = set()     # families whose sample group has ended
    current = None
    for lineno, line in enumerate(text.split('\n'), 1):
        if not line.strip():
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ('HELP', 'TYPE'):
                fam = parts[2]
                if not NAME.fullmatch(fam):
                    ex.errors.append('line %d: bad metric name %r' % (lineno, fam))
                    continue
                if parts[1] == 'HELP':
                    if fam in ex.helps:
                        ex.errors.append('line %d: second # HELP for %s' % (lineno, fam))
                    ex.helps.add(fam)
                else:
                    typ = parts[3].strip() if len(parts) > 3 else ''
                    if typ not in TYPES:
                        ex.errors.append('line %d: %s: unknown type %r' % (lineno, fam, typ))
                    if fam in ex.types:
                        ex.errors.append('line %d: second # TYPE for %s' % (lineno, fam))
                    if any(ex.family_of(s[0]) == fam for s in ex.samples):
                        ex.errors.append('line %d: # TYPE %s after its samples' % (lineno, fam))
                    ex.types[fam] = typ
                    if typ == 'counter' and not fam.endswith('_total'):
                        ex.errors.append('line %d: counter %s does not end in _total' %
                                         (lineno, fam))
            continue
        m = NAME.match(line)
        if not m:
            ex.errors.append('line %d: not a sample: %r' % (lineno, line))
            continue
        name = m.group(0)
        pos = m.end()
        labels = {}
        if line[pos:pos + 1] == '{':
            got = parse_labels(line, pos, lineno, ex.errors)
            if got is None:
                continue
            labels, pos = got
        if line[pos:pos + 1] != ' ':
            ex.errors.append('line %d: no space before the value' % lineno)
            continue
        fields = line[pos + 1:].split(' ')
        if len(fields) > 2:
            ex.errors.append('line %d: trailing text after the value' % lineno)
            continue
        try:
            value = float(fields[0])
        except ValueError:
            ex.errors.append('line %d: value %r is not a float' % (lineno, fields[0]))
            continue
        fam = ex.family_of(name)
        if fam != current:
            if fam in family_done:
                ex.errors.append('line %d: samples of %s not in one group' % (lineno, fam))
            if current is not None:
                family_done.add(current)
            current = fam
        key = (name, tuple(sorted(labels.items())))
        if key in seen_series:
            ex.errors.append('line %d: series %s%s twice' % (lineno, name, dict(labels)))
        seen_series.add(key)
        ex.samples.append((name, labels, value))
    check_histograms(ex)
    return ex


def le_value(le):
    return math.inf if le == '+Inf' else float(le)


def check_histograms(ex):
    """The histogram rules, per label set without le."""
    for fam, typ in ex.types.items():
        if typ != 'histogram':
            continue
        series = {}
        for name, labels, value in ex.samples:
            if ex.family_of(name) != fam:
                continue
            rest = tuple(sorted((k, v) for k, v in labels.items() if k != 'le'))
            s = series.setdefault(rest, {'buckets': [], 'sum': None, 'count': None})
            if name == fam + '_bucket':
                if 'le' not in labels:
                    ex.errors.append('%s%s: a bucket without le' % (fam, dict(rest)))
                    continue
                try:
                    s['buckets'].append((le_value(labels['le']), value))
                except ValueError:
                    ex.errors.append('%s%s: le %r is not a float' % (fam, dict(rest), labels['le']))
            elif name == fam + '_sum':
                s['sum'] = value
            elif name == fam + '_count':
                s['count'] = value
            else:
                ex.errors.append('%s: sample %s is not _bucket, _sum or _count' % (fam, name))
        for rest, s in series.items():
            where = '%s%s' % (fam, dict(rest))
            les = [b[0] for b in s['buckets']]
            if les != sorted(les) or len(set(les)) != len(les):
                ex.errors.append('%s: le not increasing' % where)
            counts = [b[1] for b in s['buckets']]
            if any(b < a for a, b in zip(counts, counts[1:])):
                ex.errors.append('%s: bucket counts decrease (not cumulative)' % where)
            if not les or les[-1] != math.inf:
                ex.errors.append('%s: no le="+Inf" bucket' % where)
            elif s['count'] is None or s['count'] != counts[-1]:
                ex.errors.append('%s: _count %s is not the +Inf bucket %s' %
                                 (where, s['count'], counts[-1]))
            if s['sum'] is None:
                ex.errors.append('%s: no _sum' % where)


def dashboard_metrics(dash):
    """(metric names, exprs) of every target expression of a Grafana dashboard."""
    exprs = []

    def walk(panels):
        for p in panels:
            for t in p.get('targets', []):
                if t.get('expr'):
                    exprs.append(t['expr'])
            walk(p.get('panels', []))     # rows
    walk(dash.get('panels', []))
    for v in dash.get('templating', {}).get('list', []):
        q = v.get('query')
        if isinstance(q, dict):
            q = q.get('query')
        if v.get('type') == 'query' and isinstance(q, str):
            exprs.append(q)
    names = set()
    for e in exprs:
        names.update(re.findall(r'\bhixl_[a-zA-Z0-9_:]*', e))
    return names, exprs


def check_dashboard(ex, dash):
    """Errors of a dashboard against an exposition."""
    errors = []
    names, exprs = dashboard_metrics(dash)
    if not exprs:
        errors.append('dashboard: no target expressions')
    have = {s[0] for s in ex.samples}
    for n in sorted(names):
        if n not in have:
            errors.append('dashboard: queries %s, which the exposition does not have' % n)
    for e in exprs:
        for grp in re.findall(r'\b(?:by|without)\s*\(([^)]*)\)', e):
            for lab in grp.split(','):
                if lab.strip() in UNSTABLE_LABELS:
                    errors.append('dashboard: groups by %s (a new series per restart): %s' %
                                  (lab.strip(), e))
    return errors, names


def families(ex):
    return set(ex.types)


def main(argv):
    dash = sample = None
    args = []
    it = iter(argv)
    for a in it:
        if a == '--dashboard':
            dash = next(it, None)
        elif a == '--families':
            sample = next(it, None)
        else:
            args.append(a)
    if len(args) != 1 or (dash is None and '--dashboard' in argv) or \
            (sample is None and '--families' in argv):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    text = sys.stdin.read() if args[0] == '-' else open(args[0]).read()
    ex = parse(text)
    errors = list(ex.errors)
    if not ex.samples:
        errors.append('no samples')
    if dash:
        with open(dash) as f:
            d_errors, names = check_dashboard(ex, json.load(f))
        errors += d_errors
    if sample:
        with open(sample) as f:
            want = families(parse(f.read()))
        got = families(ex)
        for fam in sorted(want - got):
            errors.append('family %s of %s is missing' % (fam, sample))
        for fam in sorted(got - want):
            errors.append('family %s is not in %s (save the new output there)' % (fam, sample))
    for e in errors:
        print('prom_check: %s' % e, file=sys.stderr)
    if errors:
        return 1
    print('prom_check: %d samples, %d families%s' %
          (len(ex.samples), len(ex.types),
           ', the dashboard\'s %d metrics present' % len(names) if dash else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
