//! The codecs of node:zlib and of the Web's `CompressionStream` and
//! `DecompressionStream`: gzip, zlib (deflate) and raw deflate by flate2,
//! brotli by the brotli crate. A node:zlib stream is a codec in the
//! runtime's table: each push gives it input and takes what it has
//! produced, flushing (a compression middleware's `res.flush()`) or
//! finishing when asked. The JS side (js/runtime/node/zlib.js) builds the
//! sync, callback and stream forms on these three ops. The Web streams keep
//! deno_web's JS; their three ops take the place of deno_web's.
//!
//! What one push may produce is capped before it is made (a decompression
//! bomb stops there), and what it produced is counted against the
//! runtime's budget for memory outside the JS heap (engine/external.rs).

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;
use flate2::Compression;

use super::external::{CountedBytes, ExternalBudget};

/// The largest output one push may produce: a decompression bomb stops
/// here, as Node's `maxOutputLength` stops it, with its error.
const MAX_OUTPUT: usize = 256 << 20;

/// What a codec has produced and not yet handed out. It refuses to grow
/// past `cap`, so a decompression bomb stops before its output is made,
/// not after.
#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
    cap: usize,
    /// Whether a write was refused since the cap was last set.
    overflowed: bool,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.cap {
            self.overflowed = true;
            return Err(std::io::Error::other("output past its cap"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One codec: input in, output out.
trait Codec {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()>;
    fn flush(&mut self) -> std::io::Result<()>;
    fn finish(&mut self) -> std::io::Result<()>;
    /// The output produced and not yet taken.
    fn output(&mut self) -> &mut Output;
}

/// A flate2 writer over an [`Output`] (encoders and decoders alike).
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
            fn output(&mut self) -> &mut Output {
                self.get_mut()
            }
        }
    };
}

flate_codec!(flate2::write::GzEncoder<Output>);
flate_codec!(flate2::write::GzDecoder<Output>);
flate_codec!(flate2::write::ZlibEncoder<Output>);
flate_codec!(flate2::write::ZlibDecoder<Output>);
flate_codec!(flate2::write::DeflateEncoder<Output>);
flate_codec!(flate2::write::DeflateDecoder<Output>);

/// `unzip`: gzip or zlib, as the first bytes say. Until they come, its
/// output is `before` (empty, holding the cap).
struct Unzip {
    inner: Option<Box<dyn Codec>>,
    before: Output,
}

impl Codec for Unzip {
    fn write(&mut self, input: &[u8]) -> std::io::Result<()> {
        let cap = self.before.cap;
        let inner = self.inner.get_or_insert_with(|| {
            let output = Output {
                cap,
                ..Output::default()
            };
            if input.starts_with(&[0x1f, 0x8b]) {
                Box::new(flate2::write::GzDecoder::new(output))
            } else {
                Box::new(flate2::write::ZlibDecoder::new(output))
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
    fn output(&mut self) -> &mut Output {
        match &mut self.inner {
            Some(inner) => inner.output(),
            None => &mut self.before,
        }
    }
}

/// Brotli compression; finishing takes the writer apart, so it is held in
/// an `Option` and its last output kept.
struct BrotliEncoder {
    writer: Option<brotli::CompressorWriter<Output>>,
    tail: Output,
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
    fn output(&mut self) -> &mut Output {
        match &mut self.writer {
            Some(writer) => writer.get_mut(),
            None => &mut self.tail,
        }
    }
}

struct BrotliDecoder {
    writer: brotli::DecompressorWriter<Output>,
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
    fn output(&mut self) -> &mut Output {
        self.writer.get_mut()
    }
}

/// The runtime's open node:zlib codecs, by id.
#[derive(Default)]
pub struct Streams {
    codecs: slab::Slab<Box<dyn Codec>>,
}

/// Opens a codec: `kind` is one of gzip, gunzip, deflate, inflate,
/// deflateRaw, inflateRaw, unzip, brotliCompress, brotliDecompress;
/// `level` is zlib's (-1 default, 0-9) or brotli's quality (0-11).
#[op2(fast)]
pub fn op_fwbench_zlib_new(state: &mut OpState, #[string] kind: &str, level: i32) -> Result<u32, JsErrorBox> {
    let codec = open(kind, level)?;
    Ok(state.borrow_mut::<Streams>().codecs.insert(codec) as u32)
}

fn open(kind: &str, level: i32) -> Result<Box<dyn Codec>, JsErrorBox> {
    let deflate_level = || Compression::new(if (0..=9).contains(&level) { level as u32 } else { 6 });
    let out = Output::default;
    let codec: Box<dyn Codec> = match kind {
        "gzip" => Box::new(flate2::write::GzEncoder::new(out(), deflate_level())),
        "gunzip" => Box::new(flate2::write::GzDecoder::new(out())),
        "deflate" => Box::new(flate2::write::ZlibEncoder::new(out(), deflate_level())),
        "inflate" => Box::new(flate2::write::ZlibDecoder::new(out())),
        "deflateRaw" => Box::new(flate2::write::DeflateEncoder::new(out(), deflate_level())),
        "inflateRaw" => Box::new(flate2::write::DeflateDecoder::new(out())),
        "unzip" => Box::new(Unzip {
            inner: None,
            before: out(),
        }),
        "brotliCompress" => {
            let quality = if (0..=11).contains(&level) {
                level as u32
            } else {
                11
            };
            Box::new(BrotliEncoder {
                writer: Some(brotli::CompressorWriter::new(out(), 4096, quality, 22)),
                tail: out(),
            })
        }
        "brotliDecompress" => Box::new(BrotliDecoder {
            writer: brotli::DecompressorWriter::new(out(), 4096),
        }),
        other => return Err(JsErrorBox::type_error(format!("unknown zlib codec '{other}'"))),
    };
    Ok(codec)
}

/// Why a push failed.
#[derive(Debug)]
enum PushError {
    /// The input is not what the codec decodes.
    Data(std::io::Error),
    /// The output would have passed `cap`: [`MAX_OUTPUT`], or less when
    /// that is all the runtime's budget has left (`by_budget`).
    TooLarge { cap: usize, by_budget: bool },
}

/// Gives `codec` its next input and returns what it produced, at most
/// [`MAX_OUTPUT`] bytes and what `budget` has room for; `flush` is 0
/// (none), 1 (a sync flush: everything so far, decodable) or 2 (the end
/// of the stream).
fn push(
    codec: &mut dyn Codec,
    input: &[u8],
    flush: u32,
    budget: &ExternalBudget,
) -> Result<Vec<u8>, PushError> {
    let room = budget.room();
    let cap = MAX_OUTPUT.min(room);
    let output = codec.output();
    output.cap = cap;
    output.overflowed = false;
    let result = (|| {
        if !input.is_empty() {
            codec.write(input)?;
        }
        match flush {
            1 => codec.flush(),
            2 => codec.finish(),
            _ => Ok(()),
        }
    })();
    let output = codec.output();
    if output.overflowed {
        output.bytes = Vec::new();
        return Err(PushError::TooLarge {
            cap,
            by_budget: room < MAX_OUTPUT,
        });
    }
    result.map_err(PushError::Data)?;
    Ok(std::mem::take(&mut output.bytes))
}

/// Gives codec `id` its next input and returns what it produced, counted
/// against the runtime's budget for memory outside the JS heap (see
/// [`push`]).
#[op2]
pub fn op_fwbench_zlib_push(
    state: &mut OpState,
    id: u32,
    #[buffer] input: &[u8],
    flush: u32,
) -> Result<CountedBytes, JsErrorBox> {
    let budget = state.borrow::<Arc<ExternalBudget>>().clone();
    let codec = state
        .borrow_mut::<Streams>()
        .codecs
        .get_mut(id as usize)
        .ok_or_else(|| JsErrorBox::generic("ERR_ZLIB_CLOSED: the zlib stream is closed"))?;
    let output = push(codec.as_mut(), input, flush, &budget).map_err(|error| match error {
        PushError::Data(e) => JsErrorBox::generic(format!("Z_DATA_ERROR: {e}")),
        PushError::TooLarge { cap, by_budget } => JsErrorBox::range_error(format!(
            "ERR_BUFFER_TOO_LARGE: the output of one zlib write exceeds {cap} bytes{}",
            if by_budget {
                ", what is left of this worker's memory outside the JS heap (--max-heap-mb)"
            } else {
                ""
            }
        )),
    })?;
    CountedBytes::reserve(&budget, output, "zlib output")
}

/// Frees codec `id` (a second close is a no-op).
#[op2(fast)]
pub fn op_fwbench_zlib_close(state: &mut OpState, id: u32) {
    let streams = state.borrow_mut::<Streams>();
    streams.codecs.try_remove(id as usize);
}

/// A `CompressionStream`'s or `DecompressionStream`'s codec, freed with the
/// stream by the garbage collector; `None` once finished.
pub struct WebCodec(RefCell<Option<Box<dyn Codec>>>);

// SAFETY: it holds no references to JS objects, so it has nothing to trace.
unsafe impl deno_core::GarbageCollected for WebCodec {
    fn trace(&self, _visitor: &mut v8::cppgc::Visitor) {}

    fn get_name(&self) -> &'static std::ffi::CStr {
        c"WebCodec"
    }
}

/// deno_web's `op_compression_new`, on these codecs: their output is capped
/// and counted, where deno_web's grows without bound (a 1 MB gzip body kept
/// 1 GiB past a 64 MiB limit).
#[op2]
#[cppgc]
pub fn op_fwbench_compression_new(#[string] format: &str, is_decoder: bool) -> Result<WebCodec, JsErrorBox> {
    let kind = match (format, is_decoder) {
        ("deflate", false) => "deflate",
        ("deflate", true) => "inflate",
        ("deflate-raw", false) => "deflateRaw",
        ("deflate-raw", true) => "inflateRaw",
        ("gzip", false) => "gzip",
        ("gzip", true) => "gunzip",
        ("brotli", false) => "brotliCompress",
        ("brotli", true) => "brotliDecompress",
        _ => return Err(JsErrorBox::type_error("Unsupported format")),
    };
    Ok(WebCodec(RefCell::new(Some(open(kind, -1)?))))
}

/// The errors of the Compression Streams standard: a TypeError for input
/// that does not decode; a RangeError past the output's cap.
fn web_error(error: PushError) -> JsErrorBox {
    match error {
        PushError::Data(e) => JsErrorBox::type_error(e.to_string()),
        PushError::TooLarge { cap, by_budget: true } => JsErrorBox::range_error(format!(
            "the output of one chunk would take this worker past its memory outside the JS heap \
             ({cap} bytes left; --max-heap-mb sets the limit)"
        )),
        PushError::TooLarge {
            cap,
            by_budget: false,
        } => JsErrorBox::range_error(format!("the output of one chunk exceeds {cap} bytes")),
    }
}

/// deno_web's `op_compression_write`: a decoder's output for the chunk, an
/// encoder's so far (not flushed, so it does not depend on the chunking).
#[op2]
pub fn op_fwbench_compression_write(
    state: &OpState,
    #[cppgc] codec: &WebCodec,
    #[anybuffer] input: &[u8],
) -> Result<CountedBytes, JsErrorBox> {
    let budget = state.borrow::<Arc<ExternalBudget>>();
    let mut codec = codec.0.borrow_mut();
    let codec = codec
        .as_mut()
        .ok_or_else(|| JsErrorBox::type_error("the stream is closed"))?;
    let output = push(codec.as_mut(), input, 0, budget).map_err(web_error)?;
    CountedBytes::reserve(budget, output, "a compression stream's output")
}

/// deno_web's `op_compression_finish`: the end of the output, or when the
/// stream was cancelled (`report_errors` false) nothing, errors ignored.
#[op2]
pub fn op_fwbench_compression_finish(
    state: &OpState,
    #[cppgc] codec: &WebCodec,
    report_errors: bool,
) -> Result<CountedBytes, JsErrorBox> {
    let budget = state.borrow::<Arc<ExternalBudget>>();
    let codec = codec.0.borrow_mut().take();
    let mut codec = codec.ok_or_else(|| JsErrorBox::type_error("the stream is closed"))?;
    match push(codec.as_mut(), &[], 2, budget) {
        Ok(output) => CountedBytes::reserve(budget, output, "a compression stream's output"),
        Err(error) if report_errors => Err(web_error(error)),
        Err(_) => CountedBytes::reserve(budget, Vec::new(), "a compression stream's output"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(encode: &str, decode: &str) {
        let budget = ExternalBudget::new(1 << 20);
        let text = "hello zlib ".repeat(200);
        let mut enc = open(encode, -1).unwrap();
        let mut packed = push(enc.as_mut(), text.as_bytes(), 1, &budget).unwrap();
        packed.extend(push(enc.as_mut(), b"", 2, &budget).unwrap());
        assert!(packed.len() < text.len() / 4, "{encode} compresses");
        let mut dec = open(decode, -1).unwrap();
        let mut plain = push(dec.as_mut(), &packed, 0, &budget).unwrap();
        plain.extend(push(dec.as_mut(), b"", 2, &budget).unwrap());
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
        let budget = ExternalBudget::new(1 << 20);
        let mut dec = open("gunzip", -1).unwrap();
        let err = push(dec.as_mut(), b"definitely not gzip", 2, &budget).unwrap_err();
        assert!(matches!(err, PushError::Data(_)), "{err:?}");
    }

    /// A gzip bomb: 64 MiB of zeros packs into about 64 KiB; against a
    /// 1 MiB budget, decoding it stops once its output reaches the room
    /// left, before the rest is made.
    #[test]
    fn a_decompression_bomb_stops_at_the_room_the_budget_has_left() {
        let budget = ExternalBudget::new(1 << 20);
        let mut enc = open("gzip", 9).unwrap();
        let roomy = ExternalBudget::new(usize::MAX);
        let mut bomb = Vec::new();
        for _ in 0..64 {
            bomb.extend(push(enc.as_mut(), &[0; 1 << 20], 0, &roomy).unwrap());
        }
        bomb.extend(push(enc.as_mut(), b"", 2, &roomy).unwrap());
        assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
        assert!(budget.try_reserve(256 << 10, "a test"));
        let mut dec = open("gunzip", -1).unwrap();
        match push(dec.as_mut(), &bomb, 0, &budget) {
            Err(PushError::TooLarge { cap, by_budget: true }) => assert_eq!(cap, 768 << 10),
            other => panic!("{:?}", other.map(|out| out.len())),
        }
    }
}
