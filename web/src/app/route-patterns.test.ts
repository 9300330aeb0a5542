import { describe, expect, it } from 'vitest';
import { routePatterns } from './router';

describe('routePatterns', () => {
  it('lists every path the site answers, for the server to answer 404 to the others', () => {
    const patterns = routePatterns();
    for (const p of ['/', '/fleet', '/fleet/:id', '/blog/:id', '/profile', '/admin/login', '/admin/dashboard', '/admin/calendar', '/admin/*']) {
      expect(patterns).toContain(p);
    }
    expect(patterns).not.toContain('*');
    expect(patterns).not.toContain('/*');
  });
});
