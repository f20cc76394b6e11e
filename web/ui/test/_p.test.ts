import { it } from 'vitest';
import { toGraph } from '../src/model/graph';
import { layoutGraph } from '../src/model/layout';
import { bigPipeline } from './bigPipeline';
it('p', () => {
  const g = toGraph(bigPipeline(500));
  for (let i = 0; i < 8; i++) { const t = performance.now(); layoutGraph(g); console.log((performance.now() - t).toFixed(0)); }
}, 60000);
