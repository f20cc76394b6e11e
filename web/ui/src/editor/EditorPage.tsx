import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import type { Connection, Edge, FinalConnectionState, NodeChange, EdgeChange, IsValidConnection } from '@xyflow/react';
import { api, ApiError, enc } from '../api/client';
import { mutate, peek, useResource } from '../api/resource';
import { readOnlyHint, useCanWrite } from '../api/session';
import type { ApplyResult, PipelineDetail, PipelineSummary, Pool, Run } from '../api/types';
import { IconAlert, IconArrowDown, IconArrowRight, IconCheck, IconCode, IconDownload, IconFit, IconGraph, IconLayout, IconPlay, IconSave, IconUpload } from '../components/icons';
import { Banner, Skeleton, useToast } from '../components/ui';
import { fmtTime } from '../format';
import { printValues } from '../model/bundle';
import { checkPipeline } from '../model/checks';
import { checkConnection, connectionMessage, nodesOnCycles } from '../model/dag';
import { groupErrors, locateErrors, locateWarnings, mergeErrors, withLines } from '../model/errors';
import type { LocatedError } from '../model/errors';
import { addEdge, addTask, edgesOf, removeEdge, removeTasks, uniqueName, updateTask } from '../model/graph';
import { kNodeHeight, kNodeWidth } from '../model/layout';
import { freeSpot, readableFit } from '../model/viewport';
import { kApiVersion, kTemplates, templateBlurb, templateInfo } from '../model/spec';
import type { TemplateName } from '../model/spec';
import { isPlainObject } from '../model/util';
import { actionError } from '../pages/PipelinesPage';
import { href, navigate, setLeaveGuard, useRoute } from '../router';
import { connection } from '../api/connection';
import { saveLayout, savedLayout, takeDraft } from './drafts';
import type { Draft } from './drafts';
import { ImportDialog } from './ImportDialog';
import { plansToConfirm, SaveDialog } from './SaveDialog';
import type { SavePlan } from './SaveDialog';
import { PipelinePanel } from './PipelinePanel';
import { initialState, pipelineIndexes, pipelineName, reducer } from './state';
import type { EditorState, Selection } from './state';
import { TaskNode, templateAbbrev } from './TaskNode';
import type { TaskFlowNode } from './TaskNode';
import { TaskPanel } from './TaskPanel';
import { YamlTab } from './YamlTab';
import { t as tr, useT } from '../i18n';

const nodeTypes = { task: TaskNode };

function newPipelineText(): string {
  const d = new Date();
  const start = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString().replace('.000Z', 'Z');
  return printValues(
    [
      {
        apiVersion: kApiVersion,
        kind: 'Pipeline',
        metadata: { name: 'new-pipeline' },
        // catchup: false: a new schedule starts from now; the start date is today's, and catching
        // up would give every tick of today a run at the first save.
        spec: { schedule: { cron: '0 3 * * *', start, catchup: false }, tasks: [] },
      },
    ],
    'A new pipeline: drag task templates onto the canvas and connect them.',
  );
}

interface Validation {
  text: string;
  errors: LocatedError[];
  warnings: LocatedError[]; // valid, but the cluster can never hold it (amber)
  summaries: PipelineSummary[];
  failed?: string; // the dry run itself could not be made
}

export default function EditorPage({ name }: { name: string | null }) {
  useT(); // drawn again in the other language when the navigation switches it
  const route = useRoute();
  useEffect(() => {
    if (name === null) navigate(href('editor', sessionStorage.getItem('gantry.editor.last') ?? 'new'), true);
    else if (name !== 'new') sessionStorage.setItem('gantry.editor.last', name);
  }, [name]);
  if (name === null) return null;
  return (
    <ReactFlowProvider>
      <Editor key={name + (route.query.get('draft') ? ':draft' : '')} name={name} />
    </ReactFlowProvider>
  );
}

function Editor({ name }: { name: string }) {
  const isNew = name === 'new';
  const toast = useToast();
  const detail = useResource<PipelineDetail>(isNew ? null : `/pipelines/${enc(name)}`);
  const pools = useResource<{ pools: Pool[] }>('/pools');
  const draft = useRef<Draft | null>(isNew ? takeDraft() : null);
  const [state, dispatch] = useReducer(reducer, undefined, () =>
    isNew
      ? initialState(draft.current?.text ?? newPipelineText(), draft.current?.positions && { direction: 'LR', positions: draft.current.positions })
      : initialState(peek<PipelineDetail>(`/pipelines/${enc(name)}`)?.yaml ?? '', savedLayout(name), name),
  );
  const [loaded, setLoaded] = useState<boolean>(isNew || !!peek<PipelineDetail>(`/pipelines/${enc(name)}`));
  const [savedText, setSavedText] = useState<string>(isNew ? '' : (peek<PipelineDetail>(`/pipelines/${enc(name)}`)?.yaml ?? ''));
  const [tab, setTab] = useState<'graph' | 'yaml'>('graph');
  const [validation, setValidation] = useState<Validation | null>(null);
  const [busy, setBusy] = useState<'save' | 'trigger' | null>(null);
  const canWrite = useCanWrite();
  const [importing, setImporting] = useState(false);
  // The plans a save waits on the user's word for (SaveDialog), and its "start now" box.
  const [confirming, setConfirming] = useState<SavePlan[] | null>(null);
  const [startNow, setStartNow] = useState(false);

  useEffect(() => {
    if (!isNew && !loaded && detail.data) {
      dispatch({ type: 'load', text: detail.data.yaml, layout: savedLayout(name), active: name });
      setSavedText(detail.data.yaml);
      setLoaded(true);
    }
  }, [detail.data, isNew, loaded, name]);

  // ---- validation: client checks at once, the server's dry run shortly after ----
  const text = state.bundle.text;
  const parseOk = state.yamlProblems.length === 0;
  const clientErrors: LocatedError[] = useMemo(() => {
    const out: LocatedError[] = [];
    state.bundle.docs.forEach((d, i) => {
      if (isPlainObject(d.value) && d.value.kind === 'Pipeline') out.push(...locateErrors(checkPipeline(d.value), { ...state.bundle, docs: [d] }).map((e) => ({ ...e, doc: i })));
    });
    // On their lines in the YAML tab too.
    return withLines(out, state.bundle);
  }, [state.bundle]);
  // The server is asked about every text that parses, whatever the browser's own checks found:
  // all the problems of a document show at once, the browser's merged with the server's.
  const askServer = loaded && parseOk && !!text.trim();
  // A dry run that could not be made (the server was unreachable) is made again when contact is
  // back (api/connection.ts).
  const [retries, setRetries] = useState(0);
  useEffect(() => connection.onRecovered(() => setRetries((n) => n + 1)), []);
  useEffect(() => {
    if (!askServer) return;
    const controller = new AbortController();
    const timer = window.setTimeout(async () => {
      try {
        const r = await api<ApplyResult>('/pipelines?dryRun=true', { method: 'POST', yaml: text, signal: controller.signal });
        setValidation({ text, errors: [], warnings: locateWarnings(r.warnings ?? [], state.bundle), summaries: r.pipelines ?? [] });
      } catch (e) {
        if ((e as Error).name === 'AbortError') return;
        const err = e as ApiError;
        if (err.validation) setValidation({ text, errors: withLines(locateErrors(err.validation, state.bundle), state.bundle), warnings: locateWarnings(err.body?.warnings ?? [], state.bundle), summaries: [] });
        else setValidation({ text, errors: [], warnings: [], summaries: [], failed: err.message });
      }
    }, 600);
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
    // state.bundle changes with text
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text, askServer, retries]);

  const serverCurrent = validation && validation.text === text && !validation.failed;
  const errors: LocatedError[] = useMemo(() => (serverCurrent ? mergeErrors(validation!.errors, clientErrors) : clientErrors), [serverCurrent, validation, clientErrors]);
  const warnings: LocatedError[] = useMemo(() => (serverCurrent ? validation!.warnings : []), [serverCurrent, validation]);
  const grouped = useMemo(() => groupErrors(errors, state.active), [errors, state.active]);
  const groupedWarnings = useMemo(() => groupErrors(warnings, state.active), [warnings, state.active]);

  const active = state.active;
  const activeValue = active >= 0 ? (state.bundle.docs[active].value as Record<string, unknown>) : null;
  const activeName = active >= 0 ? pipelineName(state.bundle, active) : '';
  const dirty = text !== savedText;
  const pipelines = pipelineIndexes(state.bundle);

  // Remember the arrangement of the nodes, by task name.
  useEffect(() => {
    if (!activeName) return;
    const t = window.setTimeout(() => {
      const byName: Record<string, { x: number; y: number }> = {};
      for (const n of state.graph.nodes) if (state.positions[n.uid]) byName[String(n.task.name)] = state.positions[n.uid];
      saveLayout(activeName, { direction: state.direction, positions: byName });
    }, 500);
    return () => window.clearTimeout(t);
  }, [state.positions, state.graph, state.direction, activeName]);

  // Undo / redo from the keyboard, outside text fields.
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (el.closest('input, textarea, select, [contenteditable]')) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'z') {
        e.preventDefault();
        dispatch({ type: e.shiftKey ? 'redo' : 'undo' });
      } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'y') {
        e.preventDefault();
        dispatch({ type: 'redo' });
      }
    };
    window.addEventListener('keydown', f);
    return () => window.removeEventListener('keydown', f);
  }, []);

  // Unsaved changes: asked about before leaving, in the app (router.ts) and the browser.
  useEffect(() => {
    if (!dirty) return;
    const f = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', f);
    const removeGuard = setLeaveGuard(() => 'The editor has unsaved changes. Leave and lose them?');
    return () => {
      window.removeEventListener('beforeunload', f);
      removeGuard();
    };
  }, [dirty]);

  // ---- save and trigger ----
  const save = useCallback(async (start = false): Promise<boolean> => {
    if (!parseOk) {
      toast('error', tr('ed.noParse'));
      return false;
    }
    setBusy('save');
    try {
      // New pipelines start paused unless the user said otherwise (SaveDialog).
      const r = await api<ApplyResult>(`/pipelines?paused=${start ? 'false' : 'true'}`, { method: 'POST', yaml: text });
      setSavedText(text);
      setValidation((v) => ({ text, errors: [], warnings: v?.text === text ? v.warnings : [], summaries: r.pipelines ?? [] }));
      for (const p of r.pipelines ?? []) {
        mutate<{ pipelines: PipelineSummary[] }>('/pipelines', (old) =>
          old ? { pipelines: [...old.pipelines.filter((x) => x.name !== p.name), p].sort((a, b) => a.name.localeCompare(b.name)) } : old,
        );
        mutate<PipelineDetail>(`/pipelines/${enc(p.name)}`, (old) => ({ ...(old ?? { spec: null }), ...p, yaml: text }) as PipelineDetail);
      }
      const paused = (r.pipelines ?? []).filter((p) => p.schedule && p.paused).map((p) => p.name);
      toast(
        'ok',
        tr('ed.saved', {
          names: (r.pipelines ?? []).map((p) => p.name).join(', ') || tr('ed.thePipeline'),
          pools: r.pools?.length ? tr('ed.andPools', { n: r.pools.length }) : '',
          paused: paused.length ? tr('ed.pausedNote', { names: paused.join(', ') }) : '',
        }),
      );
      if (activeName && activeName !== name) navigate(href('editor', activeName), true);
      return true;
    } catch (e) {
      const err = e as ApiError;
      if (err.validation) {
        setValidation({ text, errors: withLines(locateErrors(err.validation, state.bundle), state.bundle), warnings: [], summaries: [] });
        toast('error', tr('ed.notSavedProblems', { count: err.validation.length }));
      } else toast('error', tr('ed.notSaved', { message: actionError(e) }));
      return false;
    } finally {
      setBusy(null);
    }
  }, [parseOk, text, toast, activeName, name, state.bundle]);

  // Save, or first ask (SaveDialog) when it would create a scheduled pipeline or start runs of
  // one: saving never starts a schedule or its backlog silently. Needs the dry run of this text.
  const requestSave = useCallback(async (): Promise<boolean> => {
    if (!serverCurrent) return save(false);
    const known = new Set((peek<{ pipelines: PipelineSummary[] }>('/pipelines')?.pipelines ?? []).map((p) => p.name));
    const plans: SavePlan[] = validation!.summaries.map((s) => ({ summary: s, isNew: !known.has(s.name) }));
    if (plansToConfirm(plans).length === 0) return save(false);
    setStartNow(false);
    setConfirming(plans);
    return false;
  }, [serverCurrent, validation, save]);

  const trigger = useCallback(async () => {
    if (!activeName) return;
    if (dirty && !(await save())) return;
    setBusy('trigger');
    try {
      const run = await api<Run>(`/pipelines/${enc(activeName)}/trigger`, { method: 'POST' });
      toast(
        'ok',
        <>
          {tr('runs.created', { time: fmtTime(run.logicalTime) })} <a href={href('runs', activeName) + `?run=${enc(run.logicalTime)}`}>{tr('ed.openRuns')}</a>
        </>,
      );
    } catch (e) {
      toast('error', actionError(e));
    } finally {
      setBusy(null);
    }
  }, [activeName, dirty, save, toast]);

  const exportYaml = () => {
    const blob = new Blob([text], { type: 'application/yaml' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${activeName || 'pipeline'}.yaml`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  const serverTicks = useMemo(() => {
    if (!serverCurrent) return null;
    const s = validation!.summaries.find((p) => p.name === activeName);
    return s && s.schedule ? s.nextTicks : null;
  }, [serverCurrent, validation, activeName]);

  const poolNames = useMemo(() => {
    const fromFile = state.bundle.docs.filter((d) => isPlainObject(d.value) && d.value.kind === 'Pool').map((d) => String(((d.value as Record<string, unknown>).metadata as Record<string, unknown>)?.name ?? ''));
    return [...new Set([...(pools.data?.pools.map((p) => p.name) ?? []), ...fromFile])];
  }, [pools.data, state.bundle]);

  // A template added from the palette without dragging (Enter on it, or a double-click): at a
  // free spot near the top of the visible canvas, selected, shown and focused, so that keyboard
  // users go on from it.
  const flow = useReactFlow();
  const [focusUid, setFocusUid] = useState<string | null>(null);
  const addFromPalette = (t: TemplateName) => {
    const uid = `n${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
    let preferred = { x: 0, y: 0 };
    const pane = document.querySelector('[data-testid=canvas]');
    if (pane) {
      const r = pane.getBoundingClientRect();
      const c = flow.screenToFlowPosition({ x: r.left + r.width / 2, y: r.top + r.height / 3 });
      preferred = { x: Math.round(c.x - kNodeWidth / 2), y: Math.round(c.y - kNodeHeight / 2) };
    }
    const taken = state.graph.nodes.map((n) => ({ ...(state.positions[n.uid] ?? { x: 0, y: 0 }), width: kNodeWidth, height: kNodeHeight }));
    const spot = freeSpot(taken, preferred, kNodeWidth, kNodeHeight);
    setTab('graph');
    dispatch({ type: 'graph', update: (g) => addTask(g, newTask(g, t), uid), select: { kind: 'task', uid } });
    dispatch({ type: 'positions', positions: { ...state.positions, [uid]: spot } });
    setFocusUid(uid);
  };
  useEffect(() => {
    if (!focusUid) return;
    const id = window.requestAnimationFrame(() => {
      const el = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(focusUid)}"]`);
      const pos = state.positions[focusUid];
      if (pos) void flow.setCenter(pos.x + kNodeWidth / 2, pos.y + kNodeHeight / 2, { zoom: flow.getZoom(), duration: 150 });
      el?.focus();
      setFocusUid(null);
    });
    return () => window.cancelAnimationFrame(id);
  }, [focusUid, state.positions, flow]);

  if (!loaded) return <EditorSkeleton error={detail.error?.message} />;

  return (
    <div className="page full">
      <div className="editor-bar">
        <div className="title">
          <b data-testid="editor-title">{activeName || (isNew ? tr('ed.newPipeline') : name)}</b>
          <span className="small muted">
            {isNew && !savedText ? tr('ed.notSavedYet') : dirty ? tr('ed.unsaved') : tr('ed.savedState')} · {tr('ed.tasks', { count: state.graph.nodes.length })}
          </span>
        </div>
        {pipelines.length > 1 && (
          <select className="input" style={{ width: 200 }} value={active} onChange={(e) => dispatch({ type: 'active', index: Number(e.target.value) })} aria-label={tr('ed.pipelineOfFile')}>
            {pipelines.map((i) => (
              <option key={i} value={i}>
                {pipelineName(state.bundle, i)}
              </option>
            ))}
          </select>
        )}
        <ValidationChip parseProblems={state.yamlProblems.length} errors={errors.length} warnings={warnings.length} current={!!serverCurrent} failed={validation?.text === text ? validation?.failed : undefined} />
        <div className="actions">
          <button className="btn ghost sm" onClick={() => dispatch({ type: 'undo' })} disabled={!state.undo.length} title={tr('ed.undoTitle')}>
            {tr('ed.undo')}
          </button>
          <button className="btn ghost sm" onClick={() => dispatch({ type: 'redo' })} disabled={!state.redo.length} title={tr('ed.redoTitle')}>
            {tr('ed.redo')}
          </button>
          <button className="btn" onClick={() => setImporting(true)} disabled={!canWrite} title={canWrite ? tr('pipelines.importTitle') : readOnlyHint()}>
            <IconUpload /> {tr('ed.import')}
          </button>
          <button className="btn" onClick={exportYaml} title={tr('ed.exportTitle')}>
            <IconDownload /> {tr('ed.export')}
          </button>
          <button className={`btn ${busy === 'save' ? 'busy' : ''}`} onClick={() => void requestSave()} disabled={!!busy || (!dirty && !isNew) || !canWrite} title={canWrite ? undefined : readOnlyHint()} data-testid="save">
            <IconSave /> {tr('ed.save')}
          </button>
          <button className={`btn primary ${busy === 'trigger' ? 'busy' : ''}`} onClick={() => void trigger()} disabled={!!busy || !activeName || !canWrite} title={canWrite ? undefined : readOnlyHint()} data-testid="trigger">
            <IconPlay /> {dirty ? tr('ed.saveTrigger') : tr('common.trigger')}
          </button>
        </div>
      </div>
      {!canWrite && (
        <div data-testid="editor-read-only">
          <Banner kind="info">{tr('ed.readOnly')}</Banner>
        </div>
      )}
      <div className="editor">
        <Palette readOnly={!canWrite} onAdd={addFromPalette} />
        <div className="canvas-wrap">
          <div className="canvas-tabs" role="tablist">
            <button className={tab === 'graph' ? 'on' : ''} onClick={() => setTab('graph')} role="tab" aria-selected={tab === 'graph'} data-testid="tab-graph">
              <IconGraph width={15} height={15} /> {tr('ed.graph')}
            </button>
            <button className={tab === 'yaml' ? 'on' : ''} onClick={() => setTab('yaml')} role="tab" aria-selected={tab === 'yaml'} data-testid="tab-yaml">
              <IconCode width={15} height={15} /> YAML {state.yamlProblems.length > 0 && <span className="count">{state.yamlProblems.length}</span>}
            </button>
          </div>
          {tab === 'graph' ? (
            <Canvas state={state} dispatch={dispatch} grouped={grouped} warned={groupedWarnings} />
          ) : (
            <YamlTab
              text={state.yamlText}
              problems={state.yamlProblems}
              serverLines={errors.filter((e) => e.line).map((e) => ({ line: e.line!, column: e.column, message: e.message }))}
              problemCount={errors.length}
              warnLines={warnings.filter((e) => e.line).map((e) => ({ line: e.line!, column: e.column, message: e.message }))}
              docs={state.bundle.docs.length}
              onChange={(t) => dispatch({ type: 'yaml', text: t })}
            />
          )}
          <Problems state={state} errors={[...errors, ...warnings]} onPick={(sel) => {
            setTab('graph');
            dispatch({ type: 'select', selection: sel });
          }} />
        </div>
        <aside className="side" aria-label="Properties">
          {activeValue && state.selection.kind === 'task' ? (
            <SelectedTask state={state} dispatch={dispatch} grouped={grouped} warned={groupedWarnings} pools={poolNames} />
          ) : activeValue ? (
            <PipelinePanel
              value={activeValue}
              errors={grouped.pipeline}
              serverTicks={serverTicks}
              otherDocs={state.bundle.docs
                .map((d, i) => (i === active || !isPlainObject(d.value) ? '' : `${String(d.value.kind)} ${String((d.value.metadata as Record<string, unknown>)?.name ?? '')}`))
                .filter(Boolean)}
              onChange={(v) => dispatch({ type: 'pipeline', update: () => v })}
            />
          ) : (
            <div className="empty">
              <h2>{tr('ed.noPipeline')}</h2>
              <div>{state.yamlProblems.length ? tr('ed.yamlNoParse') : tr('ed.noPipelineDoc')}</div>
            </div>
          )}
        </aside>
      </div>
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
      {confirming && (
        <SaveDialog
          plans={confirming}
          start={startNow}
          setStart={setStartNow}
          busy={busy === 'save'}
          onClose={() => setConfirming(null)}
          onConfirm={() => void save(startNow).then((ok) => ok && setConfirming(null))}
        />
      )}
    </div>
  );
}

function newTask(g: { nodes: { task: Record<string, unknown> }[] }, t: TemplateName): Record<string, unknown> {
  const info = templateInfo(t);
  const base = { container: 'task', pytorchjob: 'train', tfjob: 'tf-train', mpijob: 'mpi-train', xgboostjob: 'xgboost', rayjob: 'ray', sparkjob: 'spark' }[t];
  const task: Record<string, unknown> = { name: uniqueName(g as never, base) };
  if (t !== 'container') task.template = t;
  task.image = info.image;
  if (info.command) task.command = [...info.command];
  if (info.replicas) task.replicas = { ...info.replicas };
  if (info.resources) task.resources = { ...info.resources };
  return task;
}

function ValidationChip({ parseProblems, errors, warnings, current, failed }: { parseProblems: number; errors: number; warnings: number; current: boolean; failed?: string }) {
  if (parseProblems) return <span className="tag danger"><IconAlert width={13} height={13} style={{ marginRight: 4 }} />{tr('ed.chipNoParse')}</span>;
  if (errors) return <span className="tag danger" data-testid="validation" data-errors={errors}>{tr('ed.problems', { count: errors })}{warnings ? ` · ${tr('ed.warnings', { count: warnings })}` : ''}</span>;
  if (failed)
    return (
      <span className="tag warn" title={failed} data-testid="validation" data-failed="true">
        {tr('ed.notValidated')}
      </span>
    );
  if (!current) return <span className="tag" data-testid="validation">{tr('ed.validating')}</span>;
  if (warnings)
    return (
      <span className="tag warn" data-testid="validation" data-valid="true" data-warnings={warnings} title={tr('ed.validWarnTitle')}>
        {tr('ed.valid')} · {tr('ed.warnings', { count: warnings })}
      </span>
    );
  return (
    <span className="tag accent" data-testid="validation" data-valid="true">
      <IconCheck width={13} height={13} style={{ marginRight: 4 }} />
      {tr('ed.valid')}
    </span>
  );
}

function EditorSkeleton({ error }: { error?: string }) {
  return (
    <div className="page full">
      <div className="editor-bar">
        <Skeleton w={220} h={22} />
      </div>
      <div className="editor">
        <div className="palette">{Array.from({ length: 7 }, (_, i) => <Skeleton key={i} h={48} />)}</div>
        <div className="canvas-wrap" style={{ alignItems: 'center', justifyContent: 'center' }}>
          {error ? <div className="banner error">Could not load the pipeline: {error}</div> : <Skeleton w="60%" h={180} />}
        </div>
        <div className="side" style={{ padding: 16 }}>
          {Array.from({ length: 8 }, (_, i) => <Skeleton key={i} h={30} style={{ marginBottom: 12 }} />)}
        </div>
      </div>
    </div>
  );
}

// `readOnly` (a viewer's token): the templates are shown but cannot be dragged, so a viewer
// does not start a pipeline it could not save.
function Palette({ onAdd, readOnly }: { onAdd: (t: TemplateName) => void; readOnly: boolean }) {
  return (
    <div className="palette" aria-label={tr('ed.templates')}>
      <h3>{tr('ed.templates')}</h3>
      {kTemplates.map((t) => (
        <div
          key={t.name}
          className="palette-item"
          draggable={!readOnly}
          aria-disabled={readOnly}
          role="button"
          tabIndex={readOnly ? -1 : 0}
          aria-label={tr('ed.addTemplate', { label: t.label })}
          onKeyDown={(e) => {
            if (readOnly || (e.key !== 'Enter' && e.key !== ' ')) return;
            e.preventDefault();
            onAdd(t.name);
          }}
          style={readOnly ? { opacity: 0.55, cursor: 'not-allowed' } : undefined}
          data-template={t.name}
          onDragStart={(e) => {
            if (readOnly) return e.preventDefault();
            e.dataTransfer.setData('application/gantry-template', t.name);
            e.dataTransfer.effectAllowed = 'copy';
          }}
          onDoubleClick={() => !readOnly && onAdd(t.name)}
          title={readOnly ? readOnlyHint() : tr('ed.dragHint')}
        >
          <div className="tpl-icon" style={{ background: t.accent }}>
            {templateAbbrev(t.name)}
          </div>
          <div style={{ minWidth: 0 }}>
            <b>{t.label}</b>
            <span>{templateBlurb(t.name)}</span>
          </div>
        </div>
      ))}
      <div className="tip">{tr('ed.paletteTip')}</div>
    </div>
  );
}

function Canvas({ state, dispatch, grouped, warned }: { state: EditorState; dispatch: React.Dispatch<import('./state').Action>; grouped: ReturnType<typeof groupErrors>; warned: ReturnType<typeof groupErrors> }) {
  const flow = useReactFlow();
  const [notice, setNotice] = useState<{ text: string; kind: 'error' | 'info' } | null>(null);
  const refusal = useRef<string | null>(null);
  const noticeTimer = useRef<number | null>(null);
  const show = useCallback((text: string, kind: 'error' | 'info' = 'error') => {
    setNotice({ text, kind });
    if (noticeTimer.current) window.clearTimeout(noticeTimer.current);
    noticeTimer.current = window.setTimeout(() => setNotice(null), 4000);
  }, []);

  // Fit when asked (load, auto-layout, direction), not on every change: `flow` is not stable.
  // Never below the zoom at which node text is 10 px (model/viewport.ts): a larger graph is
  // shown from its start and scrolled.
  const flowRef = useRef(flow);
  flowRef.current = flow;
  const paneRef = useRef<HTMLDivElement>(null);
  const fit = useCallback(() => {
    const el = paneRef.current;
    const all = flowRef.current.getNodes();
    if (!el || !all.length) return;
    void flowRef.current.setViewport(readableFit(flowRef.current.getNodesBounds(all), el.clientWidth, el.clientHeight), { duration: 200 });
  }, []);
  const hasNodes = state.graph.nodes.length > 0;
  useEffect(() => {
    if (!hasNodes) return; // an empty canvas keeps its viewport, so drops land where they are made
    const t = window.setTimeout(fit, 50);
    return () => window.clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.fitRequest]);

  const cycles = useMemo(() => nodesOnCycles(state.graph), [state.graph]);
  const selectedUid = state.selection.kind === 'task' ? state.selection.uid : null;

  // Node objects are cached per task so that dragging one of 500 nodes re-renders one.
  const cache = useRef(new Map<string, { key: unknown[]; node: TaskFlowNode }>());
  const nodes = useMemo(() => {
    const next = new Map<string, { key: unknown[]; node: TaskFlowNode }>();
    const list = state.graph.nodes.map((n, i) => {
      const errs = grouped.byTask.get(i)?.length ?? 0;
      const warns = warned.byTask.get(i)?.length ?? 0;
      const pos = state.positions[n.uid] ?? { x: 0, y: 0 };
      const key = [n.task, errs, warns, cycles.has(n.uid), n.uid === selectedUid, pos.x, pos.y, state.direction];
      const old = cache.current.get(n.uid);
      const node =
        old && old.key.every((k, j) => k === key[j])
          ? old.node
          : ({ id: n.uid, type: 'task', position: pos, selected: n.uid === selectedUid, data: { task: n.task, errors: errs, warnings: warns, onCycle: cycles.has(n.uid), direction: state.direction }, width: kNodeWidth, height: kNodeHeight } as TaskFlowNode);
      next.set(n.uid, { key, node });
      return node;
    });
    cache.current = next;
    return list;
  }, [state.graph, state.positions, state.direction, grouped, warned, cycles, selectedUid]);

  const edges: Edge[] = useMemo(() => {
    const index = new Map(state.graph.nodes.map((n, i) => [n.uid, i]));
    return edgesOf(state.graph).map((e) => {
      const bad = grouped.byEdge.has(`${index.get(e.target)}:${e.index}`) || (cycles.has(e.source) && cycles.has(e.target));
      return {
        id: e.id,
        source: e.source,
        target: e.target,
        data: { index: e.index },
        className: bad ? 'error-edge' : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: bad ? '#dc3545' : '#8d97ad' },
        style: { stroke: bad ? '#dc3545' : '#8d97ad', strokeWidth: 1.6 },
      };
    });
  }, [state.graph, grouped, cycles]);

  const onNodesChange = useCallback(
    (changes: NodeChange<TaskFlowNode>[]) => {
      let positions: typeof state.positions | null = null;
      for (const c of changes) {
        if (c.type === 'position' && c.position) {
          positions ??= { ...state.positions };
          positions[c.id] = { x: Math.round(c.position.x), y: Math.round(c.position.y) };
        }
      }
      if (positions) dispatch({ type: 'positions', positions });
    },
    [state.positions, dispatch],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const removed = changes.filter((c) => c.type === 'remove').map((c) => edges.find((e) => e.id === c.id)).filter((e): e is Edge => !!e);
      if (!removed.length) return;
      // Highest dependsOn index first, so the others stay valid.
      removed.sort((a, b) => (b.data!.index as number) - (a.data!.index as number));
      dispatch({ type: 'graph', update: (g) => removed.reduce((acc, e) => removeEdge(acc, { target: e.target, index: e.data!.index as number }), g) });
    },
    [edges, dispatch],
  );

  const isValidConnection: IsValidConnection = useCallback(
    (c) => {
      const r = checkConnection(state.graph, c.source, c.target);
      refusal.current = r.ok ? null : connectionMessage(r, tr);
      return r.ok;
    },
    [state.graph],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      const r = checkConnection(state.graph, c.source, c.target);
      if (!r.ok) {
        show(connectionMessage(r, tr));
        return;
      }
      dispatch({ type: 'graph', update: (g) => addEdge(g, c.source, c.target) });
    },
    [state.graph, dispatch, show],
  );

  const onConnectEnd = useCallback(
    (_: MouseEvent | TouchEvent, s: FinalConnectionState) => {
      if (!s.isValid && s.toNode && refusal.current) show(refusal.current);
      refusal.current = null;
    },
    [show],
  );

  const onDrop = useCallback(
    (e: React.DragEvent) => {
      const t = e.dataTransfer.getData('application/gantry-template') as TemplateName;
      if (!t) return;
      e.preventDefault();
      const p = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      const uid = `n${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
      dispatch({
        type: 'graph',
        update: (g) => addTask(g, newTask(g, t), uid),
        select: { kind: 'task', uid },
      });
      dispatch({ type: 'positions', positions: { ...state.positions, [uid]: { x: Math.round(p.x - kNodeWidth / 2), y: Math.round(p.y - kNodeHeight / 2) } } });
    },
    [flow, dispatch, state.positions],
  );

  const empty = state.graph.nodes.length === 0;
  return (
    <div className="canvas" onDragOver={(e) => {
      if (e.dataTransfer.types.includes('application/gantry-template')) {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }
    }} onDrop={onDrop} data-testid="canvas" ref={paneRef}>
      <ReactFlow<TaskFlowNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        isValidConnection={isValidConnection}
        onNodeClick={(_, n) => dispatch({ type: 'select', selection: { kind: 'task', uid: n.id } })}
        onPaneClick={() => dispatch({ type: 'select', selection: { kind: 'pipeline' } })}
        onNodesDelete={(ns) => dispatch({ type: 'graph', update: (g) => removeTasks(g, new Set(ns.map((n) => n.id))), select: { kind: 'pipeline' } })}
        deleteKeyCode={['Delete', 'Backspace']}
        minZoom={0.1}
        maxZoom={2}
        onlyRenderVisibleElements={state.graph.nodes.length > 150}
        proOptions={{ hideAttribution: true }}
        defaultEdgeOptions={{ type: 'default' }}
        connectionRadius={28}
        panOnScroll
        zoomOnScroll={false}
      >
        <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} color="#cdd3df" />
        <Controls showInteractive={false} showFitView={false} position="bottom-left" />
        {state.graph.nodes.length > 12 && <MiniMap pannable zoomable position="bottom-right" nodeColor={(n) => templateInfo((n.data as { task: Record<string, unknown> }).task.template ?? 'container').accent} />}
      </ReactFlow>
      <div className="flow-tools">
        <button className="btn sm" onClick={() => dispatch({ type: 'layout' })} title={tr('ed.layoutTitle')} data-testid="auto-layout">
          <IconLayout /> {tr('ed.layout')}
        </button>
        <div className="segmented" role="radiogroup" aria-label={tr('ed.direction')} style={{ boxShadow: 'var(--shadow)' }}>
          <button className={state.direction === 'LR' ? 'on' : ''} onClick={() => dispatch({ type: 'direction', direction: 'LR' })} role="radio" aria-checked={state.direction === 'LR'} title={tr('ed.lr')} aria-label={tr('ed.lr')}>
            <IconArrowRight width={14} height={14} style={{ verticalAlign: -2 }} />
          </button>
          <button className={state.direction === 'TB' ? 'on' : ''} onClick={() => dispatch({ type: 'direction', direction: 'TB' })} role="radio" aria-checked={state.direction === 'TB'} title={tr('ed.tb')} aria-label={tr('ed.tb')}>
            <IconArrowDown width={14} height={14} style={{ verticalAlign: -2 }} />
          </button>
        </div>
        <button className="btn sm" onClick={fit} title={tr('ed.fitTitle')} data-testid="fit-view">
          <IconFit /> {tr('ed.fit')}
        </button>
      </div>
      {empty && (
        <div className="canvas-hint">
          <div>
            <b>{tr('ed.dropHere')}</b>
            <div className="small">{tr('ed.fromPalette')}</div>
          </div>
        </div>
      )}
      {notice && (
        <div className={`canvas-toast ${notice.kind}`} role="alert" data-testid="canvas-notice">
          {notice.text}
        </div>
      )}
    </div>
  );
}

function SelectedTask({ state, dispatch, grouped, warned, pools }: { state: EditorState; dispatch: React.Dispatch<import('./state').Action>; grouped: ReturnType<typeof groupErrors>; warned: ReturnType<typeof groupErrors>; pools: string[] }) {
  const uid = (state.selection as { uid: string }).uid;
  const index = state.graph.nodes.findIndex((n) => n.uid === uid);
  if (index < 0) return null;
  const node = state.graph.nodes[index];
  const nameOf = new Map(state.graph.nodes.map((n) => [n.uid, String(n.task.name ?? '')]));
  const upstream = node.deps.map((d, i) => ('uid' in d ? { name: nameOf.get(d.uid) ?? '?', index: i, dangling: false } : { name: d.dangling, index: i, dangling: true }));
  const warnings = warned.byTask.get(index) ?? [];
  return (
    <>
      {warnings.length > 0 && (
        <div className="task-warnings" data-testid="task-warnings">
          <Banner kind="warn">
            {warnings.map((w, i) => (
              <div key={i}>
                {w.line ? `line ${w.line}: ` : ''}
                {w.message}
              </div>
            ))}
          </Banner>
        </div>
      )}
      <TaskPanel
      key={uid}
      task={node.task}
      errors={grouped.byTask.get(index)}
      upstream={upstream}
      pools={pools}
      onChange={(task) => dispatch({ type: 'graph', update: (g) => updateTask(g, uid, task) })}
      onDelete={() => dispatch({ type: 'graph', update: (g) => removeTasks(g, new Set([uid])), select: { kind: 'pipeline' } })}
      onRemoveUpstream={(i) => dispatch({ type: 'graph', update: (g) => removeEdge(g, { target: uid, index: i }) })}
      />
    </>
  );
}

function Problems({ state, errors, onPick }: { state: EditorState; errors: LocatedError[]; onPick: (s: Selection) => void }) {
  if (!errors.length) return null;
  const name = (doc: number) => {
    const v = state.bundle.docs[doc]?.value;
    return isPlainObject(v) ? `${String(v.kind)} ${String((v.metadata as Record<string, unknown>)?.name ?? '')}` : `document ${doc + 1}`;
  };
  return (
    <div className="problems" data-testid="problems">
      {errors.map((e, i) => {
        const t = e.target;
        const taskUid = (t.kind === 'task' || t.kind === 'edge') && e.doc === state.active ? state.graph.nodes[t.task]?.uid : undefined;
        return (
          <div key={i} className={`p ${e.severity === 'warning' ? 'warning' : ''}`} data-severity={e.severity ?? 'error'} onClick={() => (taskUid ? onPick({ kind: 'task', uid: taskUid }) : onPick({ kind: 'pipeline' }))}>
            <span className="where">
              {e.line ? `${e.line}:${e.column ?? 0}` : ''} {e.doc !== state.active && state.bundle.docs.length > 1 ? name(e.doc) + ' ' : ''}
              {e.path || ''}
            </span>
            <span className="msg">{e.message}</span>
          </div>
        );
      })}
    </div>
  );
}
