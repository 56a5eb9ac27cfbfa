//! Ops for host services that JS cannot do itself: secure randomness
//! (crypto.getRandomValues / randomUUID), digests and constant-time
//! comparison for the `node:crypto` shim, and the server log.

use deno_core::op2;
use deno_error::JsErrorBox;
use rand::RngCore;

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

/// The digest of `data` with `algorithm` (sha1, md5, sha256, sha512).
#[op2]
#[buffer]
pub fn op_fwbench_hash(#[string] algorithm: &str, #[buffer] data: &[u8]) -> Result<Vec<u8>, JsErrorBox> {
    use sha2::Digest;
    Ok(match algorithm.to_ascii_lowercase().as_str() {
        "sha1" => sha1::Sha1::digest(data).to_vec(),
        "md5" => md5::Md5::digest(data).to_vec(),
        "sha256" => sha2::Sha256::digest(data).to_vec(),
        "sha512" => sha2::Sha512::digest(data).to_vec(),
        other => {
            return Err(JsErrorBox::type_error(format!(
                "Digest method not supported in fwbench: {other} (supported: sha1, md5, sha256, sha512)"
            )))
        }
    })
}

/// Compares two buffers in time that depends only on their length.
#[op2(fast)]
pub fn op_fwbench_timing_safe_equal(#[buffer] a: &[u8], #[buffer] b: &[u8]) -> Result<bool, JsErrorBox> {
    if a.len() != b.len() {
        return Err(JsErrorBox::range_error(
            "Input buffers must have the same byte length",
        ));
    }
    Ok(a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0)
}

/// Writes one line to the server log (stderr).
#[op2(fast)]
pub fn op_fwbench_log(#[string] line: &str) {
    eprintln!("{}", line.trim_end_matches('\n'));
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_are_version_4_variant_1() {
        assert_eq!(super::uuid_v4([0xff; 16]), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert_eq!(super::uuid_v4([0; 16]), "00000000-0000-4000-8000-000000000000");
    }
}
