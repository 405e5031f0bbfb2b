#!/usr/bin/env python3
"""Generates src/api/protobuf-types.c from upstream generated.proto + types.go:
    K8S_API_REPO=<k8s.io/api git dir> APIMACHINERY_REPO=<k8s.io/apimachinery git dir> \\
        python3 src/api/protobuf-types-gen.py > src/api/protobuf-types.c
reading tag REF (k8s.io/api and apimachinery share release tags).

The proto files give field numbers and wire types; the Go types give the JSON
name, whether the field is a pointer (a present zero value is kept) or an
omitempty value (a zero value is dropped, as encoding/json does), and whether
the field is inlined into its parent (json:"")."""
import re, subprocess, sys, os

API = os.environ.get('K8S_API_REPO', '/work/.mirror/kubernetes+api/repo')
AM = os.environ.get('APIMACHINERY_REPO', '/work/.mirror/kubernetes+apimachinery/repo')
REF = 'v0.35.7'
PKGS = [(API, g) for g in ['core/v1', 'apps/v1', 'batch/v1', 'policy/v1', 'scheduling/v1', 'coordination/v1',
                           'storage/v1', 'node/v1', 'events/v1', 'networking/v1', 'rbac/v1', 'autoscaling/v1',
                           'autoscaling/v2', 'discovery/v1', 'authentication/v1',
                           'authorization/v1', 'certificates/v1']] + \
       [(AM, g) for g in ['pkg/api/resource', 'pkg/apis/meta/v1', 'pkg/runtime', 'pkg/util/intstr']]

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
SCALAR = {'string': 'STRING', 'bytes': 'BYTES', 'bool': 'BOOL', 'int32': 'INT32', 'int64': 'INT64'}


def git_show(repo, path):
    return subprocess.run(['git', '-C', repo, 'show', REF + ':' + path], capture_output=True, text=True,
                          check=True).stdout


def git_ls(repo, d):
    out = subprocess.run(['git', '-C', repo, 'ls-tree', '--name-only', REF, d + '/'], capture_output=True,
                         text=True, check=True).stdout
    return [l for l in out.split('\n') if l.endswith('.go') and not l.endswith('_test.go')
            and 'generated' not in l and 'zz_' not in l]


def parse_proto(text):
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
            cur.append(dict(label=m.group(1), type=m.group(2), name=m.group(3), num=int(m.group(4))))
            continue
        m = re.match(r'^map<string, ([\w.]+)> (\w+) = (\d+)', s)
        if m:
            cur.append(dict(label='map', type=m.group(1), name=m.group(2), num=int(m.group(3))))
            continue
        if s and not s.startswith(('option', 'reserved')):
            sys.exit('unparsed proto line: ' + s)
    return pkg, msgs


def parse_go(text):
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
        if cur is None or 'protobuf:"' not in line:
            continue
        if '`' not in line or line.strip().startswith('//'):
            continue
        code = line.split('`')[0].split('//')[0].split()
        if not code:
            continue
        jm = re.search(r'json:"([^"]*)"', line)
        pm = re.search(r'protobuf:"([^"]*)"', line)
        pname = re.search(r'name=(\w+)', pm.group(1))
        gotype = code[-1]
        opts = jm.group(1).split(',') if jm else ['']
        info = dict(json=opts[0], omitempty='omitempty' in opts[1:], pointer=gotype.startswith('*'),
                    inline=jm is not None and opts[0] == '')
        key = pname.group(1) if pname else None
        parts = pm.group(1).split(',')
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        num = int(parts[1])
        cur[num] = info
    return structs


messages = {}
for repo, d in PKGS:
    pkg, msgs = parse_proto(git_show(repo, d + '/generated.proto'))
    structs = {}
    for f in git_ls(repo, d):
        structs.update(parse_go(git_show(repo, f)))
    for name, fields in msgs.items():
        full = pkg + '.' + name
        goinfo = structs.get(name, {})
        out = []
        for f in fields:
            gi = goinfo.get(f['num'])
            if gi is None:
                if full not in SPECIAL:
                    print('no go info: %s.%s' % (full, f['name']), file=sys.stderr)
                gi = dict(json=f['name'], omitempty=True, pointer=False, inline=False)
            elif not gi['inline'] and gi['json'] != f['name']:
                print('json name differs: %s.%s -> %s' % (full, f['name'], gi['json']), file=sys.stderr)
            t = f['type']
            if t in SCALAR:
                kind, ref = SCALAR[t], None
            else:
                kind = 'MSG'
                ref = t[1:] if t.startswith('.') else pkg + '.' + t
            flags = []
            if f['label'] == 'repeated':
                flags.append('REPEATED')
            if f['label'] == 'map':
                flags.append('MAP')
            if gi['pointer'] or not gi['omitempty']:
                flags.append('KEEPZERO')
            if gi['inline']:
                flags.append('INLINE')
            out.append(dict(num=f['num'], json=gi['json'] if not gi['inline'] else '', kind=kind, ref=ref,
                            flags=flags))
        out.sort(key=lambda x: x['num'])
        messages[full] = out

names = sorted(messages)
index = {n: i for i, n in enumerate(names)}
for n in names:
    for f in messages[n]:
        if f['ref'] and f['ref'] not in index:
            sys.exit('unknown message %s (in %s)' % (f['ref'], n))

o = []
o.append('''/* Kubernetes protobuf schema tables: per message, field number -> JSON name
 * and wire kind. Generated from the upstream generated.proto files
 * (k8s.io/api and k8s.io/apimachinery) joined with the Go types' json tags
 * (JSON name, pointer or omitempty, inline), so that the decoded JSON is what
 * encoding/json makes of the same Go object. Messages are sorted by name and
 * fields by number (both binary-searched); message references are indices
 * into sk__pb_messages, named in the comment beside them.
 *
 * Regenerate with src/api/protobuf-types-gen.py when upstream adds fields
 * (tables from k8s.io/api %s); fields not listed here are skipped on decode. */
#include "api/protobuf-int.h"

#define R SK__PB_REPEATED
#define M SK__PB_MAP
#define K SK__PB_KEEPZERO
#define I SK__PB_INLINE
''' % REF)
for i, n in enumerate(names):
    fs = messages[n]
    if not fs:
        continue
    o.append('static const sk__pb_field f%d[] = { /* %s */' % (i, n))
    for f in fs:
        fl = '|'.join({'REPEATED': 'R', 'MAP': 'M', 'KEEPZERO': 'K', 'INLINE': 'I'}[x] for x in f['flags']) or '0'
        ref = index[f['ref']] if f['ref'] else -1
        cm = ' /* %s */' % f['ref'].split('.')[-1] if f['ref'] else ''
        o.append('\t{%d, "%s", SK__PB_%s, %s, %d},%s' % (f['num'], f['json'], f['kind'], fl, ref, cm))
    o.append('};')
o.append('')
o.append('const sk__pb_message sk__pb_messages[] = {')
for i, n in enumerate(names):
    fs = messages[n]
    sp = SPECIAL.get(n, 'PLAIN')
    o.append('\t{"%s", SK__PB_%s, %s, %d}, /* %d */' % (n, sp, 'f%d' % i if fs else 'NULL', len(fs), i))
o.append('};')
o.append('')
o.append('const size_t sk__pb_nmessages = sizeof(sk__pb_messages) / sizeof(sk__pb_messages[0]);')
print('\n'.join(o))
