import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getPost, listPosts, splitContent } from './blog';

// The one supabase client, faked: a query builder recording each call.
const calls: unknown[][] = [];
const answer = { data: [] as unknown, error: null };
function builder(): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  for (const m of ['select', 'eq', 'order']) {
    b[m] = (...args: unknown[]) => {
      calls.push([m, ...args]);
      return b;
    };
  }
  b.maybeSingle = async () => ({ data: null, error: null });
  b.then = (resolve: (v: unknown) => unknown) => resolve(answer);
  return b;
}
vi.mock('@/lib/supabase', () => ({
  supabase: () => ({
    from: (table: string) => {
      calls.push(['from', table]);
      return builder();
    },
  }),
}));

beforeEach(() => {
  calls.length = 0;
});

describe('blog queries', () => {
  it('the list asks for published posts only, newest first', async () => {
    await listPosts();
    expect(calls).toContainEqual(['from', 'blog_posts']);
    expect(calls).toContainEqual(['eq', 'published', true]);
    expect(calls).toContainEqual(['order', 'published_at', { ascending: false }]);
  });
  it('an article is read among published posts only, by slug or by id', async () => {
    await getPost('louer-a-kinshasa');
    expect(calls).toContainEqual(['eq', 'published', true]);
    expect(calls).toContainEqual(['eq', 'slug', 'louer-a-kinshasa']);
    calls.length = 0;
    expect(await getPost('0b7e0a52-3c1d-4a8e-9d0f-1a2b3c4d5e6f')).toBeNull();
    expect(calls).toContainEqual(['eq', 'published', true]);
    expect(calls).toContainEqual(['eq', 'id', '0b7e0a52-3c1d-4a8e-9d0f-1a2b3c4d5e6f']);
  });
});

describe('splitContent', () => {
  it('splits headings and paragraphs', () => {
    expect(splitContent('Intro.\n\n## En ville\nUne berline.\nSobre.\n\n## Bon à savoir\nRemise.')).toEqual([
      { kind: 'paragraph', text: 'Intro.' },
      { kind: 'heading', text: 'En ville' },
      { kind: 'paragraph', text: 'Une berline. Sobre.' },
      { kind: 'heading', text: 'Bon à savoir' },
      { kind: 'paragraph', text: 'Remise.' },
    ]);
  });
});
