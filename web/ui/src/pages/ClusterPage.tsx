import { useEffect, useMemo, useRef, useState } from 'react';
import { useLiveEvents } from '../api/events';
import { mutate, useResource } from '../api/resource';
import type { Cluster, ClusterNode, GpuSlot, PendingGang, Pool } from '../api/types';
import { Banner, Skeleton, SkeletonRows } from '../components/ui';
import { fmtAge, fmtBytes, fmtShort, pct } from '../format';
import { holderLabel, runningGangs } from '../model/holders';
import { href } from '../router';
import { t as tr, useLocale, useT } from '../i18n';

// Allocation of one GPU, 0..1000 milli-GPU, as a colour of the heatmap: whole GPUs in the
// accent colour, shares as a partial fill of a lighter one (the share is its height).
function gpuStyle(milli: number) {
  if (milli >= 1000) return { background: '#4f46e5' };
  return { background: '#eef1f6' };
}

// Hovering a GPU or a running gang lights every GPU of that workload.
interface Lit {
  workload: number | null;
  set: (w: number | null) => void;
}

function gpuTitle(g: GpuSlot, node: ClusterNode): string {
  const head = `${node.name} GPU ${g.index}: ${g.allocatedMilli === 0 ? tr('cluster.gpuFree') : g.allocatedMilli >= 1000 ? tr('cluster.gpuWhole') : tr('cluster.gpuShared', { share: g.allocatedMilli / 1000 })}`;
  const who = (g.holders ?? []).map((h) => `\n${h.milli < 1000 ? `${h.milli / 1000} · ` : ''}${holderLabel(h)}`);
  return head + who.join('');
}

function GpuCell({ g, node, lit }: { g: GpuSlot; node: ClusterNode; lit: Lit }) {
  const shared = g.allocatedMilli > 0 && g.allocatedMilli < 1000;
  const holders = g.holders ?? [];
  const on = lit.workload !== null && holders.some((h) => h.workload === lit.workload);
  return (
    <div
      className={`gpu${on ? ' lit' : ''}`}
      style={gpuStyle(g.allocatedMilli)}
      title={gpuTitle(g, node)}
      data-milli={g.allocatedMilli}
      data-holders={holders.map((h) => h.workload).join(' ') || undefined}
      onMouseEnter={() => holders.length && lit.set(holders[0].workload)}
      onMouseLeave={() => lit.set(null)}
    >
      {shared && <div className="fill" style={{ height: `${g.allocatedMilli / 10}%`, background: '#a5b4fc' }} />}
      {shared && <span style={{ color: '#312e81' }}>.{String(g.allocatedMilli / 1000).split('.')[1]?.slice(0, 2)}</span>}
    </div>
  );
}

function NodeTile({ node, lit }: { node: ClusterNode; lit: Lit }) {
  const down = !node.ready || node.cordoned;
  const cpu = node.cpu.capacityMilli ? node.cpu.allocatedMilli / node.cpu.capacityMilli : 0;
  const mem = node.memory.capacityBytes ? node.memory.allocatedBytes / node.memory.capacityBytes : 0;
  return (
    <div className={`node-tile ${down ? 'down' : ''}`} data-node={node.name}>
      <div className="nh">
        <span
          style={{ width: 7, height: 7, borderRadius: '50%', background: !node.ready ? 'var(--danger)' : node.cordoned ? 'var(--warn)' : 'var(--ok)', flex: 'none' }}
          title={tr(!node.ready ? 'cluster.notReady' : node.cordoned ? 'cluster.cordoned' : 'cluster.ready')}
        />
        <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{node.name}</span>
        <span className="t">{!node.ready ? tr('cluster.NOT_READY') : node.cordoned ? tr('cluster.CORDONED') : (node.gpuType ?? 'CPU')}</span>
      </div>
      {node.gpus.length > 0 ? (
        <div className="gpus">
          {node.gpus.map((g) => (
            <GpuCell key={g.index} g={g} node={node} lit={lit} />
          ))}
        </div>
      ) : (
        <div className="small muted" style={{ height: 18 }}>
          no GPU
        </div>
      )}
      <div className="minibar">
        <span>CPU</span>
        <div className="b" title={tr('cluster.cpuOf', { used: (node.cpu.allocatedMilli / 1000).toFixed(1), total: node.cpu.capacityMilli / 1000 })}>
          <div style={{ width: pct(cpu, 0) }} />
        </div>
        <span>MEM</span>
        <div className="b" title={tr('cluster.memOf', { used: fmtBytes(node.memory.allocatedBytes), total: fmtBytes(node.memory.capacityBytes) })}>
          <div style={{ width: pct(mem, 0) }} />
        </div>
      </div>
    </div>
  );
}

function rackStats(nodes: ClusterNode[]) {
  let gpus = 0;
  let milli = 0;
  let shared = 0;
  for (const n of nodes)
    for (const g of n.gpus) {
      gpus++;
      milli += g.allocatedMilli;
      if (g.allocatedMilli > 0 && g.allocatedMilli < 1000) shared++;
    }
  return { gpus, ratio: gpus ? milli / (gpus * 1000) : 0, shared };
}

const milliOf = (n: ClusterNode) => n.gpus.reduce((s, g) => s + g.allocatedMilli, 0);

// The cluster with some nodes replaced by their new state, totals kept in step.
function replaceNodes(old: Cluster, nodes: Map<string, ClusterNode>): Cluster {
  let delta = 0;
  const racks = old.racks.map((r) => ({
    ...r,
    nodes: r.nodes.map((n) => {
      const next = nodes.get(n.name);
      if (!next) return n;
      delta += milliOf(next) - milliOf(n);
      return { ...n, ...next };
    }),
  }));
  return { ...old, racks, totals: { ...old.totals, allocatedMilli: old.totals.allocatedMilli + delta } };
}

export default function ClusterPage() {
  const cluster = useResource<Cluster>('/cluster', { refreshMs: 30000 });
  const queue = useResource<{ pending: PendingGang[] }>('/cluster/queue', { refreshMs: 5000 });
  const pools = useResource<{ pools: Pool[] }>('/pools', { refreshMs: 10000 });
  const [type, setType] = useState<string>('all');
  const t = useT();
  const [litWorkload, setLitWorkload] = useState<number | null>(null);
  const lit: Lit = { workload: litWorkload, set: setLitWorkload };
  const queueTimer = useRef<number | null>(null);

  // Live: a `cluster` event is the whole Node of GET /cluster (web/API.md); the nodes that
  // changed are replaced in one update per 200 ms, however many events arrive meanwhile.
  const changed = useRef(new Map<string, ClusterNode>());
  const flushTimer = useRef<number | null>(null);
  useEffect(() => () => {
    for (const t of [flushTimer.current, queueTimer.current]) if (t !== null) window.clearTimeout(t);
  }, []);
  useLiveEvents(['cluster', 'reset'], (t, data) => {
    if (t === 'reset') {
      changed.current.clear();
      void cluster.reload();
      return;
    }
    const node = data as ClusterNode;
    if (!node || typeof node.name !== 'string' || !Array.isArray(node.gpus)) return;
    changed.current.set(node.name, node);
    if (flushTimer.current === null)
      flushTimer.current = window.setTimeout(() => {
        flushTimer.current = null;
        const nodes = changed.current;
        changed.current = new Map();
        mutate<Cluster>('/cluster', (old) => (old ? replaceNodes(old, nodes) : old));
      }, 200);
    if (queueTimer.current === null)
      queueTimer.current = window.setTimeout(() => {
        queueTimer.current = null;
        void queue.reload();
        void pools.reload();
      }, 1000);
  });

  const data = cluster.data;
  const nodes = useMemo(() => data?.racks.flatMap((r) => r.nodes) ?? [], [data]);
  const unavailable = nodes.filter((n) => !n.ready || n.cordoned).length;
  const alloc = data && data.totals.gpus ? data.totals.allocatedMilli / (data.totals.gpus * 1000) : 0;
  const shared = nodes.reduce((s, n) => s + n.gpus.filter((g) => g.allocatedMilli > 0 && g.allocatedMilli < 1000).length, 0);
  // Labels are in the page's language: worked out again when it changes.
  const [locale] = useLocale();
  const running = useMemo(() => (data ? runningGangs(data) : []), [data, locale]);
  const free = nodes.reduce((s, n) => s + (n.ready && !n.cordoned ? n.gpus.filter((g) => g.allocatedMilli === 0).length : 0), 0);

  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>{t('cluster.title')}</h1>
          <div className="sub">{t('cluster.sub')}</div>
        </div>
        <div className="actions">
          <div className="segmented" role="radiogroup" aria-label={t('cluster.gpuType')}>
            {['all', ...(data?.gpuTypes.map((g) => g.name) ?? [])].map((ty) => (
              <button key={ty} className={type === ty ? 'on' : ''} onClick={() => setType(ty)} role="radio" aria-checked={type === ty}>
                {ty === 'all' ? t('cluster.allTypes') : ty}
              </button>
            ))}
          </div>
        </div>
      </div>

      {cluster.error && !data && <Banner>{t('cluster.loadFailed', { message: cluster.error.message })}</Banner>}

      <div className="kpis">
        <div className="card kpi">
          <h3>{t('cluster.kpiAlloc')}</h3>
          <div className="v">{data ? pct(alloc) : <Skeleton w={70} h={28} />}</div>
          <div className="d">{data ? t('cluster.kpiAllocDetail', { used: (data.totals.allocatedMilli / 1000).toFixed(1), total: data.totals.gpus }) : ' '}</div>
          <div className="bar">
            <div style={{ width: pct(alloc) }} />
          </div>
        </div>
        <div className="card kpi">
          <h3>{t('cluster.kpiFree')}</h3>
          <div className="v">{data ? free : <Skeleton w={50} h={28} />}</div>
          <div className="d">{data ? t('cluster.kpiShared', { n: shared }) : ' '}</div>
        </div>
        <div className="card kpi">
          <h3>{t('cluster.kpiTypes')}</h3>
          <div className="v" style={{ fontSize: 15, marginTop: 8, display: 'flex', flexWrap: 'wrap', gap: 6 }}>
            {data ? data.gpuTypes.map((g) => <span className="tag accent" key={g.name}>{g.count} × {g.name}</span>) : <Skeleton w={140} h={20} />}
          </div>
          <div className="d">{data ? t('cluster.kpiNodes', { nodes: nodes.length, racks: data.racks.length }) : ' '}</div>
        </div>
        <div className="card kpi">
          <h3>{t('cluster.kpiPending')}</h3>
          <div className="v" style={queue.data?.pending.length ? { color: 'var(--warn)' } : undefined}>{queue.data ? queue.data.pending.length : <Skeleton w={40} h={28} />}</div>
          <div className="d">{unavailable ? t('cluster.unavailable', { count: unavailable }) : t('cluster.allReady')}</div>
        </div>
      </div>

      <div className="grid-2" style={{ gridTemplateColumns: 'minmax(0, 1fr) 420px', alignItems: 'start' }}>
        <div className="racks" data-testid="heatmap">
          <div className="heat-legend">
            <span>GPU:</span>
            <span className="scale">
              <i style={{ background: '#eef1f6' }} />
            </span>
            {t('cluster.legendFree')}
            <span className="scale">
              <i style={{ background: 'linear-gradient(0deg, #a5b4fc 50%, #eef1f6 50%)' }} />
            </span>
            {t('cluster.legendShared')}
            <span className="scale">
              <i style={{ background: '#4f46e5' }} />
            </span>
            {t('cluster.legendWhole')}
          </div>
          {!data &&
            [0, 1].map((i) => (
              <div className="card" key={i}>
                <div className="card-head">
                  <Skeleton w={120} h={18} />
                </div>
                <div className="rack-nodes">
                  {Array.from({ length: 8 }, (_, j) => (
                    <Skeleton key={j} h={86} />
                  ))}
                </div>
              </div>
            ))}
          {data?.racks.map((rack) => {
            const shown = rack.nodes.filter((n) => type === 'all' || n.gpuType === type);
            if (!shown.length) return null;
            const s = rackStats(rack.nodes);
            return (
              <div className="card" key={rack.name} data-rack={rack.name}>
                <div className="card-head">
                  <h2>{t('cluster.rack', { name: rack.name })}</h2>
                  <span className="small muted">
                    {t('cluster.rackNodes', { n: rack.nodes.length })}
                    {s.gpus ? t('cluster.rackGpus', { gpus: s.gpus, ratio: pct(s.ratio, 0) }) + (s.shared ? t('cluster.rackShared', { n: s.shared }) : '') : t('cluster.cpuOnly')}
                  </span>
                  <div className="actions" style={{ width: 140 }}>
                    {s.gpus > 0 && (
                      <div className="progress" style={{ width: '100%' }}>
                        <div style={{ width: pct(s.ratio) }} />
                      </div>
                    )}
                  </div>
                </div>
                <div className="rack-nodes">
                  {shown.map((n) => (
                    <NodeTile key={n.name} node={n} lit={lit} />
                  ))}
                </div>
              </div>
            );
          })}
        </div>

        <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
          <div className="card">
            <div className="card-head">
              <h2>{t('cluster.queue')}</h2>
              <span className="small muted">{t('cluster.queueSub')}</span>
            </div>
            <table className="table small" data-testid="queue">
              <thead>
                <tr>
                  <th>{t('cluster.colWorkload')}</th>
                  <th>{t('cluster.colGpus')}</th>
                  <th>{t('cluster.colWaiting')}</th>
                </tr>
              </thead>
              <tbody>
                {!queue.data && <SkeletonRows rows={3} cols={3} />}
                {queue.data?.pending.map((g) => (
                  <tr key={g.workload} data-workload={g.workload}>
                    <td>
                      {g.pipeline && g.task ? (
                        <>
                          <b>
                            <a href={href('runs', g.pipeline)}>{g.pipeline}</a> / {g.task}
                          </b>
                          <div className="muted">
                            {t('cluster.run', { time: fmtShort(g.logicalTime) })}
                            {g.attempt !== null && g.attempt !== undefined ? t('cluster.attempt', { n: g.attempt }) : ''}
                          </div>
                        </>
                      ) : (
                        <b>{g.name}</b>
                      )}
                      <div className="why" data-testid="queue-reason">
                        {g.reason || t('cluster.notTried')}
                      </div>
                    </td>
                    <td className="nowrap">
                      {g.gpus ? `${g.gpus}` : g.gpuMilli ? t('cluster.share', { n: g.gpuMilli / 1000 }) : '—'}
                      {g.pods ? <div className="muted">{t('cluster.pods', { count: g.pods })}{g.gpuType ? ` · ${g.gpuType}` : ''}</div> : null}
                    </td>
                    <td className="nowrap">{fmtAge(g.since)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {queue.data?.pending.length === 0 && <div className="empty">{t('cluster.nothingWaiting')}</div>}
          </div>
          <div className="card">
            <div className="card-head">
              <h2>{t('cluster.running')}</h2>
              <span className="small muted">{t('cluster.runningSub')}</span>
            </div>
            <table className="table small" data-testid="running">
              <thead>
                <tr>
                  <th>{t('cluster.colWorkload')}</th>
                  <th>{t('cluster.colGpus')}</th>
                  <th>{t('cluster.colNodes')}</th>
                </tr>
              </thead>
              <tbody>
                {!data && <SkeletonRows rows={3} cols={3} />}
                {running.slice(0, 12).map((r) => (
                  <tr
                    key={r.workload}
                    data-workload={r.workload}
                    className={litWorkload === r.workload ? 'lit' : ''}
                    onMouseEnter={() => setLitWorkload(r.workload)}
                    onMouseLeave={() => setLitWorkload(null)}
                  >
                    <td>{r.pipeline ? <a href={href('runs', r.pipeline)}>{r.label}</a> : r.label}</td>
                    <td className="nowrap">{Number.isInteger(r.gpuMilli / 1000) ? r.gpuMilli / 1000 : (r.gpuMilli / 1000).toFixed(2)}</td>
                    <td>{r.nodes}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {running.length > 12 && <div className="small muted" style={{ padding: '6px 12px' }}>{t('cluster.more', { n: running.length - 12 })}</div>}
            {data && running.length === 0 && <div className="empty">{t('cluster.noneHeld')}</div>}
          </div>
          <div className="card">
            <div className="card-head">
              <h2>{t('cluster.pools')}</h2>
              <span className="small muted">{t('cluster.poolsSub')}</span>
            </div>
            <table className="table small">
              <thead>
                <tr>
                  <th>{t('cluster.colPool')}</th>
                  <th>{t('cluster.colInUse')}</th>
                  <th>{t('cluster.colWaiting')}</th>
                  <th>{t('cluster.colMaxWait')}</th>
                </tr>
              </thead>
              <tbody>
                {!pools.data && <SkeletonRows rows={2} cols={4} />}
                {pools.data?.pools.map((p) => (
                  <tr key={p.name}>
                    <td>
                      <b>{p.name}</b>
                    </td>
                    <td style={{ minWidth: 110 }}>
                      {p.inUse} / {p.slots}
                      <div className="progress" style={{ marginTop: 4 }}>
                        <div style={{ width: pct(p.slots ? p.inUse / p.slots : 0) }} />
                      </div>
                    </td>
                    <td>{p.waiting}</td>
                    <td>{p.maxWait ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {pools.data?.pools.length === 0 && <div className="empty">{t('cluster.noPool')}</div>}
          </div>
        </div>
      </div>
    </div>
  );
}
