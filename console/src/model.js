// What the pages show, derived from API objects. Pure functions (tests/console/model.test.mjs).

// Node pool labels, first found wins: skiff validate's `pool`, then the clouds' own.
export const POOL_LABELS = [
  'pool',
  'node.kubernetes.io/pool',
  'cloud.google.com/gke-nodepool',
  'eks.amazonaws.com/nodegroup',
  'karpenter.sh/nodepool',
  'agentpool',
];

export function cond(obj, type) {
  const cs = (obj.status && obj.status.conditions) || [];
  return cs.find((c) => c.type === type) || null;
}

export function age(ts, now = Date.now()) {
  if (!ts) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(ts)) / 1000));
  if (s < 120) return s + 's';
  const m = Math.floor(s / 60);
  if (m < 120) return m + 'm';
  const h = Math.floor(m / 60);
  if (h < 48) return h + 'h';
  return Math.floor(h / 24) + 'd';
}

export function nodeRow(n) {
  const labels = n.metadata.labels || {};
  const st = n.status || {};
  const info = st.nodeInfo || {};
  const cap = st.capacity || {};
  const alloc = st.allocatable || {};
  const ready = cond(n, 'Ready');
  const pool = POOL_LABELS.map((l) => labels[l]).find((v) => v) || '';
  const problems = ((st.conditions || []))
    .filter((c) => c.type !== 'Ready' && c.status === 'True')
    .map((c) => c.type);
  let status = ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown';
  if (n.spec && n.spec.unschedulable) status += ',SchedulingDisabled';
  const gpus = parseInt(cap['nvidia.com/gpu'] || '0', 10);
  const gpuFree = parseInt(alloc['nvidia.com/gpu'] || '0', 10);
  let gpu = '';
  if (gpus > 0) {
    gpu = `${gpus}× ${labels['nvidia.com/gpu.product'] || 'GPU'}`;
    if (gpuFree < gpus) gpu += ` (${gpus - gpuFree} unhealthy)`;
  }
  return {
    key: n.metadata.name,
    name: n.metadata.name,
    pool,
    status,
    ready: !!ready && ready.status === 'True',
    problems: problems.join(', '),
    runtime: info.containerRuntimeVersion || '',
    os: info.osImage || '',
    kubelet: info.kubeletVersion || '',
    gpus,
    gpuHealthy: gpus ? Math.min(gpuFree, gpus) : 0,
    gpu,
    created: n.metadata.creationTimestamp,
  };
}

const PULL_REASONS = ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable'];
const SANDBOX_REASONS = ['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError', 'ContainerCannotRun'];

function terminated(cs) {
  if (!cs) return null;
  return (cs.state && cs.state.terminated) || (cs.lastState && cs.lastState.terminated) || null;
}

function waiting(cs) {
  return cs && cs.state && cs.state.waiting ? cs.state.waiting : null;
}

// Where a pod's life stopped or stalls, in the seed's words: admission,
// scheduling, sandbox, pull, init, run, termination; '' for a pod doing well.
// reason is the short cause shown beside it (OOMKilled, Error 1, ImagePullBackOff…).
export function failurePhase(p) {
  const st = p.status || {};
  const phase = st.phase || 'Pending';
  const init = st.initContainerStatuses || [];
  const main = st.containerStatuses || [];
  const all = init.concat(main);
  const sched = cond(p, 'PodScheduled');
  const target = cond(p, 'DisruptionTarget');
  if (phase === 'Failed' && st.reason && !all.length) return { phase: 'admission', reason: st.reason };
  if (target && target.status === 'True') return { phase: 'termination', reason: target.reason || 'DisruptionTarget' };
  if (st.reason === 'DeadlineExceeded' || st.reason === 'Evicted') return { phase: 'termination', reason: st.reason };
  if (sched && sched.status === 'False') return { phase: 'scheduling', reason: sched.reason || 'Unschedulable' };
  for (const cs of all) {
    const w = waiting(cs);
    if (w && PULL_REASONS.includes(w.reason)) return { phase: 'pull', reason: w.reason };
  }
  const sandbox = cond(p, 'PodReadyToStartContainers');
  for (const cs of all) {
    const w = waiting(cs);
    if (w && SANDBOX_REASONS.includes(w.reason)) return { phase: 'sandbox', reason: w.reason };
  }
  if (sandbox && sandbox.status === 'False' && phase === 'Pending' && sched && sched.status === 'True' && st.startTime && !all.some((c) => c.state && c.state.running))
    return { phase: 'sandbox', reason: sandbox.reason || 'SandboxNotReady' };
  for (const cs of init) {
    const t = terminated(cs);
    if (t && t.exitCode !== 0) return { phase: 'init', reason: exitReason(t) };
  }
  for (const cs of main) {
    const t = terminated(cs);
    if (t && (t.exitCode !== 0 || phase === 'Failed')) return { phase: 'run', reason: exitReason(t) };
  }
  if (phase === 'Failed') return { phase: 'run', reason: st.reason || 'Failed' };
  return { phase: '', reason: '' };
}

function exitReason(t) {
  const r = t.reason || 'Error';
  return r === 'OOMKilled' || r === 'Completed' ? r : `${r} ${t.exitCode}`;
}

// A Job's FailedCreate events (pods the API server refused: quota,
// PodSecurity, LimitRange…), newest first: the admission phase of pods that
// never came to exist.
export function admissionRows(events) {
  return events.map((e) => ({
    key: e.metadata.uid || e.metadata.name,
    message: e.message || '',
    count: e.count || (e.series && e.series.count) || 1,
    last: e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp,
  })).sort((a, b) => (Date.parse(b.last) || 0) - (Date.parse(a.last) || 0));
}

// One pod of a Job on the timeline: start, end (or null while running), outcome.
export function jobPodRow(p, now = Date.now()) {
  const st = p.status || {};
  const labels = p.metadata.labels || {};
  const ann = p.metadata.annotations || {};
  const start = Date.parse(p.metadata.creationTimestamp);
  let end = null;
  let exit = '';
  for (const cs of st.containerStatuses || []) {
    const t = cs.state && cs.state.terminated;
    if (t) {
      const f = Date.parse(t.finishedAt);
      if (!Number.isNaN(f) && (end === null || f > end)) end = f;
      exit = exitReason(t);
    }
  }
  if (end === null && (st.phase === 'Succeeded' || st.phase === 'Failed')) end = start;
  const restarts = (st.containerStatuses || []).reduce((n, cs) => n + (cs.restartCount || 0), 0);
  const fp = failurePhase(p);
  return {
    key: p.metadata.name,
    name: p.metadata.name,
    namespace: p.metadata.namespace,
    index: ann['batch.kubernetes.io/job-completion-index'] || labels['batch.kubernetes.io/job-completion-index'] || '',
    phase: st.phase || 'Pending',
    node: (p.spec && p.spec.nodeName) || '',
    start,
    end,
    running: end === null,
    now,
    exit: fp.reason || exit,
    failure: fp.phase,
    restarts,
    container: p.spec && p.spec.containers && p.spec.containers[0] ? p.spec.containers[0].name : '',
  };
}

// Attempts are numbered per completion index (or for the whole Job when it has
// none) in creation order.
export function numberAttempts(rows) {
  rows.sort((a, b) => a.start - b.start || a.name.localeCompare(b.name));
  const seen = new Map();
  for (const r of rows) {
    const n = (seen.get(r.index) || 0) + 1;
    seen.set(r.index, n);
    r.attempt = n;
  }
  return rows;
}

export function jobStatus(j) {
  const c = (t) => {
    const x = cond(j, t);
    return x && x.status === 'True';
  };
  if (c('Complete')) return 'Complete';
  if (c('Failed')) return 'Failed';
  if (c('FailureTarget')) return 'Failing';
  if (c('Suspended')) return 'Suspended';
  return 'Running';
}

export function deploymentRow(d) {
  const spec = d.spec || {};
  const st = d.status || {};
  const want = spec.replicas === undefined ? 1 : spec.replicas;
  const prog = cond(d, 'Progressing');
  const avail = cond(d, 'Available');
  const updated = st.updatedReplicas || 0;
  const ready = st.readyReplicas || 0;
  const available = st.availableReplicas || 0;
  const total = st.replicas || 0;
  let state = 'Progressing';
  if (prog && prog.reason === 'ProgressDeadlineExceeded') state = 'Stalled';
  else if (updated === want && total === want && available === want && (st.observedGeneration || 0) >= (d.metadata.generation || 0)) state = 'Complete';
  if (spec.paused) state = 'Paused';
  return {
    key: d.metadata.namespace + '/' + d.metadata.name,
    namespace: d.metadata.namespace,
    name: d.metadata.name,
    want,
    updated,
    ready,
    available,
    total,
    state,
    reason: prog ? prog.reason || '' : '',
    message: (prog && prog.message) || (avail && avail.message) || '',
    revision: (d.metadata.annotations || {})['deployment.kubernetes.io/revision'] || '',
    created: d.metadata.creationTimestamp,
  };
}

// The node agent's (and the kubelet's) Pulled events:
//   Successfully pulled image "IMG" in 1.2s (1.5s including waiting). Image size: N bytes.
//   Container image "IMG" already present on machine
export function parseDuration(s) {
  const re = /([0-9.]+)(h|ms|m|s|µs|us|ns)/g;
  const mult = { h: 3600, m: 60, s: 1, ms: 1e-3, µs: 1e-6, us: 1e-6, ns: 1e-9 };
  let total = 0;
  let any = false;
  let m;
  while ((m = re.exec(s))) {
    total += parseFloat(m[1]) * mult[m[2]];
    any = true;
  }
  return any ? total : null;
}

export function pullRow(e) {
  const msg = e.message || '';
  const node = (e.source && e.source.host) || e.reportingInstance || '';
  const when = e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp;
  let m = /^Successfully pulled image "([^"]*)" in (\S+)(?: \((\S+) including waiting\))?(?:\. Image size: (\d+) bytes)?/.exec(msg);
  if (m)
    return { key: e.metadata.namespace + '/' + e.metadata.name, node, image: m[1], seconds: parseDuration(m[2]), waited: m[3] ? parseDuration(m[3]) : null, bytes: m[4] ? parseInt(m[4], 10) : null, cached: false, when, pod: e.involvedObject ? e.involvedObject.name : '', namespace: e.metadata.namespace };
  m = /^Container image "([^"]*)" already present on machine/.exec(msg);
  if (m) return { key: e.metadata.namespace + '/' + e.metadata.name, node, image: m[1], seconds: null, waited: null, bytes: null, cached: true, when, pod: e.involvedObject ? e.involvedObject.name : '', namespace: e.metadata.namespace };
  return null;
}

// Per node: pulls, cache hits, median and slowest pull.
export function pullSummary(rows) {
  const by = new Map();
  for (const r of rows) {
    let s = by.get(r.node);
    if (!s) by.set(r.node, (s = { node: r.node, key: r.node, pulls: [], cached: 0 }));
    if (r.cached) s.cached++;
    else if (r.seconds !== null) s.pulls.push(r.seconds);
  }
  return [...by.values()]
    .map((s) => {
      const xs = s.pulls.sort((a, b) => a - b);
      return { key: s.key, node: s.node, count: xs.length, cached: s.cached, median: xs.length ? xs[(xs.length - 1) >> 1] : null, max: xs.length ? xs[xs.length - 1] : null };
    })
    .sort((a, b) => a.node.localeCompare(b.node));
}

export function fmtSeconds(s) {
  if (s === null || s === undefined) return '';
  if (s < 1) return Math.round(s * 1000) + 'ms';
  if (s < 120) return s.toFixed(s < 10 ? 2 : 1) + 's';
  return Math.floor(s / 60) + 'm' + Math.round(s % 60) + 's';
}

export function fmtBytes(b) {
  if (b === null || b === undefined) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (b >= 1024 && i < u.length - 1) {
    b /= 1024;
    i++;
  }
  return (i ? b.toFixed(1) : b) + ' ' + u[i];
}
