import { describe, expect, it } from 'vitest';
import { Connection, isUnreachableStatus, retryDelayMs } from '../src/api/connection';

describe('Connection', () => {
  it('keeps the time of the first failure until an answer comes', () => {
    let now = 1000;
    const c = new Connection(() => now);
    let changes = 0;
    let recoveries = 0;
    c.subscribe(() => changes++);
    c.onRecovered(() => recoveries++);
    c.succeeded(); // in contact already: nothing happens
    expect([changes, recoveries]).toEqual([0, 0]);
    c.failed('The server cannot be reached');
    now = 5000;
    c.failed('Live updates stopped'); // a later failure does not move the time
    expect(c.state).toEqual({ lost: true, lostAtLocal: 1000, cause: 'The server cannot be reached' });
    expect([changes, recoveries]).toEqual([1, 0]);
    c.succeeded();
    expect(c.state).toEqual({ lost: false, lostAtLocal: null, cause: null });
    expect([changes, recoveries]).toEqual([2, 1]);
    c.succeeded(); // recovery listeners run once per loss
    expect(recoveries).toBe(1);
  });
  it('lets listeners go', () => {
    const c = new Connection(() => 0);
    let n = 0;
    const off = c.onRecovered(() => n++);
    off();
    c.failed('x');
    c.succeeded();
    expect(n).toBe(0);
  });
});

describe('retryDelayMs', () => {
  it('doubles from 1 s up to 10 s', () => {
    expect([0, 1, 2, 3, 4, 5, 20].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 10000, 10000, 10000]);
  });
});

describe('isUnreachableStatus', () => {
  it('is a network error or a proxy without its server, not an answer of the server', () => {
    expect([0, 502, 504].every(isUnreachableStatus)).toBe(true);
    expect([200, 400, 401, 404, 500, 503].some(isUnreachableStatus)).toBe(false);
  });
});
