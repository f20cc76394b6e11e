import { describe, expect, it } from 'vitest';
import { parseBundle } from '../src/model/bundle';
import { lineOfPath, locateErrors, locateWarnings, mergeErrors, taskAtLine, withLines } from '../src/model/errors';

// Line numbers of this text are written on the right.
const text = [
  'apiVersion: gantry.io/v1', // 1
  'kind: Pipeline', //           2
  'metadata:', //                3
  '  name: etl', //              4
  'spec:', //                    5
  '  tasks:', //                 6
  '    - name: extract', //      7
  '      image: busybox', //     8
  '      resources:', //         9
  '        gpu: 8', //           10
  '        gpuType: A100', //    11
  '    - name: load', //         12
  '      image: busybox', //     13
  '      dependsOn: [missing]', // 14
  '      retires: 3', //         15
  '', //                         16
].join('\n');
const bundle = parseBundle(text);

describe('lineOfPath and taskAtLine', () => {
  it('finds where a field is written, or its closest written parent', () => {
    expect(lineOfPath(bundle, 0, 'spec.tasks[0].resources.gpuType')).toBe(11);
    expect(lineOfPath(bundle, 0, 'spec.tasks[1].dependsOn[0]')).toBe(14);
    expect(lineOfPath(bundle, 0, 'spec.tasks[1].timeout')).toBe(12); // absent: the task's first line
    expect(lineOfPath(bundle, 0, undefined)).toBeUndefined();
  });
  it('finds the task written on a line', () => {
    expect([7, 10, 11, 12, 15, 3].map((l) => taskAtLine(bundle, 0, l))).toEqual([0, 0, 0, 1, 1, undefined]);
  });
});

describe('all problems at once', () => {
  it('keeps the server errors and the client errors it did not report, by line', () => {
    // The client finds the unknown dependency; the server the unknown field and the same dependency.
    const client = withLines(locateErrors([{ path: 'spec.tasks[1].dependsOn[0]', message: 'unknown task missing' }], bundle), bundle);
    expect(client[0].line).toBe(14);
    const server = locateErrors(
      [
        { line: 15, column: 7, path: 'spec.tasks[1].retires', message: "unknown field 'retires'" },
        { line: 14, column: 19, path: 'spec.tasks[1].dependsOn[0]', message: "dependsOn: no task named 'missing'" },
      ],
      bundle,
    );
    const extra = withLines(locateErrors([{ path: 'spec.tasks[0].image', message: 'client only' }], bundle), bundle);
    const merged = mergeErrors(server, [...client, ...extra]);
    expect(merged.map((e) => `${e.line}: ${e.message}`)).toEqual(['8: client only', "14: dependsOn: no task named 'missing'", "15: unknown field 'retires'"]);
  });
});

describe('locateWarnings', () => {
  it('puts a warning on the task at its line, as a warning', () => {
    const [w] = locateWarnings([{ file: 'body', line: 11, column: 18, message: 'GPU type A100: no node of the cluster has it' }], bundle);
    expect(w.severity).toBe('warning');
    expect(w.target).toEqual({ kind: 'task', task: 0, field: '' });
    const [d] = locateWarnings([{ line: 2, message: 'about the pipeline' }], bundle);
    expect(d.target).toEqual({ kind: 'document' });
  });
});
