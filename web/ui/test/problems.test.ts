import { describe, expect, it } from 'vitest';
import { summarizeProblems } from '../src/api/problems';

describe('summarizeProblems', () => {
  it('says nothing when the server has no problem', () => {
    expect(summarizeProblems(null)).toBeNull();
    expect(summarizeProblems({ ready: true, problems: [] })).toBeNull();
  });

  it('names one stored pipeline that could not be loaded, with its error', () => {
    const p = 'Pipeline/plain could not be loaded: catalog Pipeline/plain:6:5: spec.tasks[0].dependsOn: unknown task nope';
    expect(summarizeProblems({ ready: true, problems: [p] })).toEqual({
      title: 'A stored pipeline could not be loaded: it does not run until a good version is applied or it is deleted.',
      items: [p],
    });
  });

  it('counts several pipelines', () => {
    const s = summarizeProblems({ ready: true, problems: ['Pipeline/a could not be loaded: x', 'Pipeline/b could not be loaded: y'] });
    expect(s?.title.startsWith('2 stored pipelines could not be loaded')).toBe(true);
    expect(s?.items).toEqual(['Pipeline/a could not be loaded: x', 'Pipeline/b could not be loaded: y']);
  });

  it('puts a full disk first, without its prefix, and says changes are refused', () => {
    const s = summarizeProblems({
      ready: true,
      problems: ['Pipeline/a could not be loaded: x', 'database: the disk of the runs database is full: /tmp/g.db'],
    });
    expect(s?.title).toBe('The runs database cannot be written: changes are refused until it can, and the scheduler waits.');
    expect(s?.items).toEqual(['the disk of the runs database is full: /tmp/g.db', 'Pipeline/a could not be loaded: x']);
  });
});
