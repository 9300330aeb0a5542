import { describe, expect, it } from 'vitest';
import { changedSettings, fromField, toField } from './settings';
import type { Setting } from '../api/auth-config';

const s = (name: string, kind: Setting['kind'], value: Setting['value']): Setting => ({ name, group: 'general', label: name, kind, default: value, value, overridden: false });

describe('settings fields', () => {
  it('round-trips each kind through its field', () => {
    expect(toField(s('A', 'bool', true), true)).toBe(true);
    expect(toField(s('L', 'list', []), ['a', 'b'])).toBe('a\nb');
    expect(fromField(s('L', 'list', []), ' a\n\nb , c ')).toEqual({ value: ['a', 'b', 'c'] });
    expect(fromField(s('N', 'int', 1), '12')).toEqual({ value: 12 });
    expect(fromField(s('N', 'int', 1), '-3')).toEqual({ error: 'A whole number, 0 or more' });
    expect(fromField(s('T', 'text', ''), '  x ')).toEqual({ value: 'x' });
  });

  it('sends only what changed, and reports fields that do not parse', () => {
    const all = [s('DISABLE_SIGNUP', 'bool', false), s('PASSWORD_MIN_LENGTH', 'int', 6), s('URI_ALLOW_LIST', 'list', ['http://a.test'])];
    const out = changedSettings(all, { DISABLE_SIGNUP: true, PASSWORD_MIN_LENGTH: 'six', URI_ALLOW_LIST: 'http://a.test' });
    expect(out.changes).toEqual({ DISABLE_SIGNUP: true });
    expect(out.errors).toEqual({ PASSWORD_MIN_LENGTH: 'A whole number, 0 or more' });
  });
});
