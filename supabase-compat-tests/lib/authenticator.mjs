// A software WebAuthn authenticator for the tests, as a browser and a platform authenticator
// would answer `navigator.credentials.create()` / `.get()`: P-256 keys (ES256), attestation
// "none", the client data JSON and the authenticator data of the WebAuthn spec, signed with
// node:crypto. Its answers are the JSON supabase-js sends (`PublicKeyCredential.toJSON()`).
import crypto from 'node:crypto';

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest();

// --- a minimal CBOR encoder: unsigned and negative integers, byte and text strings, maps ---
function head(major, n) {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}
export function cbor(value) {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: unsupported ${typeof value}`);
}

/** Flags of the authenticator data. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  /** `origin` is where the "browser" runs; credentials are kept per RP id. */
  constructor(origin) {
    this.origin = origin;
    this.credentials = [];
  }

  clientData(type, challenge, origin = this.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /**
   * `navigator.credentials.create()` for the server's options (JSON: base64url challenge and
   * user id). `tamper` changes one thing to see the server refuse it.
   */
  create(options, { origin, rpId, tamper } = {}) {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = crypto.randomBytes(16);
    const rp = rpId ?? options.rp.id;
    const cose = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
    const counter = Buffer.alloc(4);
    const authData = Buffer.concat([
      sha256(Buffer.from(rp)),
      Buffer.from([UP | UV | AT]),
      counter,
      Buffer.alloc(16), // AAGUID: none
      Buffer.from([0, id.length]),
      id,
      cose,
    ]);
    const attestationObject = cbor(new Map([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    const challenge = tamper === 'challenge' ? b64url(crypto.randomBytes(32)) : options.challenge;
    const clientDataJSON = this.clientData('webauthn.create', challenge, origin);
    const credential = { id, privateKey, rpId: rp, userHandle: Buffer.from(options.user.id, 'base64url'), counter: 0 };
    this.credentials.push(credential);
    const json = {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        attestationObject: b64url(attestationObject),
        clientDataJSON: b64url(clientDataJSON),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
    return { json, credential };
  }

  /**
   * `navigator.credentials.get()`: an assertion by `credential` (default: the first one allowed,
   * or the newest for a discoverable request).
   */
  get(options, { credential, origin, tamper } = {}) {
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const cred =
      credential ??
      (allowed.length ? this.credentials.find((c) => allowed.includes(b64url(c.id))) : this.credentials.at(-1));
    if (!cred) throw new Error('no credential for this request');
    cred.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(tamper === 'counter' ? 0 : cred.counter);
    const authData = Buffer.concat([sha256(Buffer.from(options.rpId ?? cred.rpId)), Buffer.from([UP | UV]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, origin);
    let signature = crypto.sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), cred.privateKey);
    if (tamper === 'signature') signature = Buffer.from(signature.map((b, i) => (i === 10 ? b ^ 1 : b)));
    return {
      id: b64url(cred.id),
      rawId: b64url(cred.id),
      type: 'public-key',
      response: {
        authenticatorData: b64url(authData),
        clientDataJSON: b64url(clientDataJSON),
        signature: b64url(signature),
        userHandle: b64url(cred.userHandle),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

/** What supabase-js's MFA serializers expect of a browser credential: an object with toJSON(). */
export const asBrowserCredential = (json) => ({ toJSON: () => json });
