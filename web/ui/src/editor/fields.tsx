// Form fields of the side panels. Each edits one YAML field: an empty input removes the key
// (the loader's default applies, shown as the placeholder), so a panel never writes a default
// the user did not choose.

import { useEffect, useId, useState } from 'react';
import { t as tr } from '../i18n';
import type { ReactNode } from 'react';

interface Base {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[];
  check?: (v: string) => string | null; // instant client-side check
  testId?: string;
}

function Errors({ errors, local }: { errors?: string[]; local?: string | null }) {
  const all = [...(local ? [local] : []), ...(errors ?? [])];
  if (!all.length) return null;
  return (
    <>
      {all.map((e, i) => (
        <div className="err" key={i} role="alert">
          {e}
        </div>
      ))}
    </>
  );
}

export function TextField({
  label,
  hint,
  errors,
  check,
  value,
  placeholder,
  onChange,
  mono,
  list,
  testId,
}: Base & { value: unknown; placeholder?: string; onChange: (v: string | undefined) => void; mono?: boolean; list?: string }) {
  const id = useId();
  const text = value === undefined || value === null ? '' : String(value);
  const local = text && check ? check(text) : null;
  const invalid = !!local || !!errors?.length;
  return (
    <div className={`field ${invalid ? 'invalid' : ''}`} data-field={testId}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className={mono ? 'mono' : undefined}
        value={text}
        placeholder={placeholder}
        list={list}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        data-testid={testId}
      />
      <Errors errors={errors} local={errors?.length ? null : local} />
      {hint && !invalid && <div className="hint">{hint}</div>}
    </div>
  );
}

// An integer; a text that is not one stays in the input (marked) and is not written.
export function IntField({
  label,
  hint,
  errors,
  value,
  placeholder,
  onChange,
  min,
  max,
  testId,
}: Base & { value: unknown; placeholder?: string; onChange: (v: number | undefined) => void; min?: number; max?: number }) {
  const id = useId();
  const [text, setText] = useState(value === undefined ? '' : String(value));
  useEffect(() => {
    setText((t) => (Number(t) === value || (t === '' && value === undefined) ? t : value === undefined ? '' : String(value)));
  }, [value]);
  const n = Number(text);
  const local =
    text === ''
      ? null
      : !/^-?\d+$/.test(text)
        ? 'expected a whole number'
        : min !== undefined && n < min
          ? `expected at least ${min}`
          : max !== undefined && n > max
            ? `expected at most ${max}`
            : null;
  return (
    <div className={`field ${local || errors?.length ? 'invalid' : ''}`} data-field={testId}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="numeric"
        value={text}
        placeholder={placeholder}
        onChange={(e) => {
          const t = e.target.value.trim();
          setText(t);
          if (t === '') onChange(undefined);
          else if (/^-?\d+$/.test(t)) {
            const v = Number(t);
            if ((min === undefined || v >= min) && (max === undefined || v <= max)) onChange(v);
          }
        }}
        data-testid={testId}
      />
      <Errors errors={errors} local={local} />
      {hint && !local && !errors?.length && <div className="hint">{hint}</div>}
    </div>
  );
}

export function SelectField<T extends string>({
  label,
  hint,
  errors,
  value,
  options,
  defaultLabel,
  onChange,
  testId,
}: Base & {
  value: unknown;
  options: readonly { value: T; help?: string; label?: string }[];
  defaultLabel?: string; // an "absent" choice: "all_success (default)"
  onChange: (v: T | undefined) => void;
}) {
  const id = useId();
  const current = value === undefined || value === null ? '' : String(value);
  const known = options.some((o) => o.value === current);
  const help = options.find((o) => o.value === current)?.help;
  return (
    <div className={`field ${errors?.length ? 'invalid' : ''}`} data-field={testId}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={current} onChange={(e) => onChange(e.target.value === '' ? undefined : (e.target.value as T))} data-testid={testId}>
        {defaultLabel !== undefined && <option value="">{defaultLabel}</option>}
        {!known && current !== '' && <option value={current}>{current} (unknown)</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label ?? o.value}
          </option>
        ))}
      </select>
      <Errors errors={errors} />
      {(help || hint) && !errors?.length && <div className="hint">{help ?? hint}</div>}
    </div>
  );
}

// A tri-state boolean: absent (default), true, false.
export function BoolField({ label, value, defaultValue, onChange, hint, errors, testId }: Base & { value: unknown; defaultValue: boolean; onChange: (v: boolean | undefined) => void }) {
  const checked = value === undefined ? defaultValue : value === true;
  return (
    <div className={`field ${errors?.length ? 'invalid' : ''}`} style={{ marginBottom: 8 }} data-field={testId}>
      <label className="checkbox" style={{ marginBottom: 0 }}>
        <input
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked === defaultValue && value === undefined ? undefined : e.target.checked)}
          data-testid={testId}
        />
        {label}
        {value === undefined && <span className="small muted">{tr('editor.defaultMark')}</span>}
      </label>
      <Errors errors={errors} />
      {hint && <div className="hint">{hint}</div>}
    </div>
  );
}

// A list of strings, one per line (command arguments).
export function LinesField({ label, hint, errors, value, onChange, placeholder, testId }: Base & { value: unknown; onChange: (v: string[] | undefined) => void; placeholder?: string }) {
  const id = useId();
  const list = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
  const [text, setText] = useState(list.join('\n'));
  useEffect(() => {
    setText((t) => {
      const parsed = t.split('\n');
      const same = parsed.length === list.length && parsed.every((x, i) => x === list[i]);
      return same || (t.trim() === '' && list.length === 0) ? t : list.join('\n');
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [JSON.stringify(list)]);
  return (
    <div className={`field ${errors?.length ? 'invalid' : ''}`} data-field={testId}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={Math.min(6, Math.max(2, text.split('\n').length))}
        value={text}
        placeholder={placeholder}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          const lines = e.target.value.split('\n');
          const trimmed = lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines;
          onChange(trimmed.length === 0 || (trimmed.length === 1 && trimmed[0] === '') ? undefined : trimmed);
        }}
        data-testid={testId}
      />
      <Errors errors={errors} />
      {hint && !errors?.length && <div className="hint">{hint}</div>}
    </div>
  );
}
