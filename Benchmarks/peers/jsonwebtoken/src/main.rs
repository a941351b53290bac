//! `jsonwebtoken-peer ALG CORPUS JWKS_FILE SECRET ISSUER AUDIENCE`
//!
//! A peer for the policy-engine batch benchmark: verifies every record of a token log with the
//! `jsonwebtoken` crate (8.2, Debian's), judging each one as `policy-run batch` does — signature
//! with exactly ALG, `iss` and `aud` required and matched, `exp` required and in the future at the
//! record's own `ts`, `nbf` (when present) not after it, no leeway.
//!
//! stdout, exactly two lines:
//!   `RATE VALID INVALID`  records per second over the verification loop, and the two counts
//!   `1011...0`            one verdict per record, in order (1 valid, 0 invalid)
//! Bad arguments, an unreadable corpus or an unusable key set: a message on stderr, exit 2.
//! A malformed record is only an invalid one.
//!
//! `jsonwebtoken-peer --primitive ALG TOKENS JWKS_FILE SECRET`
//!
//! Signature verification alone, for the `primitives` table: the crate's `crypto::verify` (ring
//! 0.16 underneath, the key parsed by ring per call as in a decode) on the signing inputs of
//! TOKENS (one, or several joined by commas, verified in turn), in loops of a third of a second,
//! best of three. stdout: `RATE` verifies per second. Each token must verify, and must not with
//! one bit of its signature flipped; otherwise exit 2.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::exit;
use std::time::Instant;

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{crypto, decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

/// One line of the log: `{"token":"<compact JWS>","ts":<unix seconds>}` (other members ignored).
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    token: Cow<'a, str>,
    ts: f64,
}

/// The keys a record can be verified with.
enum Keys {
    /// HS256: the one shared secret, whatever the token's `kid`.
    Secret(DecodingKey),
    /// Asymmetric algorithms: the JWKS, by `kid`, each key built once.
    ByKid(HashMap<String, DecodingKey>),
}

fn fail(message: &str) -> ! {
    eprintln!("jsonwebtoken-peer: {message}");
    exit(2)
}

fn parse_algorithm(name: &str) -> Algorithm {
    match name {
        "RS256" => Algorithm::RS256,
        "PS256" => Algorithm::PS256,
        "ES256" => Algorithm::ES256,
        "EdDSA" => Algorithm::EdDSA,
        "HS256" => Algorithm::HS256,
        other => fail(&format!("unsupported ALG {other:?} (one of RS256, PS256, ES256, EdDSA, HS256)")),
    }
}

/// A JWKS member as a decoding key: `DecodingKey::from_jwk` when the crate's `Jwk` type accepts the
/// member; otherwise (the crate rejects a whole JWK over, say, an `alg` or `use` value it does not
/// know) straight from the components, for the key types and curves the crate can verify with.
fn load_jwk(member: &Value) -> Result<DecodingKey, String> {
    let parse_error = match serde_json::from_value::<Jwk>(member.clone()) {
        Ok(jwk) => return DecodingKey::from_jwk(&jwk).map_err(|e| e.to_string()),
        Err(e) => e,
    };
    let field = |name: &str| member.get(name).and_then(Value::as_str);
    let missing = |name: &str| format!("no {name:?} member");
    match (field("kty"), field("crv")) {
        (Some("RSA"), _) => {
            let (n, e) = (field("n").ok_or_else(|| missing("n"))?, field("e").ok_or_else(|| missing("e"))?);
            DecodingKey::from_rsa_components(n, e).map_err(|e| e.to_string())
        }
        (Some("EC"), Some("P-256" | "P-384")) => {
            let (x, y) = (field("x").ok_or_else(|| missing("x"))?, field("y").ok_or_else(|| missing("y"))?);
            DecodingKey::from_ec_components(x, y).map_err(|e| e.to_string())
        }
        (Some("OKP"), Some("Ed25519")) => {
            DecodingKey::from_ed_components(field("x").ok_or_else(|| missing("x"))?).map_err(|e| e.to_string())
        }
        _ => Err(parse_error.to_string()),
    }
}

fn load_jwks(path: &str) -> HashMap<String, DecodingKey> {
    let text = std::fs::read(path).unwrap_or_else(|e| fail(&format!("cannot read JWKS {path}: {e}")));
    let set: Value = serde_json::from_slice(&text).unwrap_or_else(|e| fail(&format!("JWKS {path} is not JSON: {e}")));
    let members = set
        .get("keys")
        .and_then(Value::as_array)
        .unwrap_or_else(|| fail(&format!("JWKS {path} has no \"keys\" array")));
    let mut keys = HashMap::new();
    for (index, member) in members.iter().enumerate() {
        let kid = match member.get("kid").and_then(Value::as_str) {
            Some(kid) => kid,
            None => {
                eprintln!("jsonwebtoken-peer: JWKS key {index} has no kid; skipped");
                continue;
            }
        };
        match load_jwk(member) {
            // The first key of a kid wins, as a lookup in the set would find it.
            Ok(key) => {
                keys.entry(kid.to_string()).or_insert(key);
            }
            Err(e) => eprintln!("jsonwebtoken-peer: JWKS key {index} (kid {kid:?}) is unusable: {e}; skipped"),
        }
    }
    if keys.is_empty() {
        fail(&format!("JWKS {path} holds no usable key"));
    }
    keys
}

fn hmac_secret(secret: &str) -> DecodingKey {
    let bytes = base64::decode_config(secret.trim_end_matches('='), base64::URL_SAFE_NO_PAD)
        .unwrap_or_else(|e| fail(&format!("SECRET is not base64url: {e}")));
    if bytes.is_empty() {
        fail("SECRET is empty");
    }
    DecodingKey::from_secret(&bytes)
}

/// The verdict on one line of the log.
fn judge(line: &[u8], keys: &Keys, validation: &Validation) -> bool {
    let record = match serde_json::from_slice::<Record>(line) {
        Ok(record) => record,
        Err(_) => return false,
    };
    let key = match keys {
        Keys::Secret(key) => key,
        Keys::ByKid(by_kid) => {
            let header = match decode_header(&record.token) {
                Ok(header) => header,
                Err(_) => return false,
            };
            match header.kid.as_deref().and_then(|kid| by_kid.get(kid)) {
                Some(key) => key,
                None => return false,
            }
        }
    };
    // Signature, algorithm, iss, aud and the presence of exp/iss/aud: the crate's checks.
    let data = match decode::<Value>(&record.token, key, validation) {
        Ok(data) => data,
        Err(_) => return false,
    };
    // Times, at the record's ts rather than the wall clock.
    let exp = match data.claims.get("exp").and_then(Value::as_f64) {
        Some(exp) => exp,
        None => return false,
    };
    if !(record.ts < exp) {
        return false;
    }
    match data.claims.get("nbf") {
        None | Some(Value::Null) => true,
        Some(nbf) => matches!(nbf.as_f64(), Some(nbf) if nbf <= record.ts),
    }
}

/// The key TOKEN names (its `kid` in the JWKS), or the secret for HS256.
fn primitive_key(algorithm: Algorithm, token: &str, jwks: &str, secret: &str) -> DecodingKey {
    if algorithm == Algorithm::HS256 {
        return hmac_secret(secret);
    }
    let kid = decode_header(token)
        .unwrap_or_else(|e| fail(&format!("TOKEN has no readable header: {e}")))
        .kid
        .unwrap_or_else(|| fail("TOKEN has no kid"));
    load_jwks(jwks).remove(&kid).unwrap_or_else(|| fail(&format!("the JWKS has no key {kid:?}")))
}

/// `--primitive`: verifies per second of TOKENS' signatures alone, in turn.
fn primitive(alg: &str, tokens: &str, jwks: &str, secret: &str) {
    let algorithm = parse_algorithm(alg);
    let tokens: Vec<&str> = tokens.split(',').collect();
    let key = primitive_key(algorithm, tokens[0], jwks, secret);
    let parts: Vec<(&str, &str)> =
        tokens.iter().map(|token| token.rsplit_once('.').unwrap_or_else(|| fail("a token is not a compact JWS"))).collect();
    let verifies = |message: &str, signature: &str| crypto::verify(signature, message.as_bytes(), &key, algorithm).unwrap_or(false);
    // One bit flipped: the top bit of the first base64url character's six, the first byte's top bit.
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for &(message, signature) in &parts {
        let mut flipped = signature.as_bytes().to_vec();
        let six = ALPHABET.iter().position(|&c| Some(&c) == flipped.first()).unwrap_or_else(|| fail("a signature is not base64url"));
        flipped[0] = ALPHABET[six ^ 32];
        let flipped = String::from_utf8(flipped).unwrap_or_else(|_| fail("a signature is not ASCII"));
        if !verifies(message, signature) || verifies(message, &flipped) {
            fail("a signature does not verify, or a flipped one does");
        }
    }
    let mut best = 0.0f64;
    let mut next = 0;
    for _ in 0..3 {
        let (start, mut count) = (Instant::now(), 0u64);
        while start.elapsed().as_secs_f64() < 1.0 / 3.0 {
            for _ in 0..32 {
                let (message, signature) = parts[next];
                next = if next + 1 == parts.len() { 0 } else { next + 1 };
                if !verifies(message, signature) {
                    fail("a verification in the loop failed");
                }
            }
            count += 32;
        }
        best = best.max(count as f64 / start.elapsed().as_secs_f64());
    }
    println!("{best:.1}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 6 && args[1] == "--primitive" {
        return primitive(&args[2], &args[3], &args[4], &args[5]);
    }
    if args.len() != 7 {
        fail("usage: jsonwebtoken-peer ALG CORPUS JWKS_FILE SECRET ISSUER AUDIENCE");
    }
    let (alg, corpus, jwks, secret, issuer, audience) = (&args[1], &args[2], &args[3], &args[4], &args[5], &args[6]);
    let algorithm = parse_algorithm(alg);

    let keys = if algorithm == Algorithm::HS256 { Keys::Secret(hmac_secret(secret)) } else { Keys::ByKid(load_jwks(jwks)) };

    let mut validation = Validation::new(algorithm);
    validation.set_issuer(&[issuer.as_str()]);
    validation.set_audience(&[audience.as_str()]);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.leeway = 0;
    // The crate compares exp/nbf with the wall clock; the log's records carry their own time.
    validation.validate_exp = false;
    validation.validate_nbf = false;

    // The whole log, read up front; blank lines are not records.
    let text = std::fs::read(corpus).unwrap_or_else(|e| fail(&format!("cannot read corpus {corpus}: {e}")));
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .collect();

    let mut verdicts = Vec::with_capacity(lines.len() + 1);
    let start = Instant::now();
    for line in &lines {
        let valid = catch_unwind(AssertUnwindSafe(|| judge(line, &keys, &validation))).unwrap_or(false);
        verdicts.push(if valid { b'1' } else { b'0' });
    }
    let seconds = start.elapsed().as_secs_f64();

    let valid = verdicts.iter().filter(|&&v| v == b'1').count();
    let rate = if lines.is_empty() || seconds <= 0.0 { 0.0 } else { lines.len() as f64 / seconds };
    verdicts.push(b'\n');
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = writeln!(out, "{rate:.3} {valid} {}", lines.len() - valid).and_then(|_| out.write_all(&verdicts)).and_then(|_| out.flush());
    if let Err(e) = written {
        fail(&format!("cannot write results: {e}"));
    }
}
