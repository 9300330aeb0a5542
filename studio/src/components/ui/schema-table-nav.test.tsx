import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { SchemaTableNav } from './schema-table-nav';

afterEach(cleanup);

const tables = { data: [{ name: 'orders' }, { name: 'order_lines' }, { name: 'cars' }], isPending: false, error: null };

function nav(noMatch?: string) {
  const schemas: string[] = [];
  render(
    <MemoryRouter>
      <SchemaTableNav
        ids={{ schema: 'schema', search: 'search' }}
        schema="public"
        schemas={['public', 'shop']}
        onSchema={(s) => schemas.push(s)}
        searchPlaceholder="Search tables"
        tables={tables}
        current="cars"
        to={(name) => `/tables/public/${name}`}
        noMatch={noMatch}
      >
        {(t) => <span>{t.name}</span>}
      </SchemaTableNav>
    </MemoryRouter>,
  );
  return schemas;
}

describe('the schema and tables list', () => {
  it('links every table, marks the current one and keeps those the search matches', () => {
    nav();
    const links = screen.getAllByRole('link');
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['/tables/public/orders', '/tables/public/order_lines', '/tables/public/cars']);
    expect(links.map((l) => l.getAttribute('aria-current'))).toEqual([null, null, 'page']);
    fireEvent.change(screen.getByLabelText('Search tables'), { target: { value: 'ORDER' } });
    expect(screen.getAllByRole('link').map((l) => l.textContent)).toEqual(['orders', 'order_lines']);
  });

  it('says when nothing matches only where asked to', () => {
    nav('No table matches.');
    fireEvent.change(screen.getByLabelText('Search tables'), { target: { value: 'zzz' } });
    expect(screen.queryAllByRole('link')).toEqual([]);
    expect(screen.getByText('No table matches.')).toBeTruthy();
    cleanup();
    nav();
    fireEvent.change(screen.getByLabelText('Search tables'), { target: { value: 'zzz' } });
    expect(screen.queryByText('No table matches.')).toBeNull();
  });

  it('hands the chosen schema over', () => {
    const schemas = nav();
    fireEvent.change(screen.getByLabelText('Schema'), { target: { value: 'shop' } });
    expect(schemas).toEqual(['shop']);
  });
});
