import { describe, expect, it } from 'vitest';
import { readLinkOutcome } from './auth';

describe('readLinkOutcome', () => {
  it('reads a session fragment', () => {
    expect(readLinkOutcome('#access_token=abc&refresh_token=r&type=signup', '')).toEqual({ kind: 'session', type: 'signup' });
  });
  it('reads an expired link', () => {
    expect(readLinkOutcome('#error=access_denied&error_code=otp_expired&error_description=x', '')).toEqual({ kind: 'error', code: 'otp_expired' });
  });
  it('reads a token hash in the query', () => {
    expect(readLinkOutcome('', '?token_hash=h&type=signup')).toEqual({ kind: 'token', tokenHash: 'h', type: 'signup' });
  });
  it('says when nothing is there', () => {
    expect(readLinkOutcome('', '')).toEqual({ kind: 'none' });
  });
});
