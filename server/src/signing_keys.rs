//! Asymmetric signing keys of access tokens, as Supabase manages them.
//!
//! Keys live in `auth.signing_keys` (migration V55), shared by every server instance: one key is
//! `in_use` (it signs new access tokens, with its `kid` in the header), `standby` keys are
//! published and verify before they sign, `previously_used` keys still verify the tokens they
//! signed, and `revoked` keys verify nothing. The public halves are served at
//! `/auth/v1/.well-known/jwks.json`. The legacy HS256 secret is not here: it keeps verifying
//! (the anon and service_role keys are HS256) and signs only when no key is in use.
//!
//! Each instance holds a snapshot (`KeySet`) and re-reads the table every few seconds, at once
//! (at most once a second) when a token names a key it does not know; a reload that drops a key
//! bumps `revocations`, which makes verifiers forget the tokens they cached. ES256 keys are
//! generated here (ring); RS256 keys are imported from PEM (`openssl genrsa`). The operations
//! behind `server keys new|rotate|revoke` are the functions at the end.

use crate::db::cached::CachedQueries;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use deadpool_postgres::{GenericClient, Pool};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

/// Why a key could not be made, read or changed.
#[derive(Debug, thiserror::Error)]
pub enum SigningKeyError {
    #[error("database error: {0}")]
    Db(String),
    #[error("{0}")]
    BadKey(String),
    #[error("{0}")]
    Refused(String),
}

impl From<tokio_postgres::Error> for SigningKeyError {
    fn from(err: tokio_postgres::Error) -> Self {
        SigningKeyError::Db(err.to_string())
    }
}

impl From<deadpool_postgres::PoolError> for SigningKeyError {
    fn from(err: deadpool_postgres::PoolError) -> Self {
        SigningKeyError::Db(err.to_string())
    }
}

/// A key that verifies tokens naming its `kid`.
#[derive(Clone)]
pub struct VerifyingKey {
    pub algorithm: Algorithm,
    pub key: DecodingKey,
}

struct Signer {
    kid: String,
    algorithm: Algorithm,
    key: EncodingKey,
    /// An ES256 key parsed once: `jsonwebtoken::encode` parses its key on every call, and
    /// ring's parse derives the public point again, which cost as much as the signature.
    p256: Option<EcdsaKeyPair>,
}

impl Signer {
    fn new(kid: String, algorithm: Algorithm, key: EncodingKey, pem: &str) -> Signer {
        let p256 = (algorithm == Algorithm::ES256).then(|| der_of(pem).ok()).flatten().and_then(|(_, der)| {
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new()).ok()
        });
        Signer { kid, algorithm, key, p256 }
    }
}

/// One snapshot of the table: the signer, the verifying keys by `kid`, the published JWKS.
#[derive(Default)]
pub struct KeySet {
    signer: Option<Signer>,
    verifying: HashMap<String, VerifyingKey>,
    jwks: Vec<Value>,
}

impl KeySet {
    /// The key of `kid`, unless unknown or revoked.
    pub fn verifying(&self, kid: &str) -> Option<&VerifyingKey> {
        self.verifying.get(kid)
    }

    /// `kid` of the key that signs, if any.
    pub fn signing_kid(&self) -> Option<&str> {
        self.signer.as_ref().map(|s| s.kid.as_str())
    }
}

/// One row of `auth.signing_keys`, without its private half.
#[derive(Debug, Clone, Serialize)]
pub struct KeyInfo {
    pub id: Uuid,
    pub algorithm: String,
    pub status: String,
    pub created_at: String,
}

/// The shared, reloadable key set of this instance.
pub struct SigningKeys {
    set: RwLock<Arc<KeySet>>,
    revocations: AtomicU64,
    wake: tokio::sync::Notify,
}

impl std::fmt::Debug for SigningKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKeys([REDACTED])")
    }
}

impl Default for SigningKeys {
    fn default() -> Self {
        SigningKeys::with_set(KeySet::default())
    }
}

impl SigningKeys {
    fn with_set(set: KeySet) -> SigningKeys {
        SigningKeys {
            set: RwLock::new(Arc::new(set)),
            revocations: AtomicU64::new(0),
            wake: tokio::sync::Notify::new(),
        }
    }

    /// Read the table once.
    pub async fn load(pool: &Pool) -> Result<SigningKeys, SigningKeyError> {
        let client = pool.get().await?;
        Ok(SigningKeys::with_set(read_set(&client).await?))
    }

    /// The current snapshot.
    pub fn current(&self) -> Arc<KeySet> {
        match self.set.read() {
            Ok(set) => set.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// How many reloads dropped a key so far: a verifier that saw a smaller number forgets its cache.
    pub fn revocations(&self) -> u64 {
        self.revocations.load(Ordering::Acquire)
    }

    /// A token named a key this snapshot lacks: reload soon.
    pub fn unknown_kid(&self) {
        self.wake.notify_one();
    }

    /// The public keys, as `/.well-known/jwks.json` serves them.
    pub fn jwks(&self) -> Value {
        json!({ "keys": self.current().jwks })
    }

    /// Sign `claims` with the key in use (its `kid` in the header), else HS256 with `legacy`.
    pub fn sign<T: Serialize>(&self, claims: &T, legacy: &EncodingKey) -> Result<String, jsonwebtoken::errors::Error> {
        let set = self.current();
        match &set.signer {
            Some(signer) => {
                let mut header = Header::new(signer.algorithm);
                header.kid = Some(signer.kid.clone());
                match &signer.p256 {
                    Some(pair) => sign_p256(&header, claims, pair),
                    None => jsonwebtoken::encode(&header, claims, &signer.key),
                }
            }
            None => jsonwebtoken::encode(&Header::default(), claims, legacy),
        }
    }

    /// Replace the snapshot; count a revocation when a key that verified no longer does.
    fn replace(&self, next: KeySet) {
        let mut guard = match self.set.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if guard.verifying.keys().any(|kid| !next.verifying.contains_key(kid)) {
            self.revocations.fetch_add(1, Ordering::AcqRel);
        }
        *guard = Arc::new(next);
    }

    /// Re-read the table now (after this instance changed it; the others follow on their next
    /// reload or at the first token naming a key they lack).
    pub async fn reload(&self, pool: &Pool) -> Result<(), SigningKeyError> {
        let client = pool.get().await?;
        self.replace(read_set(&client).await?);
        Ok(())
    }

    /// Re-read the table every `interval`, and soon after `unknown_kid` (at most once a second).
    pub fn spawn_reloader(self: &Arc<Self>, pool: Pool, interval: Duration) {
        let keys = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                {
                    let Some(keys) = keys.upgrade() else { return };
                    tokio::select! {
                        _ = tokio::time::sleep(interval) => {}
                        _ = keys.wake.notified() => {}
                    }
                    match pool.get().await {
                        Ok(client) => match read_set(&client).await {
                            Ok(set) => keys.replace(set),
                            Err(err) => tracing::warn!(error = %err, "could not reload the signing keys"),
                        },
                        Err(err) => tracing::warn!(error = %err, "could not reload the signing keys"),
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

async fn read_set(client: &impl crate::db::cached::Db) -> Result<KeySet, SigningKeyError> {
    let rows = client
        .cached_query(
            "select id, algorithm, status, private_key, public_jwk from auth.signing_keys \
             where status <> 'revoked' order by created_at",
            &[],
        )
        .await?;
    let mut set = KeySet::default();
    for row in rows {
        let id: Uuid = row.get(0);
        let kid = id.to_string();
        let algorithm: String = row.get(1);
        let status: String = row.get(2);
        let pem: String = row.get(3);
        let jwk: Value = row.get(4);
        let (algorithm, decoding, encoding) = match keys_of(&algorithm, &pem, &jwk) {
            Ok(keys) => keys,
            Err(err) => {
                tracing::warn!(kid, error = %err, "skipping an unreadable signing key");
                continue;
            }
        };
        if status == "in_use" {
            set.signer = Some(Signer::new(kid.clone(), algorithm, encoding, &pem));
        }
        set.verifying.insert(kid, VerifyingKey { algorithm, key: decoding });
        set.jwks.push(jwk);
    }
    Ok(set)
}

/// What `jsonwebtoken::encode` makes of `header` and `claims` under an ES256 key, with the key
/// already parsed: the base64url of the header and of the claims as JSON, and of the fixed-size
/// signature (r and s) of the two joined by a dot.
fn sign_p256<T: Serialize>(
    header: &Header,
    claims: &T,
    pair: &EcdsaKeyPair,
) -> Result<String, jsonwebtoken::errors::Error> {
    let mut token = URL_SAFE_NO_PAD.encode(serde_json::to_vec(header)?);
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?));
    let signature = pair
        .sign(&SystemRandom::new(), token.as_bytes())
        .map_err(|_| jsonwebtoken::errors::Error::from(jsonwebtoken::errors::ErrorKind::InvalidEcdsaKey))?;
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(signature.as_ref()));
    Ok(token)
}

fn keys_of(algorithm: &str, pem: &str, jwk: &Value) -> Result<(Algorithm, DecodingKey, EncodingKey), SigningKeyError> {
    let field = |name: &str| jwk.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    let bad = |e: jsonwebtoken::errors::Error| SigningKeyError::BadKey(e.to_string());
    match algorithm {
        "ES256" => Ok((
            Algorithm::ES256,
            DecodingKey::from_ec_components(&field("x"), &field("y")).map_err(bad)?,
            EncodingKey::from_ec_pem(pem.as_bytes()).map_err(bad)?,
        )),
        "RS256" => Ok((
            Algorithm::RS256,
            DecodingKey::from_rsa_components(&field("n"), &field("e")).map_err(bad)?,
            EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(bad)?,
        )),
        other => Err(SigningKeyError::BadKey(format!("unsupported algorithm {other}"))),
    }
}

/// A new key: its id, algorithm, private PEM and public JWK.
pub struct NewKey {
    pub id: Uuid,
    pub algorithm: &'static str,
    pub pem: String,
    pub public_jwk: Value,
}

/// A fresh P-256 key for ES256.
pub fn generate_es256() -> Result<NewKey, SigningKeyError> {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
        .map_err(|_| SigningKeyError::BadKey("could not generate a P-256 key".into()))?;
    new_key_from_pem(&pem_of("PRIVATE KEY", pkcs8.as_ref()))
}

/// A key from a private key in PEM: P-256 (PKCS#8) for ES256, RSA (PKCS#1 or PKCS#8, 2048 bits
/// or more) for RS256.
pub fn new_key_from_pem(pem: &str) -> Result<NewKey, SigningKeyError> {
    let (label, der) = der_of(pem)?;
    let id = Uuid::new_v4();
    let rng = SystemRandom::new();
    let ec = (label == "PRIVATE KEY")
        .then(|| EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng).ok())
        .flatten();
    if let Some(pair) = ec {
        let point = pair.public_key().as_ref();
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        if point.len() != 65 {
            return Err(SigningKeyError::BadKey("unexpected P-256 public key".into()));
        }
        let jwk = json!({
            "alg": "ES256", "crv": "P-256", "ext": true, "key_ops": ["verify"], "kid": id.to_string(),
            "kty": "EC", "use": "sig",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        return Ok(NewKey { id, algorithm: "ES256", pem: pem.trim().to_string() + "\n", public_jwk: jwk });
    }
    let rsa = match label.as_str() {
        "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der),
        "PRIVATE KEY" => RsaKeyPair::from_pkcs8(&der),
        other => {
            return Err(SigningKeyError::BadKey(format!(
                "a {other} PEM is not supported: give a PKCS#8 P-256 key or an RSA key"
            )))
        }
    }
    .map_err(|e| SigningKeyError::BadKey(format!("not a P-256 or RSA private key: {e}")))?;
    let public: ring::rsa::PublicKeyComponents<Vec<u8>> = rsa.public().into();
    let jwk = json!({
        "alg": "RS256", "e": URL_SAFE_NO_PAD.encode(&public.e), "ext": true, "key_ops": ["verify"],
        "kid": id.to_string(), "kty": "RSA", "n": URL_SAFE_NO_PAD.encode(&public.n), "use": "sig",
    });
    Ok(NewKey { id, algorithm: "RS256", pem: pem.trim().to_string() + "\n", public_jwk: jwk })
}

/// A key from a private JWK, as Supabase's CLI keeps them (`signing_keys.json`: one JWK, an
/// array, or `{"keys": [...]}` whose first key is taken): P-256 (`EC`, ES256) or `RSA` (RS256).
/// Its `kid`, when a UUID, is kept, so tokens it signed before the move still verify here.
pub fn new_key_from_jwk(text: &str) -> Result<NewKey, SigningKeyError> {
    let bad = |why: &str| SigningKeyError::BadKey(format!("not a private JWK: {why}"));
    let value: Value = serde_json::from_str(text).map_err(|_| bad("not JSON"))?;
    let jwk = match &value {
        Value::Array(list) => list.first().cloned(),
        Value::Object(map) if map.contains_key("keys") => value["keys"].as_array().and_then(|l| l.first()).cloned(),
        Value::Object(_) => Some(value.clone()),
        _ => None,
    }
    .ok_or_else(|| bad("no key"))?;
    let part = |name: &str| -> Result<Vec<u8>, SigningKeyError> {
        let text = jwk.get(name).and_then(Value::as_str).ok_or_else(|| bad(&format!("no {name}")))?;
        URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).map_err(|_| bad(&format!("{name} is not base64url")))
    };
    let (label, der) = match jwk.get("kty").and_then(Value::as_str) {
        Some("EC") => {
            if jwk.get("crv").and_then(Value::as_str) != Some("P-256") {
                return Err(bad("only the P-256 curve is supported"));
            }
            let (d, x, y) = (part("d")?, part("x")?, part("y")?);
            if d.len() != 32 || x.len() != 32 || y.len() != 32 {
                return Err(bad("P-256 coordinates are 32 bytes"));
            }
            // PKCS#8 of a P-256 key, laid out as ring writes it: version, the id-ecPublicKey /
            // prime256v1 algorithm, then the ECPrivateKey with the private scalar and the point.
            let mut der = hex::decode("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420")
                .unwrap_or_default();
            der.extend_from_slice(&d);
            der.extend_from_slice(&hex::decode("a144034200").unwrap_or_default());
            der.push(0x04);
            der.extend_from_slice(&x);
            der.extend_from_slice(&y);
            ("PRIVATE KEY", der)
        }
        Some("RSA") => {
            let mut body = der_integer(&[0]);
            for name in ["n", "e", "d", "p", "q", "dp", "dq", "qi"] {
                body.extend(der_integer(&part(name)?));
            }
            ("RSA PRIVATE KEY", der_sequence(&body))
        }
        _ => return Err(bad("kty must be EC or RSA")),
    };
    let mut key = new_key_from_pem(&pem_of(label, &der))?;
    if let Some(kid) = jwk.get("kid").and_then(Value::as_str).and_then(|k| Uuid::parse_str(k).ok()) {
        key.id = kid;
        key.public_jwk["kid"] = json!(kid.to_string());
    }
    Ok(key)
}

/// Every key of a `signing_keys.json` (an array of private JWKs, one JWK, or `{"keys": [...]}`), in
/// order, each keeping its `kid`, which must be a UUID (tokens signed elsewhere name it).
pub fn new_keys_from_jwks(text: &str) -> Result<Vec<NewKey>, SigningKeyError> {
    let value: Value =
        serde_json::from_str(text).map_err(|_| SigningKeyError::BadKey("not a private JWK: not JSON".into()))?;
    let list = match value {
        Value::Array(list) => list,
        Value::Object(ref map) if map.contains_key("keys") => value["keys"].as_array().cloned().unwrap_or_default(),
        other => vec![other],
    };
    if list.is_empty() {
        return Err(SigningKeyError::BadKey("the file holds no key".into()));
    }
    list.iter()
        .enumerate()
        .map(|(i, jwk)| {
            let kid = jwk.get("kid").and_then(Value::as_str).unwrap_or_default();
            if Uuid::parse_str(kid).is_err() {
                return Err(SigningKeyError::BadKey(format!(
                    "key {} has kid {kid:?}: a UUID is needed (as `supabase gen signing-key` writes)",
                    i + 1
                )));
            }
            new_key_from_jwk(&jwk.to_string())
                .map_err(|e| SigningKeyError::BadKey(format!("key {} ({kid}): {e}", i + 1)))
        })
        .collect()
}

/// Install the keys of a project's `signing_keys.json`: each added if missing, the first in use
/// (the key in use before, if another, becomes previously used: its tokens still verify), the
/// others left as they are (new ones standby). Run at every start, so the file stays the source.
pub async fn install(client: &mut deadpool_postgres::Client, keys: &[NewKey]) -> Result<(), SigningKeyError> {
    let Some(first) = keys.first() else { return Ok(()) };
    let tx = client.transaction().await?;
    for key in keys {
        tx.cached_execute(
            "insert into auth.signing_keys (id, algorithm, status, private_key, public_jwk) \
             values ($1, $2, 'standby', $3, $4) on conflict (id) do nothing",
            &[&key.id, &key.algorithm, &key.pem, &key.public_jwk],
        )
        .await?;
    }
    tx.cached_execute(
        "update auth.signing_keys set status = 'previously_used', updated_at = now() where status = 'in_use' and id <> $1",
        &[&first.id],
    )
    .await?;
    tx.cached_execute(
        "update auth.signing_keys set status = 'in_use', updated_at = now() where id = $1 and status <> 'in_use'",
        &[&first.id],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A DER length.
fn der_length(len: usize) -> Vec<u8> {
    match len {
        0..=0x7f => vec![len as u8],
        0x80..=0xff => vec![0x81, len as u8],
        _ => vec![0x82, (len >> 8) as u8, len as u8],
    }
}

/// A DER INTEGER of big-endian unsigned `bytes`.
fn der_integer(bytes: &[u8]) -> Vec<u8> {
    let trimmed: Vec<u8> = bytes.iter().copied().skip_while(|b| *b == 0).collect();
    let mut value = if trimmed.is_empty() { vec![0] } else { trimmed };
    if value[0] & 0x80 != 0 {
        value.insert(0, 0);
    }
    let mut out = vec![0x02];
    out.extend(der_length(value.len()));
    out.extend(value);
    out
}

fn der_sequence(body: &[u8]) -> Vec<u8> {
    let mut out = vec![0x30];
    out.extend(der_length(body.len()));
    out.extend_from_slice(body);
    out
}

fn pem_of(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> =
        body.as_bytes().chunks(64).map(|chunk| std::str::from_utf8(chunk).unwrap_or_default()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
}

fn der_of(pem: &str) -> Result<(String, Vec<u8>), SigningKeyError> {
    let bad = || SigningKeyError::BadKey("not a PEM private key".into());
    let begin = pem.lines().map(str::trim).find(|l| l.starts_with("-----BEGIN ")).ok_or_else(bad)?;
    let label = begin.trim_start_matches("-----BEGIN ").trim_end_matches('-').to_string();
    let body: String = pem.lines().map(str::trim).filter(|l| !l.starts_with("-----") && !l.is_empty()).collect();
    let der = STANDARD.decode(body).map_err(|_| bad())?;
    Ok((label, der))
}

/// On a database whose table is empty (a new installation), generate an ES256 key in use.
/// Concurrent instances race safely: the one-in-use index keeps a single key.
pub async fn ensure_initial(client: &impl crate::db::cached::Db) -> Result<(), SigningKeyError> {
    let empty: bool = client.cached_query_one("select not exists (select 1 from auth.signing_keys)", &[]).await?.get(0);
    if empty {
        let key = generate_es256()?;
        client
            .cached_execute(
                "insert into auth.signing_keys (id, algorithm, status, private_key, public_jwk) \
                 values ($1, $2, 'in_use', $3, $4) on conflict do nothing",
                &[&key.id, &key.algorithm, &key.pem, &key.public_jwk],
            )
            .await?;
    }
    Ok(())
}

/// Every key, oldest first, without private halves.
pub async fn list(client: &impl crate::db::cached::Db) -> Result<Vec<KeyInfo>, SigningKeyError> {
    let rows = client
        .cached_query(
            "select id, algorithm, status, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') \
             from auth.signing_keys order by created_at",
            &[],
        )
        .await?;
    Ok(rows
        .into_iter()
        .map(|r| KeyInfo { id: r.get(0), algorithm: r.get(1), status: r.get(2), created_at: r.get(3) })
        .collect())
}

/// Add `key` as a standby key: published and verifying, not signing until `rotate`.
pub async fn add_standby(client: &impl crate::db::cached::Db, key: &NewKey) -> Result<(), SigningKeyError> {
    client
        .cached_execute(
            "insert into auth.signing_keys (id, algorithm, status, private_key, public_jwk) values ($1, $2, 'standby', $3, $4)",
            &[&key.id, &key.algorithm, &key.pem, &key.public_jwk],
        )
        .await?;
    Ok(())
}

/// The oldest standby key starts signing; the key in use becomes previously used. Its id.
pub async fn rotate(client: &mut deadpool_postgres::Client) -> Result<Uuid, SigningKeyError> {
    let tx = client.transaction().await?;
    let standby = tx
        .cached_query_opt(
            "select id from auth.signing_keys where status = 'standby' order by created_at limit 1 for update",
            &[],
        )
        .await?
        .ok_or_else(|| SigningKeyError::Refused("no standby key: add one with `server keys new` first".into()))?;
    let id: Uuid = standby.get(0);
    tx.cached_execute(
        "update auth.signing_keys set status = 'previously_used', updated_at = now() where status = 'in_use'",
        &[],
    )
    .await?;
    tx.cached_execute("update auth.signing_keys set status = 'in_use', updated_at = now() where id = $1", &[&id])
        .await?;
    tx.commit().await?;
    Ok(id)
}

/// Revoke a standby or previously used key: tokens it signed stop verifying everywhere.
pub async fn revoke(client: &impl crate::db::cached::Db, id: Uuid) -> Result<(), SigningKeyError> {
    let status: Option<String> =
        client.cached_query_opt("select status from auth.signing_keys where id = $1", &[&id]).await?.map(|r| r.get(0));
    match status.as_deref() {
        None => Err(SigningKeyError::Refused(format!("no signing key {id}"))),
        Some("in_use") => {
            Err(SigningKeyError::Refused("the key in use cannot be revoked: rotate to a standby key first".into()))
        }
        Some(_) => {
            client
                .cached_execute(
                    "update auth.signing_keys set status = 'revoked', updated_at = now() where id = $1",
                    &[&id],
                )
                .await?;
            Ok(())
        }
    }
}

/// A snapshot made of `keys` with their statuses (revoked ones left out), as a reload makes it.
#[cfg(test)]
pub(crate) fn set_of(keys: &[(&NewKey, &str)]) -> KeySet {
    let mut set = KeySet::default();
    for (key, status) in keys.iter().filter(|(_, status)| *status != "revoked") {
        let (algorithm, decoding, encoding) = keys_of(key.algorithm, &key.pem, &key.public_jwk).unwrap();
        if *status == "in_use" {
            set.signer = Some(Signer::new(key.id.to_string(), algorithm, encoding, &key.pem));
        }
        set.verifying.insert(key.id.to_string(), VerifyingKey { algorithm, key: decoding });
        set.jwks.push(key.public_jwk.clone());
    }
    set
}

#[cfg(test)]
impl SigningKeys {
    /// Keys as a reload of these rows would hold them.
    pub(crate) fn of(keys: &[(&NewKey, &str)]) -> SigningKeys {
        SigningKeys::with_set(set_of(keys))
    }

    /// Replace the snapshot as a reload would.
    pub(crate) fn reload_with(&self, keys: &[(&NewKey, &str)]) {
        self.replace(set_of(keys));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_es256_token_signed_with_the_parsed_key_is_what_jsonwebtoken_makes() {
        let key = generate_es256().unwrap();
        let keys = SigningKeys::with_set(set_of(&[(&key, "in_use")]));
        assert!(keys.current().signer.as_ref().is_some_and(|s| s.p256.is_some()), "the key is parsed once");
        let claims = json!({"sub": "x", "role": "authenticated", "exp": 4_000_000_000u64, "n": "é\"<"});
        let ours = keys.sign(&claims, &EncodingKey::from_secret(b"s")).unwrap();
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(key.id.to_string());
        let theirs =
            jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_pem(key.pem.as_bytes()).unwrap()).unwrap();
        let head = |t: &str| t.rsplit_once('.').unwrap().0.to_string();
        assert_eq!(head(&ours), head(&theirs), "the same header and claims, byte for byte");
        let (_, signature) = ours.rsplit_once('.').unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(signature).unwrap().len(), 64, "r and s, 32 bytes each");
        let verifying = keys.current().verifying(&key.id.to_string()).cloned().unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
        validation.validate_aud = false;
        let decoded = jsonwebtoken::decode::<Value>(&ours, &verifying.key, &validation).unwrap();
        assert_eq!(decoded.claims, claims);
    }

    #[test]
    fn a_generated_es256_key_signs_tokens_its_public_jwk_verifies() {
        let key = generate_es256().unwrap();
        assert_eq!(key.public_jwk["kty"], "EC");
        assert_eq!(key.public_jwk["kid"], key.id.to_string());
        assert!(key.public_jwk.get("d").is_none(), "the published JWK has no private part");
        let keys = SigningKeys::with_set(set_of(&[(&key, "in_use")]));
        let token = keys.sign(&json!({"sub": "x", "role": "authenticated"}), &EncodingKey::from_secret(b"s")).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::ES256);
        assert_eq!(header.kid.as_deref(), Some(key.id.to_string().as_str()));
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(key.public_jwk.clone()).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        let data = jsonwebtoken::decode::<Value>(&token, &DecodingKey::from_jwk(&jwk).unwrap(), &validation).unwrap();
        assert_eq!(data.claims["role"], "authenticated");
    }

    #[test]
    fn rsa_keys_in_pkcs1_and_pkcs8_sign_rs256_tokens_their_public_jwk_verifies() {
        for flag in ["-traditional", "-verbose"] {
            let out = std::process::Command::new("openssl")
                .args(["genrsa", flag, "2048"])
                .output()
                .expect("openssl (Debian package openssl) makes the test key");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let pem = String::from_utf8(out.stdout).unwrap();
            let label = if flag == "-traditional" { "RSA PRIVATE KEY" } else { "PRIVATE KEY" };
            assert!(pem.contains(&format!("BEGIN {label}")), "{pem:.40}");
            let key = new_key_from_pem(&pem).unwrap();
            let keys = SigningKeys::of(&[(&key, "in_use")]);
            let token = keys.sign(&json!({"sub": "x"}), &EncodingKey::from_secret(b"s")).unwrap();
            assert_eq!(jsonwebtoken::decode_header(&token).unwrap().alg, Algorithm::RS256);
            let public = DecodingKey::from_rsa_components(
                key.public_jwk["n"].as_str().unwrap(),
                key.public_jwk["e"].as_str().unwrap(),
            )
            .unwrap();
            let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
            validation.required_spec_claims.clear();
            let claims = jsonwebtoken::decode::<Value>(&token, &public, &validation).unwrap().claims;
            assert_eq!(claims, json!({"sub": "x"}), "{label}");
        }
    }

    #[test]
    fn without_a_key_in_use_tokens_are_hs256_with_the_legacy_secret() {
        let keys = SigningKeys::default();
        let token = keys.sign(&json!({"sub": "x"}), &EncodingKey::from_secret(b"legacy")).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::HS256);
        assert!(header.kid.is_none());
    }

    #[test]
    fn dropping_a_key_counts_a_revocation_and_adding_one_does_not() {
        let a = generate_es256().unwrap();
        let b = generate_es256().unwrap();
        let keys = SigningKeys::with_set(set_of(&[(&a, "in_use")]));
        keys.replace(set_of(&[(&a, "previously_used"), (&b, "in_use")]));
        assert_eq!(keys.revocations(), 0);
        assert_eq!(keys.jwks()["keys"].as_array().unwrap().len(), 2);
        keys.replace(set_of(&[(&b, "in_use")]));
        assert_eq!(keys.revocations(), 1);
        assert!(keys.current().verifying(&a.id.to_string()).is_none());
    }

    #[test]
    fn a_p256_private_jwk_is_imported_with_its_kid_and_signs_what_its_public_half_verifies() {
        let original = generate_es256().unwrap();
        let (_, der) = der_of(&original.pem).unwrap();
        // ring's PKCS#8 layout: the scalar follows the 36-byte header.
        let d = URL_SAFE_NO_PAD.encode(&der[36..68]);
        let kid = "8b4e2f5c-3f0e-4a35-9c1e-0d6f2b7a9e10";
        let jwk = json!({"kty": "EC", "crv": "P-256", "d": d, "x": original.public_jwk["x"], "y": original.public_jwk["y"],
            "kid": kid, "alg": "ES256", "key_ops": ["sign", "verify"]});
        let imported = new_key_from_jwk(&json!([jwk]).to_string()).unwrap();
        assert_eq!(imported.id.to_string(), kid);
        assert_eq!(
            (imported.public_jwk["x"].clone(), imported.public_jwk["y"].clone()),
            (original.public_jwk["x"].clone(), original.public_jwk["y"].clone())
        );
        let keys = SigningKeys::of(&[(&imported, "in_use")]);
        let token = keys.sign(&json!({"sub": "x"}), &EncodingKey::from_secret(b"s")).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        let public = DecodingKey::from_ec_components(
            original.public_jwk["x"].as_str().unwrap(),
            original.public_jwk["y"].as_str().unwrap(),
        )
        .unwrap();
        assert!(jsonwebtoken::decode::<Value>(&token, &public, &validation).is_ok());
        assert!(matches!(new_key_from_jwk(r#"{"kty": "oct", "k": "c2VjcmV0"}"#), Err(SigningKeyError::BadKey(_))));
        assert!(matches!(
            new_key_from_jwk(r#"{"kty": "EC", "crv": "P-384", "d": "AA", "x": "AA", "y": "AA"}"#),
            Err(SigningKeyError::BadKey(_))
        ));
    }

    #[test]
    fn pem_that_is_not_a_private_key_is_refused() {
        assert!(matches!(new_key_from_pem("hello"), Err(SigningKeyError::BadKey(_))));
        let garbage = pem_of("PRIVATE KEY", b"not der");
        assert!(matches!(new_key_from_pem(&garbage), Err(SigningKeyError::BadKey(_))));
    }
}
