import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { RouteErrorBoundary } from './route-error';

function Broken(): never {
  throw new Error('module failed to load');
}

describe('RouteErrorBoundary', () => {
  it('shows the French error page for a failing page and recovers on the next page', () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    const page = (key: string, child: React.ReactNode) => (
      <MemoryRouter>
        <RouteErrorBoundary resetKey={key}>{child}</RouteErrorBoundary>
      </MemoryRouter>
    );
    const { rerender } = render(page('/fleet', <Broken />));
    expect(screen.getByRole('heading', { name: 'Une erreur est survenue' })).toBeTruthy();
    expect(screen.getByRole('link', { name: "Retour à l'accueil" }).getAttribute('href')).toBe('/');

    rerender(page('/fleet', <p>Notre flotte</p>));
    expect(screen.queryByText('Notre flotte')).toBeNull();
    rerender(page('/about', <p>À propos</p>));
    expect(screen.getByText('À propos')).toBeTruthy();
    quiet.mockRestore();
  });
});
