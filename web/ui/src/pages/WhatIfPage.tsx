import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, enc } from '../api/client';
import { useLiveEvents } from '../api/events';
import { useResource } from '../api/resource';
import { readOnlyHint, useCanWrite } from '../api/session';
import type { ScenarioInfo, Simulation, SimulationSeries, SimulationResult } from '../api/types';
import { Chart } from '../components/Chart';
import type { EChartsCoreOption } from 'echarts/core';
import { IconPlay } from '../components/icons';
import StudiesSection from './StudiesSection';
import DistributedSweepsSection from './DistributedSweepsSection';
import { Banner, Skeleton, StateBadge, stateLabel } from '../components/ui';
import { t as tr, tNodes, useT } from '../i18n';
import { en } from '../i18n/en';
import { fmtDuration, fmtSeconds, fmtShort, pct } from '../format';
import { kGpuTypes } from '../model/spec';
import { seedsFrom } from '../model/stats';
import { allocationData, baseOption, clusterRows, compareSeeds, hasJobs, hasServices, kColors, p99Option, qpsOption, replicasOption, serviceBlocks, serviceNames, serviceSummary } from '../model/whatif';
import type { ChartInput, CompareRow, Key } from '../model/whatif';

// A row of the services' table in the page's language (names it has no string for, such as
// "Predictor x", as the model wrote them).
function svcLabel(label: string): string {
  const key = `whatif.svc.${label}`;
  return key in en ? tr(key as 'whatif.svc.Requests') : label;
}

// Placement plugins (engine/policy/plugin_registry.hpp) and the policies of a fragmentation
// experiment (README, "openb-fragmentation"): what the form offers when the server's
// GET /scenarios does not say (it gives each scenario's own `policies` and `defaults`).
const kPlacements = ['binpack', 'spread', 'topology', 'random', 'dotproduct', 'gpuclustering', 'gpupacking', 'bestfit', 'fgd'];
const kFragPolicies = ['Random', 'DotProduct', 'GpuClustering', 'GpuPacking', 'BestFit', 'FGD'];
const kFabrics = ['InfiniBand', 'RoCE', 'TCP'];
interface Form {
  scenario: string;
  policy: string;
  nodes: string;
  gpuType: string;
  fabric: string;
  seed: string;
  seeds: string; // how many seeds: seed, seed + 1, ...
}
interface Variant {
  form: Form;
  sim: Simulation | null; // the first seed's (its summary and charts)
  more: Simulation[]; // the other seeds' (the comparison table's means and intervals)
  series: SimulationSeries | null;
  error: string | null;
}

// Kept for the session: leaving the page and coming back shows the same comparison.
const store: Record<Key, Variant> = {
  A: { form: { scenario: 'quickstart', policy: 'binpack', nodes: '', gpuType: '', fabric: '', seed: '42', seeds: '5' }, sim: null, more: [], series: null, error: null },
  B: { form: { scenario: 'quickstart', policy: 'topology', nodes: '', gpuType: '', fabric: 'TCP', seed: '42', seeds: '5' }, sim: null, more: [], series: null, error: null },
};

// "As in file: 32 nodes · A100-80G · InfiniBand · binpack · seed 42" (GET /scenarios defaults).
function describeDefaults(sc: ScenarioInfo | undefined): string {
  if (!sc) return '';
  if (sc.kind === 'Experiment') return tr('whatif.fragExp', { policies: sc.policies?.length ? tr('whatif.ofPolicies', { n: sc.policies.length }) : '', seed: sc.defaults?.seed !== undefined ? tr('whatif.seedN', { n: sc.defaults.seed }) : '' });
  const d = sc.defaults;
  if (!d) return '';
  const parts = [d.nodes && `${d.nodes} nodes`, d.gpuType, d.fabric, d.policy, d.seed !== undefined && `seed ${d.seed}`].filter(Boolean);
  return parts.length ? `As in file: ${parts.join(' · ')}` : '';
}

const overridesText = (s: Simulation) =>
  [s.overrides?.nodes && `${s.overrides.nodes} nodes`, s.overrides?.gpuType, s.overrides?.fabric].filter(Boolean).join(' · ');

const inProgress = (s: Simulation | null | undefined) => s?.state === 'queued' || s?.state === 'running';
// Every simulation of a side, first seed first.
const allSims = (v: Variant) => (v.sim ? [v.sim, ...v.more] : v.more);
const sideInProgress = (v: Variant) => allSims(v).some(inProgress);
// To be read (again) from the server: in progress, or done without its result (the answer to the
// POST of a simulation that ended before the answer was written has none).
const needsFetch = (s: Simulation) => inProgress(s) || (s.state === 'done' && !s.result);
// The results of the seeds done so far.
const doneResults = (v: Variant) => allSims(v).flatMap((s) => (s.state === 'done' && s.result ? [s.result] : []));

export default function WhatIfPage() {
  useT(); // drawn again in the other language when the navigation switches it
  const scenarios = useResource<{ scenarios: ScenarioInfo[] }>('/scenarios');
  const history = useResource<{ simulations: Simulation[] }>('/simulations');
  const canWrite = useCanWrite();
  const [variants, setVariants] = useState<Record<Key, Variant>>({ ...store });
  const setVariant = useCallback((k: Key, f: (v: Variant) => Variant) => {
    setVariants((all) => {
      const next = { ...all, [k]: f(all[k]) };
      store[k] = next[k];
      return next;
    });
  }, []);

  // Progress: live events, and polling as a fallback.
  useLiveEvents(['simulation'], (_, data) => {
    const s = data as Simulation;
    const progress = (x: Simulation) => (x.id === s.id && inProgress(x) ? { ...x, state: s.state === 'queued' || s.state === 'running' ? s.state : x.state, progress: s.progress } : x);
    for (const k of ['A', 'B'] as Key[]) if (allSims(store[k]).some((x) => x.id === s.id && inProgress(x))) setVariant(k, (v) => ({ ...v, sim: v.sim && progress(v.sim), more: v.more.map(progress) }));
  });
  // Queued (the server runs one simulation at a time) or running.
  const running = (['A', 'B'] as Key[])
    .flatMap((k) => allSims(variants[k]).filter(needsFetch))
    .map((s) => s.id)
    .join(',');
  useEffect(() => {
    if (!running) return;
    const id = window.setInterval(async () => {
      for (const k of ['A', 'B'] as Key[]) {
        const first = store[k].sim;
        for (const sim of allSims(store[k])) {
          if (!sim.id || !needsFetch(sim)) continue;
          try {
            const s = await api<Simulation>(`/simulations/${enc(sim.id)}`);
            const replace = (x: Simulation) => (x.id === s.id ? s : x);
            if (s.state === 'done' && sim === first) {
              const series = await api<SimulationSeries>(`/simulations/${enc(sim.id)}/series`).catch(() => null);
              setVariant(k, (v) => ({ ...v, sim: s, series }));
              void history.reload();
            } else setVariant(k, (v) => ({ ...v, sim: v.sim && replace(v.sim), more: v.more.map(replace), error: s.error ?? v.error }));
          } catch (e) {
            setVariant(k, (v) => ({ ...v, error: (e as Error).message }));
          }
        }
      }
    }, 500);
    return () => window.clearInterval(id);
  }, [running, setVariant, history]);

  const run = async (k: Key) => {
    const f = store[k].form;
    const overrides: Record<string, unknown> = {};
    // Nodes, GPU type and fabric change a Scenario's cluster; an Experiment has its own (the
    // form greys them out, and the server refuses them).
    const experiment = scenarios.data?.scenarios.find((s) => s.name === f.scenario)?.kind === 'Experiment';
    if (!experiment) {
      if (f.nodes) overrides.nodes = Number(f.nodes);
      if (f.gpuType) overrides.gpuType = f.gpuType;
      if (f.fabric) overrides.fabric = f.fabric;
    }
    const body: Record<string, unknown> = { scenarioName: f.scenario };
    if (f.policy) body.policy = f.policy;
    if (Object.keys(overrides).length) body.overrides = overrides;
    // Seeds first, first + 1, ... (from the file's seed when the field is empty; one run when
    // the file names none, as its seed is then the server's to choose).
    const fileSeed = scenarios.data?.scenarios.find((s) => s.name === f.scenario)?.defaults?.seed;
    const first = f.seed ? Number(f.seed) : fileSeed;
    const seeds = first === undefined ? [undefined] : seedsFrom(first, Number(f.seeds) || 1);
    const placeholder = (seed: number | undefined): Simulation => ({ id: '', state: 'queued', progress: 0, scenario: f.scenario, seed: seed ?? null, policy: f.policy || null, overrides, created: new Date().toISOString(), result: null, error: null });
    setVariant(k, (v) => ({ ...v, error: null, series: null, sim: placeholder(seeds[0]), more: seeds.slice(1).map(placeholder) }));
    try {
      const sims: Simulation[] = [];
      for (const seed of seeds) sims.push(await api<Simulation>('/simulations', { method: 'POST', body: seed === undefined ? body : { ...body, seed } }));
      setVariant(k, (v) => ({ ...v, sim: sims[0], more: sims.slice(1) }));
    } catch (e) {
      setVariant(k, (v) => ({ ...v, sim: null, more: [], error: (e as ApiError).message }));
    }
  };

  const use = async (k: Key, s: Simulation) => {
    const full = await api<Simulation>(`/simulations/${enc(s.id)}`);
    const series = full.state === 'done' ? await api<SimulationSeries>(`/simulations/${enc(s.id)}/series`).catch(() => null) : null;
    setVariant(k, (v) => ({ ...v, sim: full, more: [], series, error: null }));
  };

  const list = scenarios.data?.scenarios;
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>{tr('whatif.title')}</h1>
          <div className="sub">{tr('whatif.sub')}</div>
        </div>
        <div className="actions">
          <button className="btn primary" onClick={() => void Promise.all([run('A'), run('B')])} disabled={!list || !!running || !canWrite} title={canWrite ? undefined : readOnlyHint()} data-testid="run-both">
            <IconPlay /> Run both
          </button>
        </div>
      </div>
      {scenarios.error && !list && <Banner>Could not load the scenarios: {scenarios.error.message}</Banner>}
      <div className="whatif-forms">
        {(['A', 'B'] as Key[]).map((k) => (
          <VariantCard key={k} k={k} v={variants[k]} scenarios={list} onForm={(form) => setVariant(k, (v) => ({ ...v, form }))} onRun={() => void run(k)} />
        ))}
      </div>
      <Comparison a={variants.A} b={variants.B} scenarios={list} />
      <History sims={history.data?.simulations} onUse={use} />
      <StudiesSection />
      <DistributedSweepsSection />
    </div>
  );
}

function VariantCard({ k, v, scenarios, onForm, onRun }: { k: Key; v: Variant; scenarios?: ScenarioInfo[]; onForm: (f: Form) => void; onRun: () => void }) {
  const f = v.form;
  const sc = scenarios?.find((s) => s.name === f.scenario);
  const experiment = sc?.kind === 'Experiment';
  const d = sc?.defaults;
  const policies = sc?.policies?.length ? sc.policies : experiment ? kFragPolicies : kPlacements;
  const canWrite = useCanWrite();
  const set = (patch: Partial<Form>) => onForm({ ...f, ...patch });
  const sim = v.sim;
  return (
    <div className={`card variant ${k === 'B' ? 'b' : ''}`} data-variant={k}>
      <div className="card-head">
        <div className="variant-title">
          <span className="dot" />
          <h2>{tr('whatif.runK', { k })}</h2>
        </div>
        {sim && <StateBadge state={sim.state === 'done' ? 'succeeded' : sim.state === 'cancelled' ? 'killed' : sim.state} label={stateLabel(sim.state)} />}
        <div className="actions">
          <button className="btn sm" onClick={onRun} disabled={!scenarios || sideInProgress(v) || !canWrite} title={canWrite ? undefined : readOnlyHint()} data-testid={`run-${k}`}>
            <IconPlay /> {tr('whatif.runK', { k })}
          </button>
        </div>
      </div>
      <div className="card-body">
        <div className="field">
          <label>{tr('whatif.scenario')}</label>
          {scenarios ? (
            <select value={f.scenario} onChange={(e) => set({ scenario: e.target.value, policy: '' })} data-testid={`scenario-${k}`}>
              {scenarios.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} {s.kind === 'Experiment' ? tr('whatif.experiment') : ''}
                </option>
              ))}
            </select>
          ) : (
            <Skeleton h={32} />
          )}
          <div className="hint" style={{ minHeight: 30 }}>
            {sc?.description || describeDefaults(sc)}
          </div>
        </div>
        <div className="fields-4">
          <div className="field">
            <label>{experiment ? tr('whatif.policy') : tr('whatif.placement')}</label>
            <select value={f.policy} onChange={(e) => set({ policy: e.target.value })} data-testid={`policy-${k}`}>
              <option value="">{experiment ? tr('whatif.allN', { n: policies.length }) : d?.policy ? tr('whatif.asInFileV', { v: d.policy }) : tr('whatif.asInFile')}</option>
              {policies.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label>{tr('whatif.nodes')}</label>
            <input inputMode="numeric" value={f.nodes} placeholder={d?.nodes ? tr('whatif.asInFileV', { v: d.nodes }) : tr('whatif.asInFile')} onChange={(e) => set({ nodes: e.target.value.replace(/\D/g, '') })} disabled={experiment} data-testid={`nodes-${k}`} />
          </div>
          <div className="field">
            <label>{tr('whatif.seed')}</label>
            <input inputMode="numeric" data-testid={`seed-${k}`} value={f.seed} placeholder={d?.seed !== undefined ? tr('whatif.filesV', { v: d.seed }) : tr('whatif.files')} onChange={(e) => set({ seed: e.target.value.replace(/\D/g, '') })} />
          </div>
          <div className="field">
            <label title={tr('whatif.seedsTitle')}>{tr('whatif.seeds')}</label>
            <input inputMode="numeric" data-testid={`seeds-${k}`} value={f.seeds} onChange={(e) => set({ seeds: e.target.value.replace(/\D/g, '').slice(0, 2) })} />
          </div>
        </div>
        <div className="fields-2">
          <div className="field">
            <label>{tr('whatif.gpuType')}</label>
            <select value={f.gpuType} onChange={(e) => set({ gpuType: e.target.value })} disabled={experiment} data-testid={`gpu-${k}`}>
              <option value="">{d?.gpuType ? tr('whatif.asInFileV', { v: d.gpuType }) : tr('whatif.asInFile')}</option>
              {kGpuTypes.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label>{tr('whatif.fabric')}</label>
            <select value={f.fabric} onChange={(e) => set({ fabric: e.target.value })} disabled={experiment} data-testid={`fabric-${k}`}>
              <option value="">{d?.fabric ? tr('whatif.asInFileV', { v: d.fabric }) : tr('whatif.asInFile')}</option>
              {kFabrics.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
        </div>
        {sideInProgress(v) && (
          <SeedsProgress v={v} k={k} />
        )}
        {sim?.state === 'done' && sim.result && <Summary r={sim.result} />}
        {(v.error || sim?.error) && <Banner>{v.error ?? sim?.error}</Banner>}
      </div>
    </div>
  );
}

// The progress of a side: the seed being simulated and the share of all its seeds done.
function SeedsProgress({ v, k }: { v: Variant; k: Key }) {
  const sims = allSims(v);
  const current = sims.find((s) => s.state === 'running') ?? sims.find(inProgress)!;
  const done = sims.filter((s) => !inProgress(s)).length;
  const total = (done + current.progress) / sims.length;
  return (
    <div data-testid={`progress-${k}`}>
      <div className="row small muted" style={{ marginBottom: 4 }}>
        {current.state === 'queued' ? tr('whatif.waitingWorker') : tr('whatif.simulating', { scenario: current.scenario, seed: current.seed !== null ? tr('whatif.withSeed', { n: current.seed }) : '' })}
        {sims.length > 1 && tr('whatif.seedsDone', { done, total: sims.length })} <span style={{ marginLeft: 'auto' }}>{pct(total, 0)}</span>
      </div>
      <div className="progress">
        <div style={{ width: pct(total) }} />
      </div>
    </div>
  );
}

function Summary({ r }: { r: SimulationResult }) {
  if (r.policies)
    return (
      <div className="small muted">
        {tr('whatif.fragSummary', { gpus: r.capacity_gpus?.toLocaleString() ?? '—', list: r.policies.map((p) => `${p.name} ${p.unallocated_gpu_pct_mean?.[100]?.toFixed(1) ?? '—'} %`).join(', ') })}
      </div>
    );
  const services = hasServices(r);
  return (
    <>
      {(hasJobs(r) || !services) && (
        <div className="row small" style={{ gap: 16, flexWrap: 'wrap' }}>
          <span>
            {tNodes('whatif.jobsFinished', { finished: <b>{r.jobs?.finished ?? '—'}</b> }, { total: r.jobs?.total ?? '—' })}
          </span>
          <span>
            JCT p50 <b>{fmtSeconds(r.jct_s?.p50)}</b>
          </span>
          <span>
            {tr('whatif.waitP50')} <b>{fmtSeconds(r.wait_s?.p50)}</b>
          </span>
          <span>
            {tr('whatif.gpuAlloc')} <b>{r.gpu ? pct(r.gpu.allocation_ratio) : '—'}</b>
          </span>
        </div>
      )}
      {services &&
        r.services!.map((s) => (
          <div key={s.name} className="small" data-testid="service-summary">
            {serviceSummary(s)}
          </div>
        ))}
    </>
  );
}

type Row = { label: string; get: (r: SimulationResult) => number | undefined; fmt: (x: number) => string; better: 'lower' | 'higher'; jobs?: boolean };

function Comparison({ a, b, scenarios }: { a: Variant; b: Variant; scenarios?: ScenarioInfo[] }) {
  const ra = a.sim?.state === 'done' ? a.sim.result : null;
  const rb = b.sim?.state === 'done' ? b.sim.result : null;
  const makespan = (r: SimulationResult | null | undefined) => (r?.start && r?.end ? (Date.parse(r.end) - Date.parse(r.start)) / 1000 : undefined);
  // A scenario of services alone has no jobs: its job figures (zeros) are left out, not shown.
  const ja = hasJobs(ra) ? ra : null;
  const jb = hasJobs(rb) ? rb : null;
  const rows: Row[] = [
    { label: 'JCT median', get: (r) => r.jct_s?.p50, fmt: (x) => fmtSeconds(x), better: 'lower', jobs: true },
    { label: 'JCT p95', get: (r) => r.jct_s?.p95, fmt: (x) => fmtSeconds(x), better: 'lower', jobs: true },
    { label: 'JCT mean', get: (r) => r.jct_s?.mean, fmt: (x) => fmtSeconds(x), better: 'lower', jobs: true },
    { label: 'Wait median', get: (r) => r.wait_s?.p50, fmt: (x) => fmtSeconds(x), better: 'lower', jobs: true },
    { label: 'Wait p95', get: (r) => r.wait_s?.p95, fmt: (x) => fmtSeconds(x), better: 'lower', jobs: true },
    { label: 'GPU allocation', get: (r) => r.gpu?.allocation_ratio, fmt: (x) => pct(x), better: 'higher' },
    { label: 'GPU busy', get: (r) => r.gpu?.busy_ratio, fmt: (x) => pct(x), better: 'higher' },
    { label: 'Makespan', get: makespan, fmt: (x) => fmtDuration(x * 1000), better: 'lower', jobs: true },
  ];
  // Every seed done so far, per side (job figures only from results that have jobs).
  const seedsA = doneResults(a);
  const seedsB = doneResults(b);
  const experiment = (v: Variant) => scenarios?.find((s) => s.name === v.sim?.scenario)?.kind === 'Experiment' || !!v.sim?.result?.policies;
  const anyJobs = !!(ja || jb);
  const anyServices = hasServices(ra) || hasServices(rb);
  // Neither jobs nor services yet (a result without either, or still running): the job charts,
  // as before.
  const anyScenario = (ra && !ra.policies) || (rb && !rb.policies);
  const jobCharts = anyJobs || (!anyServices && !!anyScenario);
  const anyFrag = (a.series && experiment(a)) || (b.series && experiment(b));
  const running = inProgress(a.sim) || inProgress(b.sim);
  if (!ra && !rb && !inProgress(a.sim) && !inProgress(b.sim))
    return (
      <div className="card empty" data-testid="comparison-empty">
        <h2>{tr('whatif.nothing')}</h2>
        <div>{tr('whatif.nothingDetail')}</div>
      </div>
    );
  return (
    <div data-testid="comparison">
      {jobCharts && (
        <div className="card">
          <div className="card-head">
            <h2>{tr('whatif.sideBySide')}</h2>
            <span className="small muted" data-testid="seeds-note">
              {seedsA.length > 1 || seedsB.length > 1 ? tr('whatif.seedsNote', { a: seedsA.length, b: seedsB.length }) : tr('whatif.oneSeed')}
            </span>
          </div>
          <table className="compare">
            <CompareHead a={a} b={b} />
            <tbody>
              {rows
                .filter((r) => anyJobs || !r.jobs)
                .map((r) => {
                  const row = compareSeeds(seedsA.filter((x) => !r.jobs || hasJobs(x)).map(r.get), seedsB.filter((x) => !r.jobs || hasJobs(x)).map(r.get), r.better, r.fmt);
                  return (
                    <tr key={r.label} data-row={r.label}>
                      <td>{tr(`whatif.row.${r.label}` as 'whatif.row.JCT mean')}</td>
                      <td>{row.a}</td>
                      <td>{row.b}</td>
                      <td className={`delta ${row.tone}`} title={row.title}>
                        {row.delta}
                      </td>
                    </tr>
                  );
                })}
            </tbody>
          </table>
        </div>
      )}
      {anyServices && <Services a={a} b={b} showCluster={!jobCharts} />}
      <div className="charts">
        {jobCharts || (!anyFrag && !anyServices && running) ? (
          <>
            <ChartCard title={tr('whatif.jctCdf')} testId="Job completion time (CDF)" subtitle={tr('whatif.jctCdfSub')} option={cdfOption(a, b, 'jctCdf')} loading={!a.series && !b.series} />
            <ChartCard title={tr('whatif.waitCdf')} testId="Queueing wait (CDF)" subtitle={tr('whatif.waitCdfSub')} option={cdfOption(a, b, 'waitCdf')} loading={!a.series && !b.series} />
          </>
        ) : null}
        {jobCharts || anyServices || (!anyFrag && running) ? <ChartCard title={tr('whatif.alloc')} testId="GPU allocation over time" subtitle={tr('whatif.allocSub')} option={allocOption(a, b)} loading={!a.series && !b.series} wide /> : null}
        {anyFrag && <ChartCard title={tr('whatif.frag')} testId="Unallocated GPUs as the workload arrives" subtitle={tr('whatif.fragSub')} option={fragOption(a, b)} loading={false} wide />}
      </div>
    </div>
  );
}

// What a variant ran: scenario, policy and the overrides it changed.
const label = (v: Variant) => (v.sim ? `${v.sim.scenario}${v.sim.policy ? ` · ${v.sim.policy}` : ''}${v.sim.overrides?.fabric ? ` · ${v.sim.overrides.fabric}` : ''}${v.sim.overrides?.gpuType ? ` · ${v.sim.overrides.gpuType}` : ''}${v.sim.overrides?.nodes ? ` · ${v.sim.overrides.nodes} nodes` : ''}` : '—');

// The head of a comparison table: the two variants in their colours, then the delta.
function CompareHead({ a, b }: { a: Variant; b: Variant }) {
  return (
    <thead>
      <tr>
        <th />
        <th style={{ color: kColors.A }}>A · {label(a)}</th>
        <th style={{ color: kColors.B }}>B · {label(b)}</th>
        <th>B vs A</th>
      </tr>
    </thead>
  );
}

function ChartCard({ title, subtitle, option, loading, wide, height, testId }: { title: string; subtitle: string; option: EChartsCoreOption; loading: boolean; wide?: boolean; height?: number; testId?: string }) {
  return (
    <div className="card" style={wide ? { gridColumn: '1 / -1' } : undefined}>
      <div className="card-head">
        <h2>{title}</h2>
        <span className="small muted">{subtitle}</span>
      </div>
      <div className="card-body" style={{ paddingTop: 6 }}>
        {loading ? <Skeleton h={height ?? 280} /> : <Chart option={option} testId={testId ?? title} height={height} />}
      </div>
    </div>
  );
}

// The inference services of A and B: a table per service (B against A, predictors as sub-rows
// when there is a canary), and per service its replicas, p99 latency and request rate over time.
function Services({ a, b, showCluster }: { a: Variant; b: Variant; showCluster: boolean }) {
  const ra = a.sim?.state === 'done' ? a.sim.result : null;
  const rb = b.sim?.state === 'done' ? b.sim.result : null;
  // Every seed done so far of each side: means and intervals (the charts are the first seed's).
  const seeds = useMemo(() => ({ a: doneResults(a), b: doneResults(b) }), [a, b]);
  const blocks = useMemo(() => serviceBlocks(ra, rb, seeds), [ra, rb, seeds]);
  const cluster = useMemo(() => (showCluster ? clusterRows(ra, rb) : []), [ra, rb, showCluster]);
  const inputs: ChartInput[] = useMemo(
    () => [
      { key: 'A' as Key, result: ra, series: a.series },
      { key: 'B' as Key, result: rb, series: b.series },
    ],
    [ra, rb, a.series, b.series],
  );
  const names = useMemo(() => serviceNames(inputs), [inputs]);
  const charts = useMemo(() => names.map((n) => ({ name: n, replicas: replicasOption(n, inputs), p99: p99Option(n, inputs), qps: qpsOption(n, inputs) })), [names, inputs]);
  const loading = !a.series && !b.series;
  const cell = (r: CompareRow) => (
    <tr key={r.id} className={r.kind} data-row={r.id}>
      <td>{svcLabel(r.label)}</td>
      <td>{r.a}</td>
      <td>{r.b}</td>
      <td className={`delta ${r.delta?.tone ?? ''}`} title={r.title}>
        {r.delta?.text ?? ''}
      </td>
    </tr>
  );
  return (
    <>
      <div className="card services" data-testid="services">
        <div className="card-head">
          <h2>{tr('whatif.services')}</h2>
          <span className="small muted">{tr('whatif.servicesSub')}</span>
        </div>
        <table className="compare">
          <CompareHead a={a} b={b} />
          {blocks.map((blk) => (
            <tbody key={blk.name} data-service={blk.name}>
              <tr className="service-head">
                <td colSpan={4}>
                  <div className="service-title">
                    <b>{blk.name}</b>
                    <span className="tag">SLO: {blk.slo}</span>
                    {blk.only && <span className="tag warn">{tr('whatif.onlyIn', { k: blk.only })}</span>}
                    <span className="glance">
                      {blk.headline.map((h) => (
                        <span key={h.label} className={`tag ${h.delta.tone}`} title={tr('whatif.bAgainstA')}>
                          {h.delta.text} {svcLabel(h.label)}
                        </span>
                      ))}
                    </span>
                  </div>
                </td>
              </tr>
              {blk.rows.map(cell)}
            </tbody>
          ))}
          {cluster.length > 0 && (
            <tbody data-service="">
              <tr className="service-head">
                <td colSpan={4}>
                  <div className="service-title">
                    <b>{tr('whatif.cluster')}</b>
                    <span className="small muted">{tr('whatif.clusterSub')}</span>
                  </div>
                </td>
              </tr>
              {cluster.map(cell)}
            </tbody>
          )}
        </table>
      </div>
      {charts.map((c) => (
        <div className="charts" key={c.name} data-testid={`service-charts-${c.name}`}>
          <ChartCard title={tr('whatif.replicas', { name: c.name })} subtitle={tr('whatif.replicasSub')} option={c.replicas} loading={loading} testId={`replicas-${c.name}`} />
          <ChartCard title={tr('whatif.p99', { name: c.name })} subtitle={tr('whatif.p99Sub')} option={c.p99} loading={loading} testId={`p99-${c.name}`} />
          <ChartCard title={tr('whatif.qps', { name: c.name })} subtitle={tr('whatif.qpsSub')} option={c.qps} loading={loading} wide height={180} testId={`qps-${c.name}`} />
        </div>
      ))}
    </>
  );
}

function cdfOption(a: Variant, b: Variant, key: 'jctCdf' | 'waitCdf') {
  const series = (['A', 'B'] as Key[])
    .map((k) => ({ k, v: k === 'A' ? a : b }))
    .filter(({ v }) => v.series && v.series[key]?.length)
    .map(({ k, v }) => ({
      name: `${k} · ${v.sim?.policy ?? v.sim?.scenario ?? ''}${v.sim?.overrides?.fabric ? ` · ${v.sim.overrides.fabric}` : ''}`,
      type: 'line',
      showSymbol: false,
      step: false,
      smooth: false,
      lineStyle: { width: 2.4, color: kColors[k] },
      itemStyle: { color: kColors[k] },
      data: v.series![key].map(([x, y]) => [Math.max(x, 0.1), y]),
    }));
  return {
    ...baseOption(),
    tooltip: { trigger: 'axis', valueFormatter: (y: number) => pct(y) },
    xAxis: { type: 'log', name: 'seconds', nameLocation: 'middle', nameGap: 24, axisLabel: { color: '#7a8499', formatter: (x: number) => fmtSeconds(x) }, splitLine: { lineStyle: { color: '#eef1f6' } } },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: { color: '#7a8499', formatter: (y: number) => `${Math.round(y * 100)}%` }, splitLine: { lineStyle: { color: '#eef1f6' } } },
    series,
  };
}

function allocOption(a: Variant, b: Variant) {
  const series = (['A', 'B'] as Key[])
    .map((k) => ({ k, v: k === 'A' ? a : b }))
    .filter(({ v }) => v.series?.gpuAllocation.length)
    .map(({ k, v }) => {
      const r = v.sim?.result;
      return {
        name: `${k}`,
        type: 'line',
        showSymbol: false,
        areaStyle: { opacity: 0.08 },
        lineStyle: { width: 2, color: kColors[k] },
        itemStyle: { color: kColors[k] },
        data: allocationData(v.series!.gpuAllocation, r?.start, r?.end),
      };
    });
  return {
    ...baseOption(),
    tooltip: { trigger: 'axis', valueFormatter: (y: number) => pct(y) },
    xAxis: { type: 'value', min: 0, name: 'hours since start', nameLocation: 'middle', nameGap: 24, axisLabel: { color: '#7a8499' }, splitLine: { show: false } },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: { color: '#7a8499', formatter: (y: number) => `${Math.round(y * 100)}%` }, splitLine: { lineStyle: { color: '#eef1f6' } } },
    series,
  };
}

const kPolicyColors = ['#4f46e5', '#f59e0b', '#10b981', '#ef4444', '#06b6d4', '#a855f7', '#64748b'];
function fragOption(a: Variant, b: Variant) {
  const series: object[] = [];
  (['A', 'B'] as Key[]).forEach((k) => {
    const v = k === 'A' ? a : b;
    const curves = v.series?.unallocatedGpuPct ?? {};
    Object.entries(curves).forEach(([policy, pts], i) => {
      // One colour per policy whichever run it is in (A solid, B dashed); the arrival levels
      // the paper plots (80 % and up), where the policies differ.
      const at = kFragPolicies.indexOf(policy);
      const color = kPolicyColors[(at >= 0 ? at : i) % kPolicyColors.length];
      series.push({
        name: `${k} · ${policy}`,
        type: 'line',
        showSymbol: false,
        lineStyle: { width: 2, type: k === 'B' ? 'dashed' : 'solid', color },
        itemStyle: { color },
        data: pts.filter(([x]) => x >= 80),
      });
    });
  });
  return {
    ...baseOption(),
    legend: { ...baseOption().legend, type: 'scroll' },
    tooltip: { trigger: 'axis', valueFormatter: (y: number) => `${y.toFixed(1)}%` },
    xAxis: { type: 'value', min: 80, name: 'arrived workload, % of GPU capacity', nameLocation: 'middle', nameGap: 24, axisLabel: { color: '#7a8499' }, splitLine: { show: false } },
    yAxis: { type: 'value', min: 0, axisLabel: { color: '#7a8499', formatter: (y: number) => `${y}%` }, splitLine: { lineStyle: { color: '#eef1f6' } } },
    series,
  };
}

function History({ sims, onUse }: { sims?: Simulation[]; onUse: (k: Key, s: Simulation) => void }) {
  const done = useMemo(() => (sims ?? []).slice(0, 12), [sims]);
  const ref = useRef<HTMLDivElement>(null);
  if (!sims || sims.length === 0) return null;
  return (
    <div className="card history" style={{ marginTop: 16 }} ref={ref}>
      <div className="card-head">
        <h2>{tr('whatif.recent')}</h2>
        <span className="small muted">{tr('whatif.onServer')}</span>
      </div>
      <table className="table small">
        <thead>
          <tr>
            <th>{tr('whatif.scenario')}</th>
            <th>{tr('whatif.policy')}</th>
            <th>{tr('whatif.colChanged')}</th>
            <th>{tr('whatif.seed')}</th>
            <th>{tr('whatif.colState')}</th>
            <th>{tr('whatif.colStarted')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {done.map((s) => (
            <tr key={s.id}>
              <td>{s.scenario}</td>
              <td>{s.policy ?? <span className="muted">{tr('whatif.scenarios')}</span>}</td>
              <td>{overridesText(s) || <span className="muted">{tr('whatif.nothingChanged')}</span>}</td>
              <td>{s.seed ?? '—'}</td>
              <td>
                <StateBadge state={s.state === 'done' ? 'succeeded' : s.state === 'cancelled' ? 'killed' : s.state} label={stateLabel(s.state)} />
              </td>
              <td>{fmtShort(s.created)}</td>
              <td style={{ textAlign: 'right' }}>
                <button className="btn sm" disabled={s.state !== 'done'} onClick={() => onUse('A', s)}>
                  {tr('whatif.useA')}
                </button>{' '}
                <button className="btn sm" disabled={s.state !== 'done'} onClick={() => onUse('B', s)}>
                  {tr('whatif.useB')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
