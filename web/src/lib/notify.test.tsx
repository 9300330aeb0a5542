import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { notify, ToastHost } from './notify';

describe('notify', () => {
  it('mounts the toaster on first use and shows the toast that asked for it', async () => {
    const { container } = render(<ToastHost />);
    expect(container.innerHTML).toBe('');
    notify.success('Profil mis à jour avec succès');
    expect(await screen.findByText('Profil mis à jour avec succès')).toBeTruthy();
    notify.error('Erreur lors de la réservation. Veuillez réessayer.');
    expect(await screen.findByText('Erreur lors de la réservation. Veuillez réessayer.')).toBeTruthy();
  });
});

describe('toasts go through notify', () => {
  it('no module but lib/notify imports sonner (its toaster is mounted on first use only)', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (/\.tsx?$/.test(name) && !file.includes('lib/notify') && /from ['"]sonner['"]/.test(readFileSync(file, 'utf8'))) offenders.push(file);
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
  });
});
