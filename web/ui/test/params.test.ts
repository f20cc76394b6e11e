import { describe, expect, it } from 'vitest';
import { initialParamText, paramsBody, parseParam, type ParamSpec } from '../src/model/params';

const specs: ParamSpec[] = [
  { name: 'date', type: 'string', default: null },
  { name: 'epochs', type: 'int', default: 3 },
  { name: 'lr', type: 'float', default: 0.001 },
  { name: 'dry_run', type: 'bool', default: false },
];

describe('trigger parameters', () => {
  it('start from their defaults; a param without one starts empty', () => {
    expect(initialParamText(specs)).toEqual({ date: '', epochs: '3', lr: '0.001', dry_run: 'false' });
  });

  it('are typed as the server checks them', () => {
    expect(parseParam(specs[1], '12')).toEqual({ value: 12 });
    expect(parseParam(specs[1], '1.5')).toEqual({ error: 'a whole number' });
    expect(parseParam(specs[1], '9007199254740993')).toEqual({ error: 'a whole number' });
    expect(parseParam(specs[2], '1e-4')).toEqual({ value: 0.0001 });
    expect(parseParam(specs[2], '0x10')).toEqual({ error: 'a number' });
    expect(parseParam(specs[3], 'true')).toEqual({ value: true });
    expect(parseParam(specs[3], 'yes')).toEqual({ error: 'true or false' });
  });

  it('hold the request back while a field is wrong or a required one is empty', () => {
    const text = initialParamText(specs);
    expect(paramsBody(specs, text)).toEqual({ body: null, errors: { date: 'required' } });
    expect(paramsBody(specs, { ...text, date: '2026-11-28' })).toEqual({ body: { date: '2026-11-28', epochs: 3, lr: 0.001, dry_run: false }, errors: {} });
  });
});
