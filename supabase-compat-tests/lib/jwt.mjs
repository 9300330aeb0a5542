// Signs HS256 JWTs for tests (forged, expired or user tokens), with node's crypto only.
import { createHmac } from 'node:crypto';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

export function signJwt(claims, secret, header = { alg: 'HS256', typ: 'JWT' }) {
  const head = b64url(JSON.stringify(header));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}
