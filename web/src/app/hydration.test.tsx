import { StrictMode, act } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A client that answers nothing: the hydration is about the first render, not the data.
const pending = new Promise<never>(() => {});
const query: unknown = new Proxy(() => {}, {
  get: (_, key) => (key === 'then' ? pending.then.bind(pending) : query),
  apply: () => query,
});
const fakeClient = {
  auth: {
    getSession: async () => ({ data: { session: null }, error: null }),
    onAuthStateChange: () => ({ data: { subscription: { unsubscribe() {} } } }),
  },
  from: () => query,
  rpc: () => query,
};
vi.mock('@/lib/supabase', async (original) => ({ ...(await original<object>()), supabase: () => fakeClient }));

const { render, paths } = await import('@/entry-server');
const { App } = await import('@/app/app');

afterEach(() => {
  document.body.innerHTML = '';
  vi.restoreAllMocks();
});

describe('pages rendered at build time', () => {
  it.each(paths)('%s hydrates without a mismatch (same tree, same ids, same attributes)', async (path) => {
    const { html } = await render(path);
    expect(html).toContain('<footer');

    window.history.replaceState(null, '', path);
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);

    const errors: unknown[] = [];
    const consoleError = vi.spyOn(console, 'error').mockImplementation((...args) => errors.push(args.join(' ')));
    let root: ReturnType<typeof hydrateRoot> | undefined;
    await act(async () => {
      root = hydrateRoot(
        container,
        <StrictMode>
          <App />
        </StrictMode>,
        { onRecoverableError: (e) => errors.push(e) },
      );
    });
    expect(errors.map(String).join("\n")).toBe("");
    consoleError.mockRestore();
    act(() => root?.unmount());
  });
});
