// The text a PDF shows, enough for a test to find words in it: every content stream inflated
// (FlateDecode) and the strings of its text operators (Tj, TJ) decoded as WinAnsi, the encoding of
// the standard fonts the receipts use. Not a general PDF reader (no fonts with their own encodings).
import { inflateSync } from 'node:zlib';

// WinAnsiEncoding's bytes 0x80–0x9F, where it differs from Latin-1.
const WIN_ANSI = {
  0x80: '€', 0x82: '‚', 0x83: 'ƒ', 0x84: '„', 0x85: '…', 0x86: '†', 0x87: '‡', 0x88: 'ˆ', 0x89: '‰', 0x8a: 'Š',
  0x8b: '‹', 0x8c: 'Œ', 0x8e: 'Ž', 0x91: '‘', 0x92: '’', 0x93: '“', 0x94: '”', 0x95: '•', 0x96: '–', 0x97: '—',
  0x98: '˜', 0x99: '™', 0x9a: 'š', 0x9b: '›', 0x9c: 'œ', 0x9e: 'ž', 0x9f: 'Ÿ',
};
const decode = (bytes) => [...bytes].map((b) => WIN_ANSI[b] ?? String.fromCharCode(b)).join('');

/** A literal string's bytes: `(…)` with its escapes. */
function literal(body) {
  const out = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out.push(c.charCodeAt(0));
      continue;
    }
    const n = body[++i];
    const simple = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
    if (n in simple) out.push(simple[n]);
    else if (/[0-7]/.test(n)) {
      const oct = body.slice(i, i + 3).match(/^[0-7]{1,3}/)[0];
      out.push(parseInt(oct, 8));
      i += oct.length - 1;
    }
  }
  return out;
}

/** The lines of text (one per text operator) of the PDF in `buffer`. */
export function pdfText(buffer) {
  const raw = buffer.toString('latin1');
  const lines = [];
  const start = /stream\r?\n/g;
  let m;
  while ((m = start.exec(raw))) {
    const from = m.index + m[0].length;
    const to = raw.indexOf('endstream', from);
    if (to < 0) break;
    start.lastIndex = to;
    let content;
    try {
      content = inflateSync(buffer.subarray(from, to)).toString('latin1');
    } catch {
      continue; // not a deflated stream (an image, a font)
    }
    for (const op of content.matchAll(/(\[(?:[^\]]*)\]|<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\))\s*(Tj|TJ|')/g)) {
      const parts = [...op[1].matchAll(/<([0-9A-Fa-f\s]*)>|\(((?:\\.|[^\\)])*)\)/g)];
      lines.push(parts.map((p) => decode(p[1] !== undefined ? Buffer.from(p[1].replace(/\s/g, ''), 'hex') : literal(p[2]))).join(''));
    }
  }
  return lines;
}
