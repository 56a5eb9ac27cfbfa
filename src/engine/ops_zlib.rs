//! node:zlib's codecs: gzip, zlib (deflate) and raw deflate by flate2,
//! brotli by the brotli crate. A stream is a codec in the runtime's table:
//! each push gives it input and takes what it has produced, flushing (a
//! compression middleware's `res.flush()`) or finishing when asked. The JS
//! side (js/runtime/node/zlib.js) builds the sync, callback and stream
//! forms on these three ops.

use std::io::Write;

use deno_core::{op2, OpState, ToJsBuffer};
use deno_error::JsErrorBox;
use flate2::Compression;

/// The largest output one push may produce: a decompression bomb stops
/// here, as Node's `maxOutputLength` stops it, with its error.
const MAX_OUTPUT: usize = 256 << 20;

/// One codec: input in, output out.
trait Codec {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()>;
    fn flush(&mut self) -> std::io::Result<()>;
    fn finish(&mut self) -> std::io::Result<()>;
    /// The output produced since the last call.
    fn take(&mut self) -> Vec<u8>;
}

/// A flate2 writer over a `Vec` (encoders and decoders alike).
macro_rules! flate_codec {
    ($ty:ty) => {
        impl Codec for $ty {
            fn write(&mut self, input: &[u8]) -> std::io::Result<()> {
                self.write_all(input)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Write::flush(self)
            }
            fn finish(&mut self) -> std::io::Result<()> {
                self.try_finish()
            }
            fn take(&mut self) -> Vec<u8> {
                std::mem::take(self.get_mut())
            }
        }
    };
}

flate_codec!(flate2::write::GzEncoder<Vec<u8>>);
flate_codec!(flate2::write::GzDecoder<Vec<u8>>);
flate_codec!(flate2::write::ZlibEncoder<Vec<u8>>);
flate_codec!(flate2::write::ZlibDecoder<Vec<u8>>);
flate_codec!(flate2::write::DeflateEncoder<Vec<u8>>);
flate_codec!(flate2::write::DeflateDecoder<Vec<u8>>);

/// `unzip`: gzip or zlib, as the first bytes say.
struct Unzip {
    inner: Option<Box<dyn Codec>>,
}

impl Codec for Unzip {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()> {
        let inner = self.inner.get_or_insert_with(|| {
            if input.starts_with(&[0x1f, 0x8b]) {
                Box::new(flate2::write::GzDecoder::new(Vec::new()))
            } else {
                Box::new(flate2::write::ZlibDecoder::new(Vec::new()))
            }
        });
        inner.write(input)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.as_mut().map_or(Ok(()), |inner| inner.flush())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.inner.as_mut().map_or(Ok(()), |inner| inner.finish())
    }
    fn take(&mut self) -> Vec<u8> {
        self.inner.as_mut().map(|inner| inner.take()).unwrap_or_default()
    }
}

/// Brotli compression; finishing takes the writer apart, so it is held in
/// an `Option` and its last output kept.
struct BrotliEncoder {
    writer: Option<brotli::CompressorWriter<Vec<u8>>>,
    tail: Vec<u8>,
}

impl Codec for BrotliEncoder {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()> {
        match &mut self.writer {
            Some(writer) => writer.write_all(input),
            None => Err(std::io::Error::other("write after end")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().map_or(Ok(()), |w| w.flush())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(writer) = self.writer.take() {
            self.tail = writer.into_inner();
        }
        Ok(())
    }
    fn take(&mut self) -> Vec<u8> {
        match &mut self.writer {
            Some(writer) => std::mem::take(writer.get_mut()),
            None => std::mem::take(&mut self.tail),
        }
    }
}

struct BrotliDecoder {
    writer: brotli::DecompressorWriter<Vec<u8>>,
}

impl Codec for BrotliDecoder {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(input)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.writer.close()
    }
    fn take(&mut self) -> Vec<u8> {
        std::mem::take(self.writer.get_mut())
    }
}

/// The runtime's open codecs, by id.
#[derive(Default)]
pub struct Streams {
    codecs: slab::Slab<Box<dyn Codec>>,
}

/// Opens a codec: `kind` is one of gzip, gunzip, deflate, inflate,
/// deflateRaw, inflateRaw, unzip, brotliCompress, brotliDecompress;
/// `level` is zlib's (-1 default, 0-9) or brotli's quality (0-11).
#[op2(fast)]
pub fn op_fwbench_zlib_new(state: &mut OpState, #[string] kind: &str, level: i32) -> Result<u32, JsErrorBox> {
    open(state.borrow_mut::<Streams>(), kind, level)
}

fn open(streams: &mut Streams, kind: &str, level: i32) -> Result<u32, JsErrorBox> {
    let deflate_level = || Compression::new(if (0..=9).contains(&level) { level as u32 } else { 6 });
    let codec: Box<dyn Codec> = match kind {
        "gzip" => Box::new(flate2::write::GzEncoder::new(Vec::new(), deflate_level())),
        "gunzip" => Box::new(flate2::write::GzDecoder::new(Vec::new())),
        "deflate" => Box::new(flate2::write::ZlibEncoder::new(Vec::new(), deflate_level())),
        "inflate" => Box::new(flate2::write::ZlibDecoder::new(Vec::new())),
        "deflateRaw" => Box::new(flate2::write::DeflateEncoder::new(Vec::new(), deflate_level())),
        "inflateRaw" => Box::new(flate2::write::DeflateDecoder::new(Vec::new())),
        "unzip" => Box::new(Unzip { inner: None }),
        "brotliCompress" => {
            let quality = if (0..=11).contains(&level) {
                level as u32
            } else {
                11
            };
            Box::new(BrotliEncoder {
                writer: Some(brotli::CompressorWriter::new(Vec::new(), 4096, quality, 22)),
                tail: Vec::new(),
            })
        }
        "brotliDecompress" => Box::new(BrotliDecoder {
            writer: brotli::DecompressorWriter::new(Vec::new(), 4096),
        }),
        other => return Err(JsErrorBox::type_error(format!("unknown zlib codec '{other}'"))),
    };
    Ok(streams.codecs.insert(codec) as u32)
}

/// Gives codec `id` its next input and returns what it produced; `flush`
/// is 0 (none), 1 (a sync flush: everything so far, decodable) or 2 (the
/// end of the stream).
#[op2]
#[serde]
pub fn op_fwbench_zlib_push(
    state: &mut OpState,
    id: u32,
    #[buffer] input: &[u8],
    flush: u32,
) -> Result<ToJsBuffer, JsErrorBox> {
    push(state.borrow_mut::<Streams>(), id, input, flush).map(ToJsBuffer::from)
}

fn push(streams: &mut Streams, id: u32, input: &[u8], flush: u32) -> Result<Vec<u8>, JsErrorBox> {
    let codec = streams
        .codecs
        .get_mut(id as usize)
        .ok_or_else(|| JsErrorBox::generic("ERR_ZLIB_CLOSED: the zlib stream is closed"))?;
    let data_error = |e: std::io::Error| JsErrorBox::generic(format!("Z_DATA_ERROR: {e}"));
    if !input.is_empty() {
        codec.write(input).map_err(data_error)?;
    }
    match flush {
        1 => codec.flush().map_err(data_error)?,
        2 => codec.finish().map_err(data_error)?,
        _ => {}
    }
    let output = codec.take();
    if output.len() > MAX_OUTPUT {
        return Err(JsErrorBox::range_error(format!(
            "ERR_BUFFER_TOO_LARGE: the output of one zlib write exceeds {MAX_OUTPUT} bytes"
        )));
    }
    Ok(output)
}

/// Frees codec `id` (a second close is a no-op).
#[op2(fast)]
pub fn op_fwbench_zlib_close(state: &mut OpState, id: u32) {
    let streams = state.borrow_mut::<Streams>();
    streams.codecs.try_remove(id as usize);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(encode: &str, decode: &str) {
        let mut streams = Streams::default();
        let text = "hello zlib ".repeat(200);
        let enc = open(&mut streams, encode, -1).unwrap();
        let mut packed = push(&mut streams, enc, text.as_bytes(), 1).unwrap();
        packed.extend(push(&mut streams, enc, b"", 2).unwrap());
        assert!(packed.len() < text.len() / 4, "{encode} compresses");
        let dec = open(&mut streams, decode, -1).unwrap();
        let mut plain = push(&mut streams, dec, &packed, 0).unwrap();
        plain.extend(push(&mut streams, dec, b"", 2).unwrap());
        assert_eq!(plain, text.as_bytes(), "{encode} → {decode}");
    }

    #[test]
    fn every_codec_roundtrips() {
        roundtrip("gzip", "gunzip");
        roundtrip("gzip", "unzip");
        roundtrip("deflate", "inflate");
        roundtrip("deflate", "unzip");
        roundtrip("deflateRaw", "inflateRaw");
        roundtrip("brotliCompress", "brotliDecompress");
    }

    #[test]
    fn corrupt_input_is_a_data_error() {
        let mut streams = Streams::default();
        let dec = open(&mut streams, "gunzip", -1).unwrap();
        let err = push(&mut streams, dec, b"definitely not gzip", 2).unwrap_err();
        assert!(err.to_string().contains("Z_DATA_ERROR"), "{err}");
    }
}
