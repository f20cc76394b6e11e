import { describe, expect, it } from 'vitest';
import { freeSpot, kReadableZoom, readableFit } from '../src/model/viewport';

describe('readableFit', () => {
  it('stops at the zoom where node text is 10 px and shows the graph from its start', () => {
    // 1000 x 500 in an 800 x 600 pane, 40 px around: fitting would need min(720/1000, 520/500) =
    // 0.72, below 10/10.5 = 0.952381. At 0.952381 the width (952 + 80 > 800) does not fit: x starts
    // at the pad, 40; the height does (476 + 80 <= 600): centred, 300 - 250 * 0.952381 = 61.904762.
    const v = readableFit({ x: 0, y: 0, width: 1000, height: 500 }, 800, 600);
    expect(v.zoom).toBeCloseTo(0.952381, 6);
    expect(kReadableZoom * 10.5).toBeCloseTo(10, 10); // the smallest text, on screen
    expect(v.x).toBeCloseTo(40, 6);
    expect(v.y).toBeCloseTo(61.904762, 5);
  });
  it('starts at the graph, wherever it is', () => {
    // x from 300: 40 - 300 * 0.952381 = -245.714286
    expect(readableFit({ x: 300, y: 0, width: 1000, height: 500 }, 800, 600).x).toBeCloseTo(-245.714286, 5);
  });
  it('centres a small graph at the largest zoom allowed', () => {
    // 200 x 100 from (100, 50): fit = min(720/200, 520/100) = 3.6, capped at 1.1;
    // x = 400 - (100 + 100) * 1.1 = 180; y = 300 - (50 + 50) * 1.1 = 190
    const v = readableFit({ x: 100, y: 50, width: 200, height: 100 }, 800, 600);
    expect(v.zoom).toBe(1.1);
    expect(v.x).toBeCloseTo(180, 9);
    expect(v.y).toBeCloseTo(190, 9);
  });
});

describe('freeSpot', () => {
  const node = (x: number, y: number) => ({ x, y, width: 212, height: 72 });
  it('keeps the preferred place when it is free', () => {
    expect(freeSpot([node(500, 0)], { x: 0, y: 0 }, 212, 72)).toEqual({ x: 0, y: 0 });
  });
  it('moves down past the nodes in the way', () => {
    // Nodes at y 0 and 96 (72 + 24): the first free y is 2 * 96 = 192.
    expect(freeSpot([node(0, 0), node(50, 96)], { x: 10, y: 0 }, 212, 72)).toEqual({ x: 10, y: 192 });
  });
});
