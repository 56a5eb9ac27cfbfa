//! Ops for the cryptography JS cannot do itself: secure randomness
//! (`crypto.getRandomValues` / `randomUUID`), digests, HMAC and
//! constant-time comparison. The JS glue over them is `crypto.subtle` (the
//! WebCrypto subset in js/runtime/bootstrap.js: SHA digests, HMAC keys,
//! sign and verify) and the `node:crypto` shim (createHash, createHmac,
//! timingSafeEqual, secret KeyObjects).
//!
//! Why not deno_crypto: it is the whole WebCrypto surface (RSA, EC, AES,
//! X25519, key wrapping, with ring, aws-lc and their C builds), while the
//! production chains fwbench serves (scenarios/prod.js: JWT bearer auth,
//! request ids) need SHA digests and HMAC. The RustCrypto crates below are
//! pure Rust, small, and build the same for V8 and QuickJS-ng.
//!
//! The JS side validates algorithm names, key types and usages and throws
//! the Web-standard errors (`NotSupportedError`, `InvalidAccessError`,
//! `DataError`); these ops check again and refuse with a `TypeError`
//! rather than panic, whatever they are given.

use deno_core::op2;
use deno_error::JsErrorBox;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Digest;

/// Fills `buf` with cryptographically secure random bytes.
#[op2(fast)]
pub fn op_fwbench_random_fill(#[buffer] buf: &mut [u8]) {
    rand::thread_rng().fill_bytes(buf);
}

/// A random (version 4) UUID, as `crypto.randomUUID()` returns it.
#[op2]
#[string]
pub fn op_fwbench_random_uuid() -> String {
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    uuid_v4(bytes)
}

/// Formats 16 random bytes as a version 4, variant 1 UUID.
fn uuid_v4(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// A digest algorithm the host computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Md5,
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    /// Node's spelling (`sha256`), WebCrypto's (`SHA-256`) or any case of
    /// either.
    fn parse(name: &str) -> Result<Algorithm, JsErrorBox> {
        let folded: String = name
            .chars()
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        Ok(match folded.as_str() {
            "md5" => Algorithm::Md5,
            "sha1" => Algorithm::Sha1,
            "sha256" => Algorithm::Sha256,
            "sha384" => Algorithm::Sha384,
            "sha512" => Algorithm::Sha512,
            _ => {
                return Err(JsErrorBox::type_error(format!(
                    "digest algorithm not supported in fwbench: {name} (supported: md5, sha1, sha256, sha384, sha512)"
                )))
            }
        })
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Algorithm::Md5 => md5::Md5::digest(data).to_vec(),
            Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
            Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    /// HMAC (RFC 2104) of `data` under `key`.
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        fn mac<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
            // HMAC takes a key of any length (a longer one is hashed first),
            // so this never fails; an error would be a bug in the crate.
            let mut mac = <M as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of every length");
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        match self {
            Algorithm::Md5 => mac::<Hmac<md5::Md5>>(key, data),
            Algorithm::Sha1 => mac::<Hmac<sha1::Sha1>>(key, data),
            Algorithm::Sha256 => mac::<Hmac<sha2::Sha256>>(key, data),
            Algorithm::Sha384 => mac::<Hmac<sha2::Sha384>>(key, data),
            Algorithm::Sha512 => mac::<Hmac<sha2::Sha512>>(key, data),
        }
    }
}

/// The digest of `data` with `algorithm` (md5, sha1, sha256, sha384,
/// sha512, in Node's or WebCrypto's spelling).
#[op2]
#[buffer]
pub fn op_fwbench_hash(#[string] algorithm: &str, #[buffer] data: &[u8]) -> Result<Vec<u8>, JsErrorBox> {
    Ok(Algorithm::parse(algorithm)?.digest(data))
}

/// The HMAC of `data` under `key` with the digest `algorithm`.
#[op2]
#[buffer]
pub fn op_fwbench_hmac(
    #[string] algorithm: &str,
    #[buffer] key: &[u8],
    #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
    Ok(Algorithm::parse(algorithm)?.hmac(key, data))
}

/// Whether `signature` is the HMAC of `data` under `key`, compared in
/// constant time (a signature of the wrong length is simply not it).
#[op2(fast)]
pub fn op_fwbench_hmac_verify(
    #[string] algorithm: &str,
    #[buffer] key: &[u8],
    #[buffer] data: &[u8],
    #[buffer] signature: &[u8],
) -> Result<bool, JsErrorBox> {
    let expected = Algorithm::parse(algorithm)?.hmac(key, data);
    Ok(expected.len() == signature.len() && constant_time_eq(&expected, signature))
}

/// Compares two buffers in time that depends only on their length.
#[op2(fast)]
pub fn op_fwbench_timing_safe_equal(#[buffer] a: &[u8], #[buffer] b: &[u8]) -> Result<bool, JsErrorBox> {
    if a.len() != b.len() {
        return Err(JsErrorBox::range_error(
            "Input buffers must have the same byte length",
        ));
    }
    Ok(constant_time_eq(a, b))
}

/// `a == b` for equal lengths, touching every byte whatever they hold.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn uuids_are_version_4_variant_1() {
        assert_eq!(uuid_v4([0xff; 16]), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert_eq!(uuid_v4([0; 16]), "00000000-0000-4000-8000-000000000000");
    }

    #[test]
    fn names_parse_in_node_and_webcrypto_spelling() {
        for name in ["sha256", "SHA-256", "Sha-256"] {
            assert_eq!(Algorithm::parse(name).unwrap(), Algorithm::Sha256);
        }
        assert_eq!(Algorithm::parse("SHA-384").unwrap(), Algorithm::Sha384);
        let error = Algorithm::parse("sha3-256").unwrap_err().to_string();
        assert!(
            error.contains("sha3-256") && error.contains("supported"),
            "{error}"
        );
    }

    #[test]
    fn sha256_of_abc_is_the_fips_180_vector() {
        assert_eq!(
            hex(&Algorithm::Sha256.digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn hmac_sha256_matches_rfc_4231_test_case_2() {
        let mac = Algorithm::Sha256.hmac(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn an_empty_key_and_a_key_longer_than_the_block_are_accepted() {
        assert_eq!(Algorithm::Sha256.hmac(b"", b"x").len(), 32);
        assert_eq!(Algorithm::Sha512.hmac(&[7; 1000], b"x").len(), 64);
    }
}
