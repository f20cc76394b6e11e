import { describe, expect, it } from 'vitest';
import type { PipelineSummary } from '../src/api/types';
import { facets, filterFromQuery, filterToQuery, isFiltered, kNoFilter, matchesFilter } from '../src/model/pipelineFilter';

const p = (name: string, extra: Partial<PipelineSummary> = {}): PipelineSummary => ({
  name,
  namespace: 'default',
  paused: false,
  schedule: null,
  nextTicks: [],
  tasks: 1,
  lastRun: null,
  runsInFlight: 0,
  ...extra,
});

const list = [
  p('Feature-ETL', { tags: ['etl', 'daily'], owner: 'data-platform', lastRun: { logicalTime: '2026-01-01T00:00:00Z', state: 'failed' } }),
  p('llm-finetune', { paused: true, tags: ['gpu'], owner: 'ml-research' }),
  p('recsys-retrain', { tags: ['gpu', 'daily'], owner: 'ml-research', lastRun: { logicalTime: '2026-01-01T00:00:00Z', state: 'succeeded' } }),
  p('legacy'), // a server without tags and owners
];
const names = (f: Partial<typeof kNoFilter>) => list.filter((x) => matchesFilter(x, { ...kNoFilter, ...f })).map((x) => x.name);

describe('matchesFilter', () => {
  it('searches names by substring, any case', () => {
    expect(names({ q: 'etl' })).toEqual(['Feature-ETL']);
    expect(names({ q: '  RE ' })).toEqual(['Feature-ETL', 'recsys-retrain']); // trimmed; featuRE, REcsys
    expect(names({})).toHaveLength(4);
  });
  it('filters by state: active, paused, failing (last run failed)', () => {
    expect(names({ state: 'paused' })).toEqual(['llm-finetune']);
    expect(names({ state: 'active' })).toEqual(['Feature-ETL', 'recsys-retrain', 'legacy']);
    expect(names({ state: 'failing' })).toEqual(['Feature-ETL']);
  });
  it('filters by tag and owner, together with the rest', () => {
    expect(names({ tag: 'gpu' })).toEqual(['llm-finetune', 'recsys-retrain']);
    expect(names({ owner: 'ml-research', state: 'active' })).toEqual(['recsys-retrain']);
    expect(names({ tag: 'daily', q: 'etl' })).toEqual(['Feature-ETL']);
  });
});

describe('the filter in the address', () => {
  it('round-trips, empty fields left out', () => {
    const f = { q: 'a b', state: 'failing' as const, tag: 'gpu', owner: '' };
    expect(filterToQuery(f)).toBe('q=a+b&state=failing&tag=gpu');
    expect(filterFromQuery(new URLSearchParams(filterToQuery(f)))).toEqual(f);
    expect(filterToQuery(kNoFilter)).toBe('');
  });
  it('ignores an unknown state', () => {
    expect(filterFromQuery(new URLSearchParams('state=broken&q=x'))).toEqual({ ...kNoFilter, q: 'x' });
    expect(isFiltered(kNoFilter)).toBe(false);
    expect(isFiltered({ ...kNoFilter, q: '   ' })).toBe(false);
  });
});

describe('facets', () => {
  it('lists tags and owners once, sorted', () => {
    expect(facets(list)).toEqual({ tags: ['daily', 'etl', 'gpu'], owners: ['data-platform', 'ml-research'] });
    expect(facets([p('x')])).toEqual({ tags: [], owners: [] });
  });
});
