// Helpers for the auth tests: supabase-js clients, the development inbox, a tiny SMTP sink.
import net from 'node:net';
import { createClient } from '@supabase/supabase-js';
import { signJwt } from './jwt.mjs';

/** A supabase-js client that keeps nothing between calls. */
export function client(server, key = server.anonKey, auth = {}) {
  return createClient(server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, ...auth },
  });
}

/** A client calling as the signed-in user `sub` (a token signed with the server's secret). */
export function userClient(server, sub, claims = { aud: 'authenticated' }) {
  const token = signJwt({ sub, role: 'authenticated', exp: 4e9, ...claims }, server.jwtSecret);
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { Authorization: `Bearer ${token}` } },
  });
}

/** Storage in memory (PKCE keeps its code verifier there). */
export function memoryStorage() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => { map.set(k, v); },
    removeItem: (k) => { map.delete(k); },
  };
}

let counter = 0;
/** A fresh address for one test. */
export function email(tag = 'user') {
  counter += 1;
  return `${tag}-${Date.now()}-${counter}@example.test`;
}

/** The newest message of `kind` sent to `to`, waiting up to 5 s for it. */
export async function mail(server, to, kind) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await fetch(`${server.url}/inbox/api/messages?to=${encodeURIComponent(to)}`);
    const { messages } = await res.json();
    const found = messages.find((m) => !kind || m.kind === kind);
    if (found) {
      const link = new URL(found.link);
      // GoTrue's `code: 123456`, or the rental project's French `code : 123456`.
      const code = found.text.match(/code ?: (\d{6})/)?.[1];
      return { ...found, tokenHash: link.searchParams.get('token'), code };
    }
    if (Date.now() > deadline) throw new Error(`no ${kind} mail for ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Parse `#a=b&c=d` into an object. */
export function fragment(location) {
  return Object.fromEntries(new URLSearchParams(new URL(location).hash.slice(1)));
}

/**
 * A real (minimal) SMTP server on 127.0.0.1: speaks EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP,
 * QUIT, with dot-unstuffing, and keeps every message it receives.
 */
export async function startSmtpSink() {
  const messages = [];
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current = { from: null, to: [], data: '' };
    const reply = (line) => socket.write(`${line}\r\n`);
    reply('220 sink.test ESMTP ready');
    socket.on('data', (chunk) => {
      buffer += chunk;
      let idx;
      while ((idx = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(current);
            current = { from: null, to: [], data: '' };
            reply('250 2.0.0 queued');
          } else {
            current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          }
          continue;
        }
        const verb = line.split(' ')[0].toUpperCase();
        if (verb === 'EHLO') {
          socket.write('250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
        } else if (verb === 'HELO') {
          reply('250 sink.test');
        } else if (verb === 'MAIL') {
          current.from = line.slice(10).trim();
          reply('250 2.1.0 ok');
        } else if (verb === 'RCPT') {
          current.to.push(line.slice(8).trim());
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 end data with <CR><LF>.<CR><LF>');
        } else if (verb === 'RSET') {
          current = { from: null, to: [], data: '' };
          reply('250 ok');
        } else if (verb === 'NOOP') {
          reply('250 ok');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else {
          reply('502 5.5.2 command not recognized');
        }
      }
    });
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    messages,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
