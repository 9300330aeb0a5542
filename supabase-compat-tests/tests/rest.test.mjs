// /rest/v1 through the unchanged supabase-js query builder: every postgrest-js builder method.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';
import { userClient } from '../lib/auth.mjs';

const fixture = readFileSync(new URL('../fixtures/rest.sql', import.meta.url), 'utf8');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
let server;
let db; // anon client
let admin; // service_role client

before(async () => {
  server = await startServer({}, { fixture });
  db = createClient(server.url, server.anonKey, opts);
  admin = createClient(server.url, server.serviceKey, opts);
});
after(async () => { await server?.stop(); });

const ok = ({ data, error }) => { assert.equal(error, null, JSON.stringify(error)); return data; };
const names = (rows) => rows.map((r) => r.name);

describe('select and embedding', () => {
  test('columns, aliases, casts and JSON paths', async () => {
    const rows = ok(await db.from('cities').select('id, town:name, pop:population::text, lang:meta->>lang, area:meta->area').eq('id', 1));
    assert.deepEqual(rows, [{ id: 1, town: 'Kinshasa', pop: '17000000', lang: 'fr', area: 9965 }]);
  });
  test('many-to-one, one-to-many and many-to-many embeds', async () => {
    const city = ok(await db.from('cities').select('name, countries(code)').eq('id', 3));
    assert.deepEqual(city, [{ name: 'Paris', countries: { code: 'FR' } }]);
    const country = ok(await db.from('countries').select('code, cities(name)').eq('code', 'CD').order('id', { referencedTable: 'cities' }));
    assert.deepEqual(country, [{ code: 'CD', cities: [{ name: 'Kinshasa' }, { name: 'Lubumbashi' }, { name: 'Matadi' }] }]);
    const film = ok(await db.from('films').select('title, actors(name)').eq('id', 1).order('id', { referencedTable: 'actors' }));
    assert.deepEqual(film, [{ title: 'Viva Riva!', actors: [{ name: 'Patsha Bay' }, { name: 'Manie Malone' }] }]);
  });
  test('embedding through a view, aliases, hints, inner joins and spreads', async () => {
    const rows = ok(await db.from('big_cities').select('name, country:countries!cities_country_id_fkey(code)').order('id'));
    assert.deepEqual(rows.map((r) => r.country.code), ['CD', 'CD', 'FR']);
    const inner = ok(await db.from('cities').select('name, countries!inner(code)').eq('countries.code', 'FR').order('id'));
    assert.deepEqual(names(inner), ['Paris', 'Lyon']);
    const spread = ok(await db.from('cities').select('name, ...countries(country_code:code)').eq('id', 2));
    assert.deepEqual(spread, [{ name: 'Lubumbashi', country_code: 'CD' }]);
  });
  test('filters, order and limit on embedded resources', async () => {
    const rows = ok(await db.from('countries').select('code, cities(name)').eq('code', 'CD').gt('cities.population', 1000000).order('population', { referencedTable: 'cities', ascending: false }).limit(1, { referencedTable: 'cities' }));
    assert.deepEqual(rows, [{ code: 'CD', cities: [{ name: 'Kinshasa' }] }]);
    const or = ok(await db.from('countries').select('code, cities(name)').eq('code', 'FR').or('name.eq.Lyon,population.gt.3000000', { referencedTable: 'cities' }));
    assert.deepEqual(or, [{ code: 'FR', cities: [{ name: 'Lyon' }] }]);
  });
});

describe('filters', () => {
  const cases = [
    ['eq', (q) => q.eq('name', 'Paris'), ['Paris']],
    ['neq', (q) => q.neq('country_id', 1), ['Paris', 'Lyon']],
    ['gt', (q) => q.gt('population', 2500000), ['Kinshasa']],
    ['gte', (q) => q.gte('population', 2500000), ['Kinshasa', 'Lubumbashi']],
    ['lt', (q) => q.lt('population', 520001), ['Lyon', 'Matadi']],
    ['lte', (q) => q.lte('population', 300000), ['Matadi']],
    ['like', (q) => q.like('name', '%shasa'), ['Kinshasa']],
    ['ilike', (q) => q.ilike('name', 'l%'), ['Lubumbashi', 'Lyon']],
    ['likeAllOf', (q) => q.likeAllOf('name', ['L%', '%n']), ['Lyon']],
    ['likeAnyOf', (q) => q.likeAnyOf('name', ['Par%', 'Ly%']), ['Paris', 'Lyon']],
    ['ilikeAllOf', (q) => q.ilikeAllOf('name', ['k%', '%A']), ['Kinshasa']],
    ['ilikeAnyOf', (q) => q.ilikeAnyOf('name', ['k%', 'm%']), ['Kinshasa', 'Matadi']],
    ['is null', (q) => q.is('tags', null), ['Lyon']],
    ['in', (q) => q.in('name', ['Paris', 'Matadi', 'a,b']), ['Paris', 'Matadi']],
    ['contains array', (q) => q.contains('tags', ['river']), ['Kinshasa', 'Matadi']],
    ['containedBy array', (q) => q.containedBy('tags', ['capital', 'river', 'port']), ['Kinshasa', 'Paris', 'Matadi']],
    ['contains jsonb', (q) => q.contains('meta', { lang: 'fr', area: 105 }), ['Paris']],
    ['overlaps', (q) => q.overlaps('tags', ['mining', 'port']), ['Lubumbashi', 'Matadi']],
    ['rangeGt', (q) => q.rangeGt('during', '[1800,1900)'), ['Lubumbashi']],
    ['rangeGte', (q) => q.rangeGte('during', '[1881,1890)'), ['Kinshasa', 'Lubumbashi']],
    ['rangeLt', (q) => q.rangeLt('during', '[1000,1100)'), ['Paris']],
    ['rangeLte', (q) => q.rangeLte('during', '[200,1880)'), ['Paris', 'Matadi']],
    ['rangeAdjacent', (q) => q.rangeAdjacent('during', '[1880,1881)'), ['Kinshasa', 'Matadi']],
    ['textSearch', (q) => q.textSearch('description', 'river & capital', { config: 'english' }), ['Kinshasa']],
    ['textSearch plain', (q) => q.textSearch('description', 'mining city', { type: 'plain', config: 'english' }), ['Lubumbashi']],
    ['textSearch phrase', (q) => q.textSearch('description', 'main port', { type: 'phrase', config: 'english' }), ['Matadi']],
    ['textSearch websearch', (q) => q.textSearch('description', '"of silk" or france', { type: 'websearch', config: 'english' }), ['Paris', 'Lyon']],
    ['match', (q) => q.match({ country_id: 2, name: 'Lyon' }), ['Lyon']],
    ['not', (q) => q.not('tags', 'is', null).not('country_id', 'eq', 1), ['Paris']],
    ['or', (q) => q.or('name.eq.Lyon,and(population.gt.2000000,country_id.eq.2)'), ['Paris', 'Lyon']],
    ['filter', (q) => q.filter('name', 'in', '("Paris","Lyon")'), ['Paris', 'Lyon']],
    ['regex via filter', (q) => q.filter('name', 'match', '^L'), ['Lubumbashi', 'Lyon']],
    ['isdistinct via filter', (q) => q.filter('name', 'isdistinct', 'Paris').eq('country_id', 2), ['Lyon']],
  ];
  for (const [name, apply, expected] of cases) {
    test(name, async () => {
      const rows = ok(await apply(db.from('cities').select('name')).order('id'));
      assert.deepEqual(names(rows), expected);
    });
  }
});

describe('order, range, count, single, csv', () => {
  test('order with nulls and several columns', async () => {
    const rows = ok(await db.from('cities').select('name').order('tags', { ascending: false, nullsFirst: true }).order('id'));
    assert.equal(rows[0].name, 'Lyon');
    const desc = ok(await db.from('cities').select('name').order('population', { ascending: false }).limit(2));
    assert.deepEqual(names(desc), ['Kinshasa', 'Lubumbashi']);
  });
  test('range and limit', async () => {
    const rows = ok(await db.from('cities').select('id').order('id').range(1, 2));
    assert.deepEqual(rows, [{ id: 2 }, { id: 3 }]);
  });
  test('count exact, planned, estimated and head', async () => {
    const exact = await db.from('cities').select('*', { count: 'exact' }).eq('country_id', 1).limit(1);
    assert.equal(exact.count, 3);
    assert.equal(exact.status, 206);
    const head = await db.from('cities').select('*', { count: 'exact', head: true });
    assert.equal(head.count, 5);
    assert.equal(head.data, null);
    const planned = await db.from('cities').select('*', { count: 'planned', head: true });
    assert.equal(planned.error, null);
    assert.equal(typeof planned.count, 'number');
    const estimated = await db.from('cities').select('*', { count: 'estimated' });
    assert.equal(estimated.error, null);
    assert.equal(typeof estimated.count, 'number');
  });
  test('single and maybeSingle', async () => {
    const one = ok(await db.from('cities').select('name').eq('id', 4).single());
    assert.deepEqual(one, { name: 'Lyon' });
    const many = await db.from('cities').select('name').single();
    assert.equal(many.error.code, 'PGRST116');
    assert.equal(many.status, 406);
    const none = await db.from('cities').select('name').eq('id', 99).maybeSingle();
    assert.equal(none.error, null);
    assert.equal(none.data, null);
  });
  test('csv', async () => {
    const csv = ok(await db.from('countries').select('id,code').order('id').csv());
    assert.equal(csv, 'id,code\n1,CD\n2,FR\n3,BE');
  });
});

describe('writes', () => {
  test('insert with and without select', async () => {
    const none = await db.from('items').insert({ name: 'pneu' });
    assert.equal(none.error, null);
    assert.equal(none.status, 201);
    assert.equal(none.data, null);
    const rows = ok(await db.from('items').insert([{ name: 'huile', qty: 3 }, { name: 'filtre', qty: 1 }]).select('name, qty'));
    assert.deepEqual(rows, [{ name: 'huile', qty: 3 }, { name: 'filtre', qty: 1 }]);
    // As with PostgREST, a key missing from one object is null unless defaultToNull is false.
    const missing = await db.from('items').insert([{ name: 'bougie', qty: 2 }, { name: 'courroie' }]);
    assert.equal(missing.error.code, '23502');
  });
  test('upsert merges, ignores duplicates, and honours onConflict', async () => {
    ok(await db.from('items').insert({ name: 'batterie', qty: 1 }));
    const merged = ok(await db.from('items').upsert({ name: 'batterie', qty: 5 }, { onConflict: 'name' }).select('name, qty'));
    assert.deepEqual(merged, [{ name: 'batterie', qty: 5 }]);
    const ignored = ok(await db.from('items').upsert({ name: 'batterie', qty: 9 }, { onConflict: 'name', ignoreDuplicates: true }).select('qty'));
    assert.deepEqual(ignored, []);
  });
  test('update and delete, with and without select', async () => {
    ok(await db.from('items').insert({ name: 'essuie-glace', qty: 2 }));
    const updated = ok(await db.from('items').update({ qty: 4 }).eq('name', 'essuie-glace').select('qty'));
    assert.deepEqual(updated, [{ qty: 4 }]);
    const plain = await db.from('items').update({ note: 'vu' }).eq('name', 'essuie-glace');
    assert.equal(plain.error, null);
    assert.equal(plain.status, 204);
    const deleted = ok(await db.from('items').delete().eq('name', 'essuie-glace').select('name'));
    assert.deepEqual(deleted, [{ name: 'essuie-glace' }]);
    const gone = ok(await db.from('items').select('name').eq('name', 'essuie-glace'));
    assert.deepEqual(gone, []);
  });
  test('a delete without filters is refused', async () => {
    const { error } = await db.from('items').delete();
    assert.equal(error.code, '21000');
  });
  test('insert of an array with different keys and defaultToNull false', async () => {
    const rows = ok(await db.from('items').insert([{ name: 'a1' }, { name: 'a2', qty: 7 }], { defaultToNull: false }).select('name, qty'));
    assert.deepEqual(rows, [{ name: 'a1', qty: 1 }, { name: 'a2', qty: 7 }]);
  });
});

describe('rpc', () => {
  test('scalar by POST and GET, with defaults', async () => {
    assert.equal(ok(await db.rpc('add', { a: 2, b: 3 })), 5);
    assert.equal(ok(await db.rpc('add', { a: 2 }, { get: true })), 12);
  });
  test('set-returning functions take filters, order, limit and count', async () => {
    const rows = ok(await db.rpc('cities_in', { country: 'CD' }).select('name').gt('population', 400000).order('name', { ascending: false }));
    assert.deepEqual(names(rows), ['Lubumbashi', 'Kinshasa']);
    const counted = await db.rpc('cities_in', { country: 'CD' }, { count: 'exact' }).limit(1);
    assert.equal(counted.count, 3);
    const head = await db.rpc('numbers', { n: 4 }, { head: true, count: 'exact' });
    assert.equal(head.data, null);
    assert.deepEqual(ok(await db.rpc('numbers', { n: 3 })), [1, 2, 3]);
  });
  test('a row-returning function gives an object; void gives null', async () => {
    assert.equal(ok(await db.rpc('first_city')).name, 'Kinshasa');
    const v = await db.rpc('nothing');
    assert.equal(v.error, null);
    assert.equal(v.data, null);
  });
  test('a volatile function writes on POST', async () => {
    const id = ok(await db.rpc('add_item', { item_name: 'amortisseur' }));
    assert.equal(typeof id, 'number');
  });
  test('a volatile function cannot write on GET', async () => {
    const { error, status } = await db.rpc('add_item', { item_name: 'x' }, { get: true });
    assert.equal(error.code, '25006');
    assert.equal(status, 405);
  });
  test('a raised PT status and message reach the client', async () => {
    const { error, status } = await db.rpc('payment_required');
    assert.equal(status, 402);
    assert.equal(error.message, 'Payment Required');
    assert.equal(error.details, 'pay first');
    assert.equal(error.hint, 'use a card');
  });
});

describe('errors', () => {
  test('unknown table PGRST205 with a hint', async () => {
    const { error, status } = await db.from('citie').select();
    assert.equal(status, 404);
    assert.equal(error.code, 'PGRST205');
    assert.match(error.hint, /public\.cities/);
  });
  test('unknown column 42703', async () => {
    const { error, status } = await db.from('cities').select('nope');
    assert.equal(status, 400);
    assert.equal(error.code, '42703');
  });
  test('unknown relationship PGRST200', async () => {
    const { error } = await db.from('cities').select('name, films(*)');
    assert.equal(error.code, 'PGRST200');
  });
  test('unknown function PGRST202', async () => {
    const { error, status } = await db.rpc('nope', { x: 1 });
    assert.equal(status, 404);
    assert.equal(error.code, 'PGRST202');
  });
  test('unknown insert column PGRST204', async () => {
    const { error } = await db.from('items').insert({ nom: 'x' });
    assert.equal(error.code, 'PGRST204');
  });
  test('malformed filter PGRST100', async () => {
    const { error, status } = await db.from('cities').select().filter('id', 'nope', '1');
    assert.equal(status, 400);
    assert.equal(error.code, 'PGRST100');
  });
  test('unique violation 23505 with 409', async () => {
    const { error, status } = await db.from('items').insert([{ name: 'dup' }, { name: 'dup' }]);
    assert.equal(status, 409);
    assert.equal(error.code, '23505');
  });
  test('not-embedded filter PGRST108', async () => {
    const { error } = await db.from('cities').select('name').eq('films.title', 'x');
    assert.equal(error.code, 'PGRST108');
  });
  test('unexposed schema PGRST106', async () => {
    const { error, status } = await db.schema('secret').from('cities').select();
    assert.equal(status, 406);
    assert.equal(error.code, 'PGRST106');
  });
  test('ambiguous embedding PGRST201, resolved by a hint', async () => {
    const { error, status } = await db.from('cities').select('name, trips(id)');
    assert.equal(status, 300);
    assert.equal(error.code, 'PGRST201');
    assert.equal(error.details.length, 2);
    const rows = ok(await db.from('cities').select('name, trips!from_city(id)').eq('id', 1));
    assert.deepEqual(rows, [{ name: 'Kinshasa', trips: [{ id: 1 }] }]);
    const both = ok(await db.from('actors').select('name, films(title), roles(character)').eq('id', 2));
    assert.deepEqual(both, [{ name: 'Véro Tshanda Beya', films: [{ title: 'Félicité' }], roles: [{ character: 'Félicité' }] }]);
  });
});

describe('more error codes', () => {
  test('a range past the end with a count is 416 PGRST103', async () => {
    const { error, status } = await db.from('cities').select('*', { count: 'exact' }).range(50, 60);
    assert.equal(status, 416);
    assert.equal(error.code, 'PGRST103');
  });
  test('an unavailable media type is PGRST107', async () => {
    const { error, status } = await db.from('cities').select().geojson();
    assert.equal(status, 406);
    assert.equal(error.code, 'PGRST107');
  });
  test('aggregates are refused unless enabled (PGRST123)', async () => {
    const { error } = await db.from('cities').select('population.sum()');
    assert.equal(error.code, 'PGRST123');
  });
  test('maxAffected refuses and rolls back an update touching too many rows (PGRST124)', async () => {
    ok(await db.from('items').insert([{ name: 'm1', qty: 1 }, { name: 'm2', qty: 1 }]));
    const { error } = await db.from('items').update({ note: 'bulk' }).in('name', ['m1', 'm2']).maxAffected(1);
    assert.equal(error.code, 'PGRST124');
    const rows = ok(await db.from('items').select('note').in('name', ['m1', 'm2']));
    assert.deepEqual(rows, [{ note: null }, { note: null }]);
    const fine = await db.from('items').update({ note: 'one' }).eq('name', 'm1').maxAffected(1);
    assert.equal(fine.error, null);
  });
});

describe('rls and abort', () => {
  test('each user sees only their notes; anon sees none', async () => {
    const alice = '11111111-1111-4111-8111-111111111111';
    const bob = '22222222-2222-4222-8222-222222222222';
    const as = (sub) => userClient(server, sub, {});
    ok(await as(alice).from('private_notes').insert({ body: 'a' }));
    ok(await as(bob).from('private_notes').insert({ body: 'b' }));
    assert.deepEqual(ok(await as(alice).from('private_notes').select('body')), [{ body: 'a' }]);
    assert.deepEqual(ok(await db.from('private_notes').select('body')), []);
    const forged = await as(alice).from('private_notes').insert({ body: 'x', owner: bob });
    assert.equal(forged.error.code, '42501');
    assert.equal(forged.status, 403);
    assert.equal(ok(await admin.from('private_notes').select('body')).length, 2);
  });
  test('abortSignal cancels a request', async () => {
    const controller = new AbortController();
    const pending = db.rpc('slow', { seconds: 2 }).abortSignal(controller.signal);
    setTimeout(() => controller.abort(), 100);
    const { error } = await pending;
    assert.ok(error, 'aborted request reports an error');
    assert.match(`${error.message} ${error.details}`, /abort/i);
  });
});
