#!/usr/bin/env python3
"""Kubernetes protobuf schema tables for src/api/protobuf.c, in two stages.

  extract --api DIR --apimachinery DIR --ref TAG -o TSV
      Reads k8s.io/api and k8s.io/apimachinery (git repositories, bare or not)
      at release tag TAG (the two share release tags): the generated.proto
      files give each message's field numbers, labels and types, the Go types'
      struct tags give each field's JSON name, whether it is a pointer, has
      omitempty, or is inlined (json:""). Writes one line per field, sorted.
      Needs the upstream repositories; run when the pinned tag changes.

  render TSV -o C
      Turns that description into src/api/protobuf-types.c. Needs nothing but
      the TSV, so CI renders it again and compares with the committed file.

`make generate` runs render (and extract too when K8S_API_REPO and
APIMACHINERY_REPO name the upstream repositories); `make check-generated`
fails when the committed output differs from what the generator makes."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PKGS = [('api', g) for g in ['core/v1', 'apps/v1', 'batch/v1', 'policy/v1', 'scheduling/v1', 'coordination/v1',
                             'storage/v1', 'node/v1', 'events/v1', 'networking/v1', 'rbac/v1', 'autoscaling/v1',
                             'autoscaling/v2', 'discovery/v1', 'authentication/v1',
                             'authorization/v1', 'certificates/v1', 'admissionregistration/v1']] + \
       [('apimachinery', g) for g in ['pkg/api/resource', 'pkg/apis/meta/v1', 'pkg/runtime', 'pkg/util/intstr']]
REPO_NAME = {'api': 'k8s.io/api', 'apimachinery': 'k8s.io/apimachinery'}
PROTO_SCALARS = {'double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32',
                 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes'}
COLUMNS = ['message', 'number', 'name', 'label', 'type', 'json', 'go']
SCRIPT = 'scripts/gen-protobuf-types.py'


def fail(msg):
    sys.exit('gen-protobuf-types: ' + msg)


# ---- extract -------------------------------------------------------------

def git(repo, *args):
    r = subprocess.run(['git', '-C', repo] + list(args), capture_output=True, text=True)
    if r.returncode:
        fail('git -C %s %s: %s' % (repo, ' '.join(args), r.stderr.strip()))
    return r.stdout


def go_files(repo, ref, d):
    out = git(repo, 'ls-tree', '--name-only', ref, d + '/')
    return [l for l in out.split('\n') if l.endswith('.go') and not l.endswith('_test.go')
            and 'generated' not in l and 'zz_' not in l]


def parse_proto(text, where):
    """-> (package, {message: [{label, type, name, num}]}); type is a scalar
    name or a full message name."""
    pkg = re.search(r'^package ([\w.]+);', text, re.M).group(1)
    msgs = {}
    cur = None
    for line in text.split('\n'):
        s = line.strip()
        if s.startswith('//'):
            continue
        m = re.match(r'^message (\w+) \{', line)
        if m:
            cur = []
            msgs[m.group(1)] = cur
            continue
        if line.startswith('}'):
            cur = None
            continue
        if cur is None:
            continue
        m = re.match(r'^(optional|repeated|required) ([\w.]+) (\w+) = (\d+)', s)
        if m:
            label, t, name, num = m.groups()
        else:
            m = re.match(r'^map<string, ([\w.]+)> (\w+) = (\d+)', s)
            if not m:
                if s and not s.startswith(('option', 'reserved')):
                    fail('%s: unparsed proto line: %s' % (where, s))
                continue
            label = 'map'
            t, name, num = m.groups()
        if t not in PROTO_SCALARS:
            t = t[1:] if t.startswith('.') else pkg + '.' + t
        cur.append(dict(label=label, type=t, name=name, num=int(num)))
    return pkg, msgs


def parse_go(text):
    """-> {struct: {protobuf field number: (json name, 'pointer,omitempty,inline' subset)}}"""
    structs = {}
    cur = None
    for line in text.split('\n'):
        m = re.match(r'^type (\w+) struct \{', line)
        if m:
            cur = {}
            structs[m.group(1)] = cur
            continue
        if line.startswith('}'):
            cur = None
            continue
        if cur is None or 'protobuf:"' not in line or '`' not in line or line.strip().startswith('//'):
            continue
        code = line.split('`')[0].split('//')[0].split()
        if not code:
            continue
        jm = re.search(r'json:"([^"]*)"', line)
        parts = re.search(r'protobuf:"([^"]*)"', line).group(1).split(',')
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        opts = jm.group(1).split(',') if jm else ['']
        flags = []
        if code[-1].startswith('*'):
            flags.append('pointer')
        if 'omitempty' in opts[1:]:
            flags.append('omitempty')
        if jm is not None and opts[0] == '':
            flags.append('inline')
        cur[int(parts[1])] = (opts[0], ','.join(flags) or '-')
    return structs


def extract(args):
    repos = {'api': args.api, 'apimachinery': args.apimachinery}
    for k, r in repos.items():
        if not os.path.isdir(r):
            fail('--%s %s: not a directory (a git repository of %s)' % (k, r or '""', REPO_NAME[k]))
    commits = {k: git(r, 'rev-parse', args.ref + '^{commit}').strip() for k, r in repos.items()}
    rows = []
    for which, d in PKGS:
        repo = repos[which]
        where = '%s %s:%s/generated.proto' % (REPO_NAME[which], args.ref, d)
        pkg, msgs = parse_proto(git(repo, 'show', args.ref + ':' + d + '/generated.proto'), where)
        structs = {}
        for f in go_files(repo, args.ref, d):
            structs.update(parse_go(git(repo, 'show', args.ref + ':' + f)))
        for name, fields in msgs.items():
            full = pkg + '.' + name
            if not fields:
                rows.append([full, '-', '-', '-', '-', '-', '-'])
            gofields = structs.get(name, {})
            for f in fields:
                json, go = gofields.get(f['num'], ('', '?'))
                rows.append([full, str(f['num']), f['name'], f['label'], f['type'], json, go])
    rows.sort(key=lambda r: (r[0], -1 if r[1] == '-' else int(r[1])))
    out = ['# Code generated by %s extract --ref %s; DO NOT EDIT.' % (SCRIPT, args.ref)]
    out += ['# %s %s %s' % (REPO_NAME[k], args.ref, commits[k]) for k in ('api', 'apimachinery')]
    out.append('# One line per protobuf field: generated.proto gives number, name, label (optional, repeated,')
    out.append('# required, map<string, type>) and type; the Go struct tag gives json (the name; "" when')
    out.append('# inlined) and go (pointer, omitempty, inline; "-" for none, "?" when no Go field has the')
    out.append('# number). A message without fields has "-" in every column after its name.')
    out.append('\t'.join(COLUMNS))
    out += ['\t'.join(r) for r in rows]
    write(args.o, '\n'.join(out) + '\n')


# ---- render --------------------------------------------------------------

# Messages protobuf.c turns into JSON its own way, not as one key per field.
SPECIAL = {
    'k8s.io.apimachinery.pkg.api.resource.Quantity': 'QUANTITY',
    'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'QUANTITY',
    'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'TIME',
    'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MICROTIME',
    'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'DURATION',
    'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'FIELDSV1',
    'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'INTORSTRING',
    'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RAWEXT',
    'k8s.io.apimachinery.pkg.apis.meta.v1.Verbs': 'ITEMS',
    'k8s.io.api.authentication.v1.ExtraValue': 'ITEMS',
    'k8s.io.api.authorization.v1.ExtraValue': 'ITEMS',
    'k8s.io.api.certificates.v1.ExtraValue': 'ITEMS',
}
# Proto scalar types the decoder reads (protobuf-int.h's wire kinds).
KIND = {'string': 'STRING', 'bytes': 'BYTES', 'bool': 'BOOL', 'int32': 'INT32', 'int64': 'INT64'}

HEADER = '''/* Code generated by %(script)s from k8s.io/api %(ref)s; DO NOT EDIT. */
/* Kubernetes protobuf schema tables: per message, field number -> JSON name
 * and wire kind. Rendered from %(tsv)s,
 * the fields of the upstream generated.proto files (k8s.io/api and
 * k8s.io/apimachinery %(ref)s) joined with the Go types' json tags (JSON
 * name, pointer or omitempty, inline), so that the decoded JSON is what
 * encoding/json makes of the same Go object. Messages are sorted by name and
 * fields by number (both binary-searched); message references are indices
 * into sk__pb_messages, named in the comment beside them. Fields not listed
 * here are skipped on decode.
 *
 * Regenerate with make generate (docs/DEVELOPING.md). */
#include "api/protobuf-int.h"

#define R SK__PB_REPEATED
#define M SK__PB_MAP
#define K SK__PB_KEEPZERO
#define I SK__PB_INLINE
'''


def read_tsv(path):
    try:
        with open(path, encoding='utf-8') as fh:
            lines = fh.read().split('\n')
    except OSError as e:
        fail('%s: %s' % (path, e.strerror))
    m = re.match(r'# Code generated by \S+ extract --ref (\S+); DO NOT EDIT\.$', lines[0])
    if not m:
        fail('%s: first line does not name the extracted tag' % path)
    body = [l for l in lines if l and not l.startswith('#')]
    if not body or body[0].split('\t') != COLUMNS:
        fail('%s: missing the column line' % path)
    messages = {}
    for n, l in enumerate(body[1:], 2):
        r = l.split('\t')
        if len(r) != len(COLUMNS):
            fail('%s: line %d: %d columns, want %d' % (path, n, len(r), len(COLUMNS)))
        row = dict(zip(COLUMNS, r))
        fields = messages.setdefault(row['message'], [])
        if row['number'] != '-':
            fields.append(row)
    return m.group(1), messages


def field_entry(msg, f, index):
    go = [] if f['go'] in ('-', '?') else f['go'].split(',')
    if f['go'] == '?':  # no Go field: the proto name, as if omitempty
        go, json = ['omitempty'], f['name']
    else:
        json = '' if 'inline' in go else f['json']
    flags = []
    if f['label'] == 'repeated':
        flags.append('R')
    if f['label'] == 'map':
        flags.append('M')
    if 'pointer' in go or 'omitempty' not in go:
        flags.append('K')
    if 'inline' in go:
        flags.append('I')
    t = f['type']
    if t in KIND:
        kind, ref, cm = KIND[t], -1, ''
    elif t in PROTO_SCALARS:
        fail('%s.%s: proto type %s has no wire kind in protobuf-int.h' % (msg, f['name'], t))
    elif t not in index:
        fail('%s.%s: unknown message %s' % (msg, f['name'], t))
    else:
        kind, ref, cm = 'MSG', index[t], ' /* %s */' % t.split('.')[-1]
    return '\t{%s, "%s", SK__PB_%s, %s, %d},%s' % (f['number'], json, kind, '|'.join(flags) or '0', ref, cm)


def render(args):
    ref, messages = read_tsv(args.tsv)
    names = sorted(messages)
    index = {n: i for i, n in enumerate(names)}
    o = [HEADER % dict(script=SCRIPT, ref=ref, tsv='scripts/gen/' + os.path.basename(args.tsv))]
    for i, n in enumerate(names):
        fs = sorted(messages[n], key=lambda f: int(f['number']))
        if not fs:
            continue
        o.append('static const sk__pb_field f%d[] = { /* %s */' % (i, n))
        o += [field_entry(n, f, index) for f in fs]
        o.append('};')
    o.append('')
    o.append('const sk__pb_message sk__pb_messages[] = {')
    for i, n in enumerate(names):
        nf = len(messages[n])
        o.append('\t{"%s", SK__PB_%s, %s, %d}, /* %d */' % (n, SPECIAL.get(n, 'PLAIN'), 'f%d' % i if nf else 'NULL',
                                                           nf, i))
    o.append('};')
    o.append('')
    o.append('const size_t sk__pb_nmessages = sizeof(sk__pb_messages) / sizeof(sk__pb_messages[0]);')
    write(args.o, '\n'.join(o) + '\n')


def write(path, text):
    """Writes through a temporary file beside path, so a failed run leaves the old file."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.gen-')
    with os.fdopen(fd, 'w', encoding='utf-8') as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    e = sub.add_parser('extract', help='upstream git repositories at a tag -> field description (TSV)')
    e.add_argument('--api', required=True, metavar='DIR', help='k8s.io/api git repository')
    e.add_argument('--apimachinery', required=True, metavar='DIR', help='k8s.io/apimachinery git repository')
    e.add_argument('--ref', required=True, metavar='TAG', help='release tag, e.g. v0.32.13')
    e.add_argument('-o', required=True, metavar='TSV', help='output file')
    r = sub.add_parser('render', help='field description (TSV) -> C tables')
    r.add_argument('tsv', metavar='TSV')
    r.add_argument('-o', required=True, metavar='C', help='output file')
    args = p.parse_args()
    (extract if args.cmd == 'extract' else render)(args)


if __name__ == '__main__':
    main()
