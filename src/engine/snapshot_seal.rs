//! The seal on the V8 startup snapshot: a header that says which binary the
//! snapshot was built for, so that one that does not match is refused with
//! a clear error instead of being deserialized (V8 resolves a snapshot's
//! native functions by their index in the runtime's table of external
//! references: a snapshot of other ops would call the wrong functions).
//!
//! build.rs compiles this file too: it seals the snapshot it builds with
//! the fingerprint of the extensions it built it from, and each runtime
//! opens it with the fingerprint of the extensions it registers.
//!
//! Layout: `FWBSNAP1`, then little-endian u64s: the fingerprint, the
//! payload's length and its checksum; then the payload (deno_core's
//! snapshot: V8's startup data and its sidecar).

use deno_core::Extension;

/// The first bytes of a sealed snapshot.
const MAGIC: &[u8; 8] = b"FWBSNAP1";
/// Magic, fingerprint, length, checksum.
const HEADER_LEN: usize = 32;

/// Why a sealed snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It is not a sealed snapshot at all (too short, or another format).
    NotASnapshot,
    /// It was built for other extensions, ops, engine or versions.
    OtherBinary {
        /// The fingerprint it was sealed with.
        sealed_for: u64,
        /// This binary's.
        expected: u64,
    },
    /// Its length or checksum does not match its contents.
    Corrupt,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotASnapshot => f.write_str("it is not an fwbench startup snapshot"),
            Refused::OtherBinary { sealed_for, expected } => write!(
                f,
                "it was built for other extensions, ops or engine versions (fingerprint {sealed_for:016x}, \
                 this binary's is {expected:016x})"
            ),
            Refused::Corrupt => f.write_str("its contents do not match its checksum (it is corrupt)"),
        }
    }
}

/// A 64-bit FNV-1a-style hash, fed word by word where it can be: stable
/// across builds and platforms of one endianness, unlike std's hashers.
struct Hash(u64);

impl Hash {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        Hash(0xcbf2_9ce4_8422_2325)
    }

    fn word(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(Self::PRIME).rotate_left(23);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.word(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        self.word(u64::from_le_bytes(last));
        // The length too, so that "ab" + "c" and "a" + "bc" differ.
        self.word(bytes.len() as u64);
    }
}

/// The checksum of a snapshot's payload: [`Hash`] over four interleaved
/// lanes of words, joined at the end. One chain of multiplies waits on
/// each one before the next; four independent ones keep the CPU's
/// multiplier busy: express's 4.7 MB snapshot is checked in 0.3 ms
/// instead of 1.0 (it is checked at every start).
fn checksum(bytes: &[u8]) -> u64 {
    let mut lanes = [1, 2, 3, 4].map(|seed| Hash(Hash::new().0 ^ seed));
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            lane.word(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
    }
    let mut joined = Hash::new();
    for lane in lanes {
        joined.word(lane.0);
    }
    joined.bytes(blocks.remainder());
    joined.word(bytes.len() as u64);
    joined.0
}

/// The fingerprint of a runtime's extensions as a snapshot must match
/// them: their names and order, every op's name, arity and kind, their
/// object and external-reference counts, plus `versions` (the engine's,
/// deno_core's) and fwbench's own.
pub fn fingerprint(versions: &[&str], extensions: &[Extension]) -> u64 {
    let mut hash = Hash::new();
    hash.bytes(env!("CARGO_PKG_VERSION").as_bytes());
    for version in versions {
        hash.bytes(version.as_bytes());
    }
    for extension in extensions {
        hash.bytes(extension.name.as_bytes());
        hash.word(extension.ops.len() as u64);
        for op in extension.ops.iter() {
            hash.bytes(op.name.as_bytes());
            hash.word(u64::from(op.arg_count) | u64::from(op.is_async) << 8);
        }
        hash.word(extension.objects.len() as u64);
        hash.word(extension.external_references.len() as u64);
    }
    hash.0
}

/// `payload` (deno_core's snapshot) sealed for `fingerprint`.
#[allow(dead_code, reason = "build.rs seals; the library only opens")]
pub fn seal(payload: &[u8], fingerprint: u64) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(HEADER_LEN + payload.len());
    sealed.extend_from_slice(MAGIC);
    sealed.extend_from_slice(&fingerprint.to_le_bytes());
    sealed.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    sealed.extend_from_slice(&checksum(payload).to_le_bytes());
    sealed.extend_from_slice(payload);
    sealed
}

/// The payload of `sealed` if it was sealed for `fingerprint` and its
/// length is right. Its checksum is [`verify`]'s: it reads every byte, and
/// once per process is enough.
pub fn open(sealed: &[u8], fingerprint: u64) -> Result<&[u8], Refused> {
    let payload = payload(sealed)?;
    let sealed_for = field(sealed, 8);
    if sealed_for != fingerprint {
        return Err(Refused::OtherBinary {
            sealed_for,
            expected: fingerprint,
        });
    }
    Ok(payload)
}

/// Whether `sealed`'s payload matches its checksum.
pub fn verify(sealed: &[u8]) -> Result<(), Refused> {
    let payload = payload(sealed)?;
    if checksum(payload) == field(sealed, 24) {
        Ok(())
    } else {
        Err(Refused::Corrupt)
    }
}

/// The payload after the header, if the header is one and its length field
/// matches.
fn payload(sealed: &[u8]) -> Result<&[u8], Refused> {
    if sealed.len() < HEADER_LEN || &sealed[..8] != MAGIC {
        return Err(Refused::NotASnapshot);
    }
    let payload = &sealed[HEADER_LEN..];
    if field(sealed, 16) != payload.len() as u64 {
        return Err(Refused::Corrupt);
    }
    Ok(payload)
}

/// The little-endian u64 at `at` in a header checked to be whole.
fn field(sealed: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(sealed[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_payload_byte_or_length_breaks_the_seal() {
        let payload: Vec<u8> = (0..100u8).collect();
        let sealed = seal(&payload, 7);
        assert_eq!(verify(&sealed), Ok(()));
        assert_eq!(open(&sealed, 7), Ok(&payload[..]));
        for at in HEADER_LEN..sealed.len() {
            let mut corrupt = sealed.clone();
            corrupt[at] ^= 0x10;
            assert_eq!(verify(&corrupt), Err(Refused::Corrupt), "byte {at} flipped");
        }
        // Two words swapped between lanes, and a payload cut short.
        let mut swapped = payload.clone();
        swapped[..16].rotate_left(8);
        assert_ne!(checksum(&swapped), checksum(&payload));
        assert_ne!(checksum(&payload[..99]), checksum(&payload));
        assert_eq!(
            open(&sealed, 8),
            Err(Refused::OtherBinary {
                sealed_for: 7,
                expected: 8
            })
        );
    }
}
