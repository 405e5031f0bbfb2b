import { h, render } from 'preact';
import { useState, useEffect, useRef, useMemo, useReducer } from 'preact/hooks';
import htm from 'htm';
import { session, acquire, stopAll, whoami, request, readLines, getJSON } from './api.js';
import {
  nodeRow, failurePhase, jobPodRow, admissionRows, numberAttempts, jobStatus, deploymentRow, pullRow, pullSummary,
  age, fmtSeconds, fmtBytes, cond,
} from './model.js';

const html = htm.bind(h);

// ---- data hooks ----

function useCollection(path, query) {
  const [, bump] = useReducer((x) => x + 1, 0);
  const ref = useRef(null);
  if (!ref.current || ref.current.key !== path + '?' + query) {
    if (ref.current) ref.current.lease.release();
    ref.current = { key: path + '?' + query, lease: acquire(path, query) };
  }
  const c = ref.current.lease.c;
  useEffect(() => c.subscribe(bump), [c]);
  useEffect(() => () => ref.current && ref.current.lease.release(), []);
  return c;
}

function useNow(ms) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const f = () => setHash(location.hash);
    window.addEventListener('hashchange', f);
    return () => window.removeEventListener('hashchange', f);
  }, []);
  return hash;
}

// Performance marks after the first paint with rows and after the full list
// (console:nodes-rows, console:nodes-synced): what bench/console_paint.py reads.
function useMarks(page, c, n) {
  const done = useRef({});
  useEffect(() => {
    const d = done.current;
    if (n > 0 && !d.rows) performance.mark(`console:${page}-rows`, { detail: n });
    if (n > 0) d.rows = true;
    if (c.synced && !d.synced) {
      d.synced = true;
      performance.mark(`console:${page}-synced`, { detail: n });
    }
  });
}

// ---- a virtualized table: only the rows in view are in the DOM ----

const ROW = 30;

function VTable({ id, columns, rows, onRow, empty }) {
  const box = useRef(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    const el = box.current;
    const measure = () => setHeight(el.clientHeight || 600);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const first = Math.max(0, Math.floor(top / ROW) - 5);
  const last = Math.min(rows.length, Math.ceil((top + height) / ROW) + 5);
  const grid = columns.map((c) => c.w || '1fr').join(' ');
  const gridNarrow = columns.filter((c) => !c.wide).map((c) => c.w || '1fr').join(' ');
  const style = `--cols: ${grid}; --cols-narrow: ${gridNarrow}`;
  const slice = [];
  for (let i = first; i < last; i++) {
    const r = rows[i];
    slice.push(html`<div class="tr ${r.cls || ''} ${onRow ? 'click' : ''}" role="row" data-key=${r.key} key=${r.key}
        style="transform: translateY(${i * ROW}px)" onClick=${onRow ? () => onRow(r) : null}>
      ${columns.map((c) => html`<div class="td ${c.wide ? 'wide' : ''} ${c.cls || ''}" role="cell" data-col=${c.k} title=${typeof r[c.k] === 'string' ? r[c.k] : ''}>${c.f ? c.f(r) : r[c.k]}</div>`)}
    </div>`);
  }
  return html`<div class="table" role="table" id=${id} style=${style}>
    <div class="tr th" role="row">${columns.map((c) => html`<div class="td ${c.wide ? 'wide' : ''}" role="columnheader">${c.t}</div>`)}</div>
    <div class="body" ref=${box} onScroll=${(e) => setTop(e.currentTarget.scrollTop)}>
      ${rows.length === 0 ? html`<div class="empty">${empty || 'Nothing to show.'}</div>` : null}
      <div class="spacer" style="height: ${rows.length * ROW}px">${slice}</div>
    </div>
  </div>`;
}

function Filter({ value, set, placeholder }) {
  return html`<input class="filter" type="search" placeholder=${placeholder || 'Filter'} value=${value} onInput=${(e) => set(e.currentTarget.value)} />`;
}

function State({ c, what }) {
  if (c.error) return html`<div class="error" role="alert">${what}: ${c.error}</div>`;
  if (!c.synced) return html`<div class="loading">Loading ${what}…</div>`;
  return null;
}

const match = (f, ...xs) => !f || xs.some((x) => x && String(x).toLowerCase().includes(f.toLowerCase()));
const byName = (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

// ---- pages ----

function Nodes() {
  const c = useCollection('/api/v1/nodes', '');
  const [f, setF] = useState('');
  const now = useNow(30000);
  const all = useMemo(() => [...c.items.values()].map(nodeRow).sort(byName), [c.version]);
  const rows = all.filter((r) => match(f, r.name, r.pool, r.status, r.runtime, r.os, r.gpu));
  for (const r of rows) r.cls = r.ready ? '' : 'bad';
  useMarks('nodes', c, all.length);
  const pools = new Map();
  let gpus = 0;
  let healthy = 0;
  let ready = 0;
  for (const r of all) {
    pools.set(r.pool || '(none)', (pools.get(r.pool || '(none)') || 0) + 1);
    gpus += r.gpus;
    healthy += r.gpuHealthy;
    if (r.ready) ready++;
  }
  const columns = [
    { k: 'name', t: 'Name', w: 'minmax(8em, 2fr)' },
    { k: 'pool', t: 'Pool', w: '1fr' },
    { k: 'status', t: 'Status', w: '1fr' },
    { k: 'problems', t: 'Conditions', w: '1fr', wide: true },
    { k: 'runtime', t: 'Runtime', w: '1.2fr', wide: true },
    { k: 'os', t: 'OS image', w: '1.5fr', wide: true },
    { k: 'kubelet', t: 'Version', w: '0.8fr', wide: true },
    { k: 'gpu', t: 'GPUs', w: '1.2fr' },
    { k: 'created', t: 'Age', w: '4em', f: (r) => age(r.created, now) },
  ];
  return html`<section>
    <div class="bar">
      <h2><span id="node-count">${all.length}</span> nodes, ${ready} ready</h2>
      <span class="chips">${[...pools].sort().map(([p, n]) => html`<span class="chip" data-pool=${p}>${p}: ${n}</span>`)}
        ${gpus ? html`<span class="chip">GPUs: ${healthy}/${gpus} healthy</span>` : null}</span>
      <${Filter} value=${f} set=${setF} placeholder="Filter nodes" />
    </div>
    <${State} c=${c} what="nodes" />
    <${VTable} id="nodes" columns=${columns} rows=${rows} empty="No nodes." />
  </section>`;
}

function Pending() {
  const c = useCollection('/api/v1/pods', 'fieldSelector=status.phase%3DPending');
  const [f, setF] = useState('');
  const now = useNow(30000);
  const all = useMemo(() => [...c.items.values()].map((p) => {
    const s = cond(p, 'PodScheduled');
    const fp = failurePhase(p);
    return {
      key: p.metadata.namespace + '/' + p.metadata.name,
      namespace: p.metadata.namespace,
      name: p.metadata.name,
      node: p.spec.nodeName || '',
      stage: fp.phase || (p.spec.nodeName ? 'starting' : 'scheduling'),
      reason: fp.reason || (s && s.reason) || '',
      message: (s && s.status === 'False' && s.message) || '',
      created: p.metadata.creationTimestamp,
    };
  }).sort(byName), [c.version]);
  const rows = all.filter((r) => match(f, r.namespace, r.name, r.reason, r.message, r.node));
  useMarks('pending', c, all.length);
  const reasons = new Map();
  for (const r of all) reasons.set(r.reason || r.stage, (reasons.get(r.reason || r.stage) || 0) + 1);
  const columns = [
    { k: 'namespace', t: 'Namespace', w: '1fr', wide: true },
    { k: 'name', t: 'Pod', w: '1.5fr' },
    { k: 'stage', t: 'Stage', w: '0.8fr', wide: true },
    { k: 'reason', t: 'Reason', w: '1fr' },
    { k: 'message', t: 'Scheduler message', w: '3fr', cls: 'msg' },
    { k: 'created', t: 'Age', w: '4em', f: (r) => age(r.created, now) },
  ];
  return html`<section>
    <div class="bar">
      <h2><span id="pending-count">${all.length}</span> pending pods</h2>
      <span class="chips">${[...reasons].sort().map(([r, n]) => html`<span class="chip">${r}: ${n}</span>`)}</span>
      <${Filter} value=${f} set=${setF} placeholder="Filter pods" />
    </div>
    <${State} c=${c} what="pods" />
    <${VTable} id="pending" columns=${columns} rows=${rows} empty="No pending pods."
      onRow=${(r) => { location.hash = `#/pod/${r.namespace}/${r.name}`; }} />
  </section>`;
}

function Jobs() {
  const c = useCollection('/apis/batch/v1/jobs', '');
  const [f, setF] = useState('');
  const now = useNow(30000);
  const all = useMemo(() => [...c.items.values()].map((j) => {
    const st = j.status || {};
    return {
      key: j.metadata.namespace + '/' + j.metadata.name,
      namespace: j.metadata.namespace,
      name: j.metadata.name,
      state: jobStatus(j),
      progress: `${st.succeeded || 0}/${j.spec.completions === undefined ? 1 : j.spec.completions}`,
      active: st.active || 0,
      failed: st.failed || 0,
      created: j.metadata.creationTimestamp,
    };
  }).sort(byName), [c.version]);
  const rows = all.filter((r) => match(f, r.namespace, r.name, r.state));
  for (const r of rows) r.cls = r.state === 'Failed' ? 'bad' : r.state === 'Complete' ? 'good' : '';
  const columns = [
    { k: 'namespace', t: 'Namespace', w: '1fr', wide: true },
    { k: 'name', t: 'Job', w: '2fr' },
    { k: 'state', t: 'Status', w: '1fr' },
    { k: 'progress', t: 'Succeeded', w: '1fr' },
    { k: 'active', t: 'Active', w: '0.7fr', wide: true },
    { k: 'failed', t: 'Failed', w: '0.7fr' },
    { k: 'created', t: 'Age', w: '4em', f: (r) => age(r.created, now) },
  ];
  return html`<section>
    <div class="bar">
      <h2>${all.length} jobs</h2>
      <${Filter} value=${f} set=${setF} placeholder="Filter jobs" />
    </div>
    <${State} c=${c} what="jobs" />
    <${VTable} id="jobs" columns=${columns} rows=${rows} empty="No jobs."
      onRow=${(r) => { location.hash = `#/jobs/${r.namespace}/${r.name}`; }} />
  </section>`;
}

function JobTimeline({ ns, name }) {
  const c = useCollection(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods`, 'labelSelector=' + encodeURIComponent('batch.kubernetes.io/job-name=' + name));
  const now = useNow(2000);
  const rows = numberAttempts([...c.items.values()].map((p) => jobPodRow(p, now)));
  // pods the API server refused to create (quota, PodSecurity, LimitRange…):
  // they never exist, the Job controller's FailedCreate events tell of them
  const ev = useCollection(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`, 'fieldSelector=' + encodeURIComponent(`involvedObject.kind=Job,involvedObject.name=${name},reason=FailedCreate`));
  const refused = admissionRows([...ev.items.values()]);
  let t0 = Infinity;
  let t1 = 0;
  for (const r of rows) {
    t0 = Math.min(t0, r.start);
    t1 = Math.max(t1, r.end === null ? now : r.end);
  }
  const span = Math.max(1, t1 - t0);
  return html`<section>
    <div class="bar"><h2><a href="#/jobs">Jobs</a> / ${ns}/${name}</h2>
      <span class="chips"><span class="chip">${rows.length} pods</span>${rows.length ? html`<span class="chip">span ${fmtSeconds(span / 1000)}</span>` : null}</span></div>
    <${State} c=${c} what="pods" />
    ${refused.length ? html`<div class="refused" id="refused">
      ${refused.map((r) => html`<div class="tl admission" key=${r.key}>
        <div class="tl-label">pod creation refused<small>${r.count > 1 ? `${r.count} times, ` : ''}last ${age(r.last, now)} ago</small></div>
        <div class="tl-msg">${r.message}</div>
        <div class="tl-out"><b class="phase">Refused</b> <span class="failure" title="failure phase">admission</span></div>
      </div>`)}
    </div>` : null}
    <div class="timeline" id="timeline">
      ${rows.length === 0 ? html`<div class="empty">No pods (yet).</div>` : null}
      ${rows.slice(0, 500).map((r) => html`<div class="tl ${r.phase}" data-key=${r.key} key=${r.key}>
        <div class="tl-label"><a href=${`#/logs/${r.namespace}/${r.name}/${r.container}`}>${r.name}</a>
          <small>${r.index !== '' ? `index ${r.index}, ` : ''}attempt ${r.attempt}${r.node ? ` on ${r.node}` : ''}</small></div>
        <div class="tl-track"><div class="tl-bar" style="left: min(${((r.start - t0) / span) * 100}%, calc(100% - 3px)); width: max(3px, ${(((r.end === null ? now : r.end) - r.start) / span) * 100}%)"></div></div>
        <div class="tl-out"><b class="phase">${r.phase}</b>${r.exit ? html` <span class="exit">${r.exit}</span>` : null}${r.failure ? html` <span class="failure" title="failure phase">${r.failure}</span>` : null}${r.restarts ? html` <span>${r.restarts} restarts</span>` : null}</div>
      </div>`)}
    </div>
  </section>`;
}

function Deployments() {
  const c = useCollection('/apis/apps/v1/deployments', '');
  const [f, setF] = useState('');
  const all = useMemo(() => [...c.items.values()].map(deploymentRow).sort(byName), [c.version]);
  const rows = all.filter((r) => match(f, r.namespace, r.name, r.state, r.reason));
  for (const r of rows) r.cls = r.state === 'Stalled' ? 'bad' : '';
  const bar = (r) => html`<span class="progress" title=${`${r.updated} updated, ${r.ready} ready, ${r.available} available of ${r.want}`}>
    <span class="p-upd" style="width: ${r.want ? (Math.min(r.updated, r.want) / r.want) * 100 : 100}%"></span>
    <span class="p-av" style="width: ${r.want ? (Math.min(r.available, r.want) / r.want) * 100 : 100}%"></span></span>
    <span class="nums">${r.available}/${r.want}</span>`;
  const columns = [
    { k: 'namespace', t: 'Namespace', w: '1fr', wide: true },
    { k: 'name', t: 'Deployment', w: '1.5fr' },
    { k: 'state', t: 'Rollout', w: '1fr' },
    { k: 'bar', t: 'Available', w: '1.5fr', f: bar },
    { k: 'updated', t: 'Up-to-date', w: '0.7fr', wide: true },
    { k: 'revision', t: 'Rev', w: '0.5fr', wide: true },
    { k: 'message', t: 'Message', w: '3fr', wide: true, cls: 'msg' },
  ];
  return html`<section>
    <div class="bar"><h2>${all.length} deployments</h2><${Filter} value=${f} set=${setF} placeholder="Filter deployments" /></div>
    <${State} c=${c} what="deployments" />
    <${VTable} id="deployments" columns=${columns} rows=${rows} empty="No deployments." />
  </section>`;
}

function Pulls() {
  const c = useCollection('/api/v1/events', 'fieldSelector=reason%3DPulled');
  const [f, setF] = useState('');
  const now = useNow(30000);
  const all = useMemo(() => [...c.items.values()].map(pullRow).filter(Boolean)
    .sort((a, b) => (a.when < b.when ? 1 : a.when > b.when ? -1 : 0)), [c.version]);
  const summary = pullSummary(all);
  const rows = all.filter((r) => match(f, r.node, r.image, r.pod));
  const sumCols = [
    { k: 'node', t: 'Node', w: '2fr' },
    { k: 'count', t: 'Pulls', w: '0.7fr' },
    { k: 'cached', t: 'Cached', w: '0.7fr' },
    { k: 'median', t: 'Median', w: '1fr', f: (r) => fmtSeconds(r.median) },
    { k: 'max', t: 'Slowest', w: '1fr', f: (r) => fmtSeconds(r.max) },
  ];
  const columns = [
    { k: 'node', t: 'Node', w: '1.2fr' },
    { k: 'image', t: 'Image', w: '2.5fr' },
    { k: 'seconds', t: 'Pull time', w: '0.8fr', f: (r) => (r.cached ? 'cached' : fmtSeconds(r.seconds)) },
    { k: 'bytes', t: 'Size', w: '0.8fr', wide: true, f: (r) => fmtBytes(r.bytes) },
    { k: 'pod', t: 'Pod', w: '1.5fr', wide: true },
    { k: 'when', t: 'Age', w: '4em', f: (r) => age(r.when, now) },
  ];
  return html`<section>
    <div class="bar"><h2>Image pulls per node</h2><${Filter} value=${f} set=${setF} placeholder="Filter pulls" /></div>
    <${State} c=${c} what="events" />
    <div class="half"><${VTable} id="pull-nodes" columns=${sumCols} rows=${summary} empty="No image pulls recorded." /></div>
    <${VTable} id="pulls" columns=${columns} rows=${rows} empty="No image pulls recorded." />
  </section>`;
}

function PodDetail({ ns, name }) {
  const [pod, setPod] = useState(null);
  const [err, setErr] = useState('');
  useEffect(() => {
    getJSON(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`).then(setPod, (e) => setErr(e.message));
  }, [ns, name]);
  if (err) return html`<div class="error" role="alert">${err}</div>`;
  if (!pod) return html`<div class="loading">Loading…</div>`;
  const fp = failurePhase(pod);
  return html`<section class="detail">
    <h2>Pod ${ns}/${name}</h2>
    <dl>
      <dt>Phase</dt><dd>${pod.status.phase}</dd>
      <dt>Node</dt><dd>${pod.spec.nodeName || '(not scheduled)'}</dd>
      ${fp.phase ? html`<dt>Stalled in</dt><dd>${fp.phase}: ${fp.reason}</dd>` : null}
      ${(pod.status.conditions || []).map((x) => html`<dt>${x.type}</dt><dd>${x.status}${x.reason ? ' ' + x.reason : ''}${x.message ? ': ' + x.message : ''}</dd>`)}
    </dl>
    <p>${pod.spec.containers.map((x) => html`<a class="button" href=${`#/logs/${ns}/${name}/${x.name}`}>Logs of ${x.name}</a> `)}</p>
  </section>`;
}

const MAX_LOG_LINES = 5000;

function Logs({ ns, pod, container }) {
  const [form, setForm] = useState({ ns: ns || 'default', pod: pod || '', container: container || '' });
  const [lines, setLines] = useState([]);
  const [state, setState] = useState('');
  const pre = useRef(null);
  useEffect(() => {
    setForm({ ns: ns || 'default', pod: pod || '', container: container || '' });
    if (!pod) return undefined;
    const abort = new AbortController();
    let buf = [];
    let timer = null;
    const flush = () => {
      timer = null;
      const add = buf;
      buf = [];
      setLines((old) => old.concat(add).slice(-MAX_LOG_LINES));
    };
    setLines([]);
    setState('following');
    const q = `follow=true&tailLines=1000${container ? '&container=' + encodeURIComponent(container) : ''}`;
    request(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(pod)}/log?${q}`, { signal: abort.signal, headers: { Accept: '*/*' } })
      .then((r) => readLines(r, (l) => {
        buf.push(l);
        if (!timer) timer = setTimeout(flush, 100);
      }))
      .then(() => {
        flush();
        setState('ended');
      }, (e) => {
        if (!abort.signal.aborted) setState('error: ' + e.message);
      });
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [ns, pod, container]);
  useEffect(() => {
    const el = pre.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [lines]);
  const go = (e) => {
    e.preventDefault();
    location.hash = `#/logs/${form.ns}/${form.pod}${form.container ? '/' + form.container : ''}`;
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });
  return html`<section>
    <form class="bar" onSubmit=${go}>
      <input aria-label="namespace" placeholder="namespace" value=${form.ns} onInput=${set('ns')} />
      <input aria-label="pod" placeholder="pod" value=${form.pod} onInput=${set('pod')} />
      <input aria-label="container" placeholder="container" value=${form.container} onInput=${set('container')} />
      <button type="submit">Follow</button>
      <span id="log-state" class="chip">${state}</span>
    </form>
    <pre class="log" id="log" ref=${pre}>${lines.join('\n')}</pre>
  </section>`;
}

// ---- shell ----

const PAGES = [
  ['nodes', 'Nodes'],
  ['pending', 'Pending'],
  ['jobs', 'Jobs'],
  ['deployments', 'Deployments'],
  ['pulls', 'Image pulls'],
  ['logs', 'Logs'],
];

function Login({ onLogin, error }) {
  const input = useRef(null);
  return html`<form class="login" id="login" onSubmit=${(e) => { e.preventDefault(); onLogin(input.current.value.trim()); }}>
    <h1>skiff</h1>
    <label for="token">Bearer token</label>
    <input id="token" ref=${input} type="password" autocomplete="off"
      placeholder="a ServiceAccount token (kubectl create token …) or a kubeconfig's token" />
    <button type="submit">Sign in</button>
    ${error ? html`<div class="error" role="alert" id="login-error">${error}</div>` : null}
  </form>`;
}

// Who signed in, kept beside the token: a reload paints at once instead of
// asking again (a 401 from any call signs out).
const USER_KEY = 'skiff-console-user';

// user: null signed out; '' signed in with a stored token whose name is being
// asked (the page loads meanwhile: no round trip before the first list).
function App() {
  const [user, setUser] = useState(session.token() ? sessionStorage.getItem(USER_KEY) || '' : null);
  const [error, setError] = useState('');
  const hash = useHash();
  const login = async (tok) => {
    session.set(tok);
    try {
      const name = (await whoami()) || '(unknown)';
      sessionStorage.setItem(USER_KEY, name);
      setUser(name);
      setError('');
    } catch (e) {
      session.clear();
      stopAll();
      setUser(null);
      setError(e.status === 401 ? 'The token was not accepted (401 Unauthorized).' : e.message);
    }
  };
  const logout = () => {
    session.clear();
    sessionStorage.removeItem(USER_KEY);
    stopAll();
    setUser(null);
  };
  useEffect(() => {
    if (session.token() && !user) login(session.token());
    const f = () => logout();
    window.addEventListener('skiff-unauthorized', f);
    return () => window.removeEventListener('skiff-unauthorized', f);
  }, []);
  if (user === null) return html`<${Login} onLogin=${login} error=${error} />`;
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const page = parts[0] || 'nodes';
  let body;
  if (page === 'jobs' && parts[2]) body = html`<${JobTimeline} ns=${parts[1]} name=${parts[2]} />`;
  else if (page === 'pod' && parts[2]) body = html`<${PodDetail} ns=${parts[1]} name=${parts[2]} />`;
  else if (page === 'pending') body = html`<${Pending} />`;
  else if (page === 'jobs') body = html`<${Jobs} />`;
  else if (page === 'deployments') body = html`<${Deployments} />`;
  else if (page === 'pulls') body = html`<${Pulls} />`;
  else if (page === 'logs') body = html`<${Logs} ns=${parts[1]} pod=${parts[2]} container=${parts[3]} />`;
  else body = html`<${Nodes} />`;
  return html`<header>
      <b class="brand">skiff</b>
      <nav>${PAGES.map(([k, t]) => html`<a href=${'#/' + k} class=${page === k || (page === 'pod' && k === 'pending') ? 'on' : ''}>${t}</a>`)}</nav>
      <span class="user" id="user">${user}</span>
      <button class="link" id="signout" onClick=${logout}>Sign out</button>
    </header>
    <main>${body}</main>`;
}

// index.html's shell goes in the same task as the first render: never a blank frame
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
