import { afterEach, describe, expect, it, vi } from 'vitest';
import { connection } from '../src/api/connection';
import { serverNow } from '../src/api/session';

describe("the server's clock while contact is lost", () => {
  afterEach(() => {
    connection.succeeded();
    vi.useRealTimers();
  });
  it('stays at the moment of the loss, and runs again once the server answers', () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
    expect(serverNow()).toBe(1_000_000); // no clock sample yet: the browser's
    connection.failed('The server cannot be reached');
    vi.setSystemTime(1_060_000); // a minute later, still lost: countdowns must not move
    expect(serverNow()).toBe(1_000_000);
    connection.succeeded();
    expect(serverNow()).toBe(1_060_000);
  });
});
