import { lazy, type ComponentType } from 'react';

type PageModule = { default: ComponentType };

/** A page loaded on demand that can also be loaded ahead (`preload`) and then renders at once. */
export type LazyPage = ComponentType & { preload: () => Promise<void> };

/**
 * Like `React.lazy`, plus `preload()`: once the module is loaded the page renders synchronously,
 * without suspending. Hydrating a page rendered at build time needs that (a suspended boundary
 * would hydrate later, after the app reports itself ready), and the prerender step preloads
 * every page before rendering.
 */
export function lazyPage(load: () => Promise<PageModule>): LazyPage {
  let loaded: ComponentType | null = null;
  const preload = async () => {
    loaded ??= (await load()).default;
  };
  const Lazy = lazy(async () => {
    await preload();
    return { default: loaded as ComponentType };
  });
  function Page() {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  }
  return Object.assign(Page, { preload });
}
