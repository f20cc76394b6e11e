import { Fragment, memo, useEffect, useMemo, useRef, useState } from 'react';
import { t as tr } from '../i18n';

// The YAML tab: a plain textarea over a highlighted copy of its text (comments, keys, strings,
// numbers, document markers), with line numbers and the lines that have problems marked. The
// textarea stays the editing surface, so typing, selection and undo are the browser's own.

interface Problem {
  line: number;
  column?: number;
  message: string;
}

function highlightLine(line: string) {
  const out: React.ReactNode[] = [];
  let rest = line;
  if (/^---\s*$|^\.\.\.\s*$/.test(rest)) return <span className="y-doc">{rest}</span>;
  const key = /^(\s*(?:-\s+)?)((?:"[^"]*"|'[^']*'|[^\s#'"{}[\],][^:#]*?))(:)(?=\s|$)/.exec(rest);
  if (key) {
    out.push(key[1].includes('-') ? <span key="d" className="y-dash">{key[1]}</span> : key[1]);
    out.push(<span key="k" className="y-key">{key[2]}</span>);
    out.push(<span key="c" className="y-punct">{key[3]}</span>);
    rest = rest.slice(key[0].length);
  } else {
    const dash = /^(\s*-\s)/.exec(rest);
    if (dash) {
      out.push(<span key="d" className="y-dash">{dash[1]}</span>);
      rest = rest.slice(dash[1].length);
    }
  }
  // value and trailing comment
  const re = /("(?:[^"\\]|\\.)*"|'[^']*')|(\s#.*$|^#.*$)|((?<=^|[\s{[,]|:\s)(?:true|false|null|-?\d+(?:\.\d+)?)(?=$|[\s,}\]]))|((?<=[{,]\s*)[A-Za-z_][\w.-]*(?=:\s))|([{}[\],])/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let i = 0;
  while ((m = re.exec(rest))) {
    if (m.index > last) out.push(rest.slice(last, m.index));
    const cls = m[1] ? 'y-str' : m[2] ? 'y-comment' : m[3] ? 'y-num' : m[4] ? 'y-key' : 'y-punct';
    out.push(
      <span key={`v${i++}`} className={cls}>
        {m[0]}
      </span>,
    );
    last = m.index + m[0].length;
    if (m[2]) break;
  }
  if (last < rest.length) out.push(rest.slice(last));
  return out;
}

const Highlighted = memo(function Highlighted({ text, bad, warn }: { text: string; bad: Set<number>; warn: Set<number> }) {
  const lines = text.split('\n');
  return (
    <>
      {lines.map((l, i) => (
        <Fragment key={i}>
          <div className={bad.has(i + 1) ? 'y-line y-bad' : warn.has(i + 1) ? 'y-line y-warn' : 'y-line'}>{l === '' ? ' ' : highlightLine(l)}</div>
        </Fragment>
      ))}
    </>
  );
});

export function YamlTab({
  text,
  problems,
  serverLines,
  problemCount,
  warnLines,
  docs,
  onChange,
}: {
  text: string;
  problems: Problem[];
  serverLines: Problem[]; // the problems of the document that have a line (browser's and server's)
  problemCount: number; // all its problems, with a line or not
  warnLines: Problem[]; // the dry run's warnings
  docs: number;
  onChange: (t: string) => void;
}) {
  const [local, setLocal] = useState(text);
  const timer = useRef<number | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  useEffect(() => setLocal(text), [text]);
  const bad = useMemo(() => new Set([...problems, ...serverLines].map((p) => p.line)), [problems, serverLines]);
  const warn = useMemo(() => new Set(warnLines.map((p) => p.line)), [warnLines]);
  const lineCount = local.split('\n').length;
  const sync = () => {
    const a = area.current;
    if (!a) return;
    if (layer.current) layer.current.style.transform = `translate(${-a.scrollLeft}px, ${-a.scrollTop}px)`;
    if (gutter.current) gutter.current.style.transform = `translateY(${-a.scrollTop}px)`;
  };
  const commit = (v: string, delay = 300) => {
    setLocal(v);
    if (timer.current) window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => onChange(v), delay);
  };
  const first = problems[0] ?? serverLines[0];
  return (
    <div className="yaml-tab">
      <div className="yaml-editor">
        <div className="y-gutter" aria-hidden>
          <div ref={gutter}>
            {Array.from({ length: lineCount }, (_, i) => (
              <div key={i} className={bad.has(i + 1) ? 'y-ln y-bad-ln' : warn.has(i + 1) ? 'y-ln y-warn-ln' : 'y-ln'} title={[...serverLines, ...warnLines].filter((p) => p.line === i + 1).map((p) => p.message).join('\n') || undefined}>
                {i + 1}
              </div>
            ))}
          </div>
        </div>
        <div className="y-code">
          <div className="y-layer" aria-hidden>
            <div ref={layer}>
              <Highlighted text={local} bad={bad} warn={warn} />
            </div>
          </div>
          <textarea
            ref={area}
            value={local}
            spellCheck={false}
            wrap="off"
            aria-label={tr('yaml.label')}
            data-testid="yaml-text"
            onScroll={sync}
            onChange={(e) => commit(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Tab') {
                e.preventDefault();
                const el = e.currentTarget;
                const s = el.selectionStart;
                const v = local.slice(0, s) + '  ' + local.slice(el.selectionEnd);
                commit(v);
                requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
              }
            }}
          />
        </div>
      </div>
      <div className="yaml-status">
        {problems.length ? (
          <span className="bad">
            {tr('yaml.lineCol', { line: problems[0].line, column: problems[0].column ?? '', message: problems[0].message })}
            {problems.length > 1 && tr('yaml.more', { n: problems.length - 1 })}
          </span>
        ) : problemCount > 0 ? (
          // The YAML parses, but the document has problems: never "parses" in green then.
          <span className="bad" data-testid="yaml-status">
            {tr('yaml.problems', { count: problemCount })}
            {first && tr('yaml.atLine', { line: first.line, message: first.message })}
            {problemCount > 1 && tr('yaml.allBelow')}
          </span>
        ) : warnLines.length > 0 ? (
          <span className="warn" data-testid="yaml-status">
            {tr('yaml.valid', { warnings: tr('ed.warnings', { count: warnLines.length }), line: warnLines[0].line, message: warnLines[0].message })}
          </span>
        ) : (
          <span className="good">
            {tr('yaml.parses', { count: docs })}
          </span>
        )}
        <span style={{ marginLeft: 'auto' }}>{tr('yaml.kept')}</span>
      </div>
    </div>
  );
}
