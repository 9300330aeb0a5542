import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import type { ExternalToast } from 'sonner';

/*
 * Toasts (sonner, top-right, 3 s) loaded on first use: most visits never show one, and the
 * library would otherwise weigh on the JavaScript of every page. `notify.success` and
 * `notify.error` mount the toaster if needed, wait for it, then show the toast.
 */

type Sonner = typeof import('sonner');

let wanted = false;
const listeners = new Set<() => void>();
let resolveMounted: () => void = () => {};
const mounted = new Promise<void>((resolve) => {
  resolveMounted = resolve;
});
let sonner: Promise<Sonner> | null = null;
const loadSonner = () => (sonner ??= import('sonner'));

function want() {
  if (wanted) return;
  wanted = true;
  listeners.forEach((l) => l());
}

async function show(kind: 'success' | 'error', message: string, options?: ExternalToast) {
  want();
  const [{ toast }] = await Promise.all([loadSonner(), mounted]);
  toast[kind](message, options);
}

export const notify = {
  success: (message: string, options?: ExternalToast) => void show('success', message, options),
  error: (message: string, options?: ExternalToast) => void show('error', message, options),
};

const Toaster = lazy(async () => {
  const { Toaster: SonnerToaster } = await loadSonner();
  function MountedToaster() {
    useEffect(() => resolveMounted(), []);
    return <SonnerToaster position="top-right" duration={3000} richColors closeButton />;
  }
  return { default: MountedToaster };
});

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** Where toasts appear; renders nothing until the first toast is asked for. */
export function ToastHost() {
  const active = useSyncExternalStore(subscribe, () => wanted, () => false);
  return active ? (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  ) : null;
}
