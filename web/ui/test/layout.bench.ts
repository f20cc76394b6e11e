// `npm run bench`: the editor's auto-layout on pipelines of 50, 200 and 500 tasks (the issue's
// figure: 500 tasks in under 200 ms).
import { bench, describe } from 'vitest';
import { toGraph } from '../src/model/graph';
import { layoutGraph } from '../src/model/layout';
import { bigPipeline } from './bigPipeline';

describe('layoutGraph', () => {
  for (const n of [50, 200, 500]) {
    const graph = toGraph(bigPipeline(n));
    bench(`${n} tasks`, () => {
      layoutGraph(graph);
    });
  }
});
