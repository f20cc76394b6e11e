// A deterministic large pipeline for layout timing: `n` tasks in layers of about 20, each
// depending on 1 to 3 tasks of the layers before it (a mulberry32 stream, seed fixed).

export function bigPipeline(n: number, seed = 7): Record<string, unknown> {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const tasks: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / 20);
    const task: Record<string, unknown> = { name: `task-${i}`, image: 'registry.local/step:1' };
    if (layer > 0) {
      const deps = new Set<string>();
      const k = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < k; j++) {
        const from = Math.max(0, layer - 1 - Math.floor(rand() * 2)) * 20;
        deps.add(`task-${from + Math.floor(rand() * 20)}`);
      }
      task.dependsOn = [...deps];
    }
    tasks.push(task);
  }
  return { apiVersion: 'gantry.dev/v1', kind: 'Pipeline', metadata: { name: 'big' }, spec: { tasks } };
}
