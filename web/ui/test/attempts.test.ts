import { describe, expect, it } from 'vitest';
import type { Attempt } from '../src/api/types';
import { lastReason } from '../src/model/attempts';

const attempt = (state: Attempt['state'], reason?: string): Attempt => ({ start: '2026-01-01T00:00:00Z', end: null, state, ...(reason ? { reason } : {}) }) as Attempt;

describe('lastReason', () => {
  it("is the latest attempt's reason, not an earlier one's", () => {
    expect(lastReason({ attempts: [attempt('failed', 'exit code 1'), attempt('timeout', 'timed out after 10m')] })).toBe('timed out after 10m');
    expect(lastReason({ attempts: [attempt('failed', 'exit code 1'), attempt('succeeded')] })).toBe('');
    expect(lastReason({ attempts: [] })).toBe('');
  });
});
