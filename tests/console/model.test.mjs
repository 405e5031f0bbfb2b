// The console's derivations from API objects (console/src/model.js), under
// node's own test runner: `node --test tests/console/` (run by make unit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  nodeRow, failurePhase, jobPodRow, admissionRows, numberAttempts, deploymentRow, pullRow, pullSummary, parseDuration, fmtSeconds, fmtBytes,
} from '../../console/src/model.js';

const pod = (status, spec = {}, meta = {}) => ({
  metadata: { name: meta.name || 'p', namespace: 'ns', creationTimestamp: meta.created || '2026-01-01T00:00:00Z', labels: {}, annotations: meta.annotations || {} },
  spec: { containers: [{ name: 'c' }], ...spec },
  status,
});
const c = (type, s, reason, message) => ({ type, status: s, reason, message });

test('node rows: pool, status, problems, GPUs', () => {
  const r = nodeRow({
    metadata: { name: 'n1', labels: { 'cloud.google.com/gke-nodepool': 'a100', 'nvidia.com/gpu.product': 'A100' } },
    spec: { unschedulable: true },
    status: {
      capacity: { 'nvidia.com/gpu': '8' }, allocatable: { 'nvidia.com/gpu': '6' },
      nodeInfo: { containerRuntimeVersion: 'skiff://1', osImage: 'Debian', kubeletVersion: 'v1.32.0' },
      conditions: [c('Ready', 'False'), c('DiskPressure', 'True'), c('MemoryPressure', 'False')],
    },
  });
  assert.equal(r.pool, 'a100');
  assert.equal(r.status, 'NotReady,SchedulingDisabled');
  assert.equal(r.problems, 'DiskPressure');
  assert.equal(r.gpu, '8× A100 (2 unhealthy)');
  assert.equal(r.gpuHealthy, 6);
  const plain = nodeRow({ metadata: { name: 'n2', labels: { pool: 'cpu', 'karpenter.sh/nodepool': 'x' } }, status: {} });
  assert.equal(plain.pool, 'cpu');
  assert.equal(plain.status, 'Unknown');
  assert.equal(plain.gpu, '');
});

test('failure phases', () => {
  assert.deepEqual(failurePhase(pod({ phase: 'Failed', reason: 'OutOfnvidia.com/gpu' })), { phase: 'admission', reason: 'OutOfnvidia.com/gpu' });
  assert.deepEqual(failurePhase(pod({ phase: 'Pending', conditions: [c('PodScheduled', 'False', 'Unschedulable')] })), { phase: 'scheduling', reason: 'Unschedulable' });
  assert.deepEqual(failurePhase(pod({ phase: 'Pending', conditions: [c('PodScheduled', 'True')], containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ImagePullBackOff' } } }] })), { phase: 'pull', reason: 'ImagePullBackOff' });
  assert.deepEqual(failurePhase(pod({ phase: 'Pending', startTime: 'x', conditions: [c('PodScheduled', 'True'), c('PodReadyToStartContainers', 'False')] })), { phase: 'sandbox', reason: 'SandboxNotReady' });
  assert.deepEqual(failurePhase(pod({ phase: 'Pending', conditions: [c('PodScheduled', 'True')], containerStatuses: [{ name: 'c', state: { waiting: { reason: 'CreateContainerError' } } }] })), { phase: 'sandbox', reason: 'CreateContainerError' });
  assert.deepEqual(failurePhase(pod({ phase: 'Failed', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 2, reason: 'Error' } } }], containerStatuses: [{ name: 'c', state: { waiting: { reason: 'PodInitializing' } } }] })), { phase: 'init', reason: 'Error 2' });
  assert.deepEqual(failurePhase(pod({ phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }] })), { phase: 'run', reason: 'OOMKilled' });
  assert.deepEqual(failurePhase(pod({ phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] })), { phase: 'run', reason: 'Error 1' });
  assert.deepEqual(failurePhase(pod({ phase: 'Failed', reason: 'DeadlineExceeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 143, reason: 'Error' } } }] })), { phase: 'termination', reason: 'DeadlineExceeded' });
  assert.deepEqual(failurePhase(pod({ phase: 'Failed', conditions: [c('DisruptionTarget', 'True', 'PreemptionByScheduler')], containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 137, reason: 'Error' } } }] })), { phase: 'termination', reason: 'PreemptionByScheduler' });
  assert.deepEqual(failurePhase(pod({ phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })), { phase: '', reason: '' });
});

test('job attempts per completion index in creation order', () => {
  const ix = (name, i, created, status) => jobPodRow(pod(status, {}, { name, created, annotations: { 'batch.kubernetes.io/job-completion-index': i } }), Date.parse('2026-01-01T01:00:00Z'));
  const rows = numberAttempts([
    ix('b', '0', '2026-01-01T00:05:00Z', { phase: 'Running' }),
    ix('a', '0', '2026-01-01T00:00:00Z', { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: '2026-01-01T00:04:00Z' } } }] }),
    ix('c', '1', '2026-01-01T00:00:01Z', { phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: '2026-01-01T00:02:00Z' } } }] }),
  ]);
  assert.deepEqual(rows.map((r) => [r.name, r.index, r.attempt]), [['a', '0', 1], ['c', '1', 1], ['b', '0', 2]]);
  assert.equal(rows[0].exit, 'OOMKilled');
  assert.equal(rows[0].failure, 'run');
  assert.equal(rows[0].end - rows[0].start, 4 * 60 * 1000);
  assert.equal(rows[1].exit, 'Completed');
  assert.equal(rows[2].running, true);
});

test('deployment rollout state', () => {
  const d = (spec, status, extra = {}) => deploymentRow({ metadata: { name: 'd', namespace: 'n', generation: 2, annotations: { 'deployment.kubernetes.io/revision': '3' } }, spec, status, ...extra });
  assert.equal(d({ replicas: 3 }, { observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 3 }).state, 'Complete');
  assert.equal(d({ replicas: 3 }, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }).state, 'Progressing');
  const stalled = d({ replicas: 3 }, { replicas: 4, updatedReplicas: 1, conditions: [c('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "d-1" has timed out progressing.')] });
  assert.equal(stalled.state, 'Stalled');
  assert.equal(stalled.message, 'ReplicaSet "d-1" has timed out progressing.');
  assert.equal(stalled.revision, '3');
  assert.equal(d({ paused: true }, {}).state, 'Paused');
  assert.equal(d({}, {}).want, 1);
});

test('pull events', () => {
  const ev = (name, host, message) => ({ metadata: { name, namespace: 'n', creationTimestamp: 't' }, source: { host }, involvedObject: { name: 'p' }, message });
  const a = pullRow(ev('1', 'n1', 'Successfully pulled image "busybox:1" in 1m2.5s (1m3s including waiting). Image size: 4194304 bytes.'));
  assert.equal(a.image, 'busybox:1');
  assert.equal(a.seconds, 62.5);
  assert.equal(a.waited, 63);
  assert.equal(a.bytes, 4194304);
  const b = pullRow(ev('2', 'n1', 'Successfully pulled image "x" in 250ms (250ms including waiting)'));
  assert.equal(b.seconds, 0.25);
  assert.equal(b.bytes, null);
  const cached = pullRow(ev('3', 'n2', 'Container image "x" already present on machine'));
  assert.equal(cached.cached, true);
  assert.equal(pullRow(ev('4', 'n2', 'Pulling image "x"')), null);
  assert.deepEqual(pullSummary([a, b, cached]).map((s) => [s.node, s.count, s.cached, s.median, s.max]), [['n1', 2, 0, 0.25, 62.5], ['n2', 0, 1, null, null]]);
  assert.equal(parseDuration('1h2m3s'), 3723);
  assert.equal(parseDuration('500µs'), 0.0005);
  assert.equal(fmtSeconds(0.45), '450ms');
  assert.equal(fmtSeconds(12.5), '12.5s');
  assert.equal(fmtSeconds(125), '2m5s');
  assert.equal(fmtBytes(734003200), '700.0 MiB');
  assert.equal(fmtBytes(1000), '1000 B');
  assert.equal(fmtBytes(2048), '2.0 KiB');
});

test('admission rows: a Job\'s FailedCreate events, newest first, with their counts', () => {
  const ev = (uid, last, count, message) => ({ metadata: { uid, creationTimestamp: '2026-01-01T00:00:00Z' }, lastTimestamp: last, count, message });
  const rows = admissionRows([
    ev('a', '2026-01-01T00:00:05Z', 3, 'Error creating: pods "x" is forbidden: exceeded quota: none'),
    ev('b', '2026-01-01T00:00:09Z', undefined, 'Error creating: violates PodSecurity "restricted:latest"'),
  ]);
  assert.deepEqual(rows.map((r) => [r.key, r.count]), [['b', 1], ['a', 3]]);
  assert.match(rows[1].message, /exceeded quota/);
  assert.equal(admissionRows([{ metadata: { name: 'e', creationTimestamp: '2026-01-01T00:00:00Z' }, series: { count: 7 } }])[0].count, 7);
});
