// A manual run's parameters (issue #26 §3; spec.params, web/API.md): the typed form of the
// Trigger dialog. Values are typed as the server checks them, so a wrong one is said on its
// field before the request; the server's 400 names the parameter too.
export type ParamType = 'string' | 'int' | 'float' | 'bool';

export interface ParamSpec {
  name: string;
  type: ParamType;
  default: string | number | boolean | null; // null: the trigger must give it
  description?: string;
}

// The form's text per parameter: its default, written as the field shows it.
export function initialParamText(params: ParamSpec[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) out[p.name] = p.default === null ? '' : String(p.default);
  return out;
}

export type ParsedParam = { value: string | number | boolean } | { error: string };

export function parseParam(p: ParamSpec, text: string): ParsedParam {
  const t = text.trim();
  switch (p.type) {
    case 'string':
      return p.default === null && text === '' ? { error: 'required' } : { value: text };
    case 'bool':
      if (t === 'true' || t === 'false') return { value: t === 'true' };
      return { error: 'true or false' };
    case 'int':
      if (t === '') return { error: p.default === null ? 'required' : 'a whole number' };
      if (!/^-?\d+$/.test(t) || !Number.isSafeInteger(Number(t))) return { error: 'a whole number' };
      return { value: Number(t) };
    case 'float': {
      if (t === '') return { error: p.default === null ? 'required' : 'a number' };
      const v = Number(t);
      if (!Number.isFinite(v) || !/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return { error: 'a number' };
      return { value: v };
    }
  }
}

// The body's params and the errors by field; the body is null while any field is wrong.
export function paramsBody(params: ParamSpec[], text: Record<string, string>): { body: Record<string, string | number | boolean> | null; errors: Record<string, string> } {
  const body: Record<string, string | number | boolean> = {};
  const errors: Record<string, string> = {};
  for (const p of params) {
    const r = parseParam(p, text[p.name] ?? '');
    if ('error' in r) errors[p.name] = r.error;
    else body[p.name] = r.value;
  }
  return { body: Object.keys(errors).length ? null : body, errors };
}
