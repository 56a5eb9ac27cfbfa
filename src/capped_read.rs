//! Reading a file a user names on the command line (a report for
//! `compare`, a request body for `load --body-file`) with a cap on its
//! size. Unbounded, `fwbench compare a.json /dev/zero` grew to 8 GB before
//! it was stopped; at most `cap + 1` bytes are read here, so an endless
//! or huge file costs no more than the cap.

use std::io::{self, Read};
use std::path::Path;

/// Why a capped file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CappedReadError {
    /// Opening or reading it failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// It holds more than the cap (or never ends, as /dev/zero).
    #[error("it is larger than {}", mib(*cap))]
    TooLarge {
        /// The cap, in bytes.
        cap: u64,
    },
}

/// Reads all of `path`, refusing it past `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, CappedReadError> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    // One byte past the cap tells "exactly the cap" from "more".
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(CappedReadError::TooLarge { cap });
    }
    Ok(bytes)
}

/// A cap in MiB, as the messages and `--help` state it (`64 MiB`).
pub fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_up_to_the_cap_and_refuses_past_it() {
        let dir = std::env::temp_dir().join(format!("fwbench-capped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_capped(&path, 5).unwrap(), b"12345");
        assert!(matches!(
            read_capped(&path, 4),
            Err(CappedReadError::TooLarge { cap: 4 })
        ));
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 1 << 20),
            Err(CappedReadError::TooLarge { .. })
        ));
        assert!(matches!(
            read_capped(&dir.join("absent"), 5),
            Err(CappedReadError::Io(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn caps_read_in_mib() {
        assert_eq!(mib(64 << 20), "64 MiB");
    }
}
