//! Memory a runtime holds outside its JS heap, on the app's behalf: the
//! backing stores of ArrayBuffers and SharedArrayBuffers (typed arrays and
//! DataViews included) and the bytes of Blobs. `--max-heap-mb` bounds the
//! JS heap only; without this budget one handler that kept 5 × 128 MiB of
//! SharedArrayBuffer at `--max-heap-mb 64` answered 200 five times at 695
//! MB of RSS.
//!
//! Each runtime gets an [`ExternalBudget`] of the same size as its heap
//! limit. What counts against it, and how an allocation past it fails:
//! - V8: every backing store the engine allocates goes through the isolate's
//!   ArrayBuffer allocator, here [`counting_allocator`], which returns null
//!   past the budget; V8 then collects garbage, tries once more, and throws
//!   `RangeError: Array buffer allocation failed`. WebAssembly memories do
//!   not use this allocator (V8 reserves them from the page allocator), so
//!   the host removes `WebAssembly` before app code runs (`START_RUNTIME`
//!   in engine/mod.rs).
//! - QuickJS-ng: ArrayBuffers come from the runtime's own malloc and so count
//!   against the heap limit already, but the backend allocates
//!   SharedArrayBuffers with the C library's calloc; the bootstrap wraps the
//!   constructor to reserve here first ([`op_fwbench_external_reserve`]).
//! - Both: a Blob's bytes are copied into deno_web's blob store, in Rust;
//!   [`op_fwbench_blob_create_part`] takes the place of deno_web's op to
//!   count them, and refuses a part past the budget with a `RangeError`.
//! - Both: buffers the host makes from Rust memory for JS, which the engine
//!   adopts without its allocator, are [`CountedBytes`]: reserved before JS
//!   sees them and given back when the engine frees them. The ops that make
//!   them take the place of deno_core's and deno_web's: `TextEncoder.encode`
//!   ([`op_fwbench_encode`]), a Blob read back
//!   ([`op_fwbench_blob_read_part`]), and in engine/ops_zlib.rs the output
//!   of `CompressionStream`, `DecompressionStream` and node:zlib.
//!
//! A request body's chunks are the one host buffer not counted here: the
//! adapter bounds them by `--max-body-bytes`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use std::cell::RefCell;
use std::rc::Rc;

use deno_core::{op2, v8, JsBuffer, OpState, ToV8};
use deno_error::JsErrorBox;
use deno_web::{BlobPart, BlobStoreTrait};

/// How many bytes a runtime may hold outside its JS heap, and how many it
/// holds. Shared by the allocator (on V8 it outlives the isolate, until its
/// last backing store is freed) and the runtime's ops.
#[derive(Debug)]
pub struct ExternalBudget {
    limit: usize,
    used: AtomicUsize,
    /// Whether a refusal was logged: once per runtime is enough to say why
    /// the app sees `RangeError`s.
    logged: AtomicBool,
}

impl ExternalBudget {
    /// A budget of `limit` bytes, none used.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            used: AtomicUsize::new(0),
            logged: AtomicBool::new(false),
        })
    }

    /// Takes `bytes` from the budget, or returns false (and takes nothing)
    /// when they would take it past its limit.
    pub fn try_reserve(&self, bytes: usize, what: &str) -> bool {
        let taken = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            });
        if taken.is_err() && !self.logged.swap(true, Ordering::Relaxed) {
            // Not eprintln!: a closed stderr must not panic inside an
            // allocation. The app sees the refusal as a RangeError.
            let _ = writeln!(
                std::io::stderr(),
                "fwbench: {what} of {bytes} bytes refused: memory outside the JS heap (ArrayBuffers, \
                 SharedArrayBuffers, Blobs) is limited to {} MiB per worker, as the heap is (--max-heap-mb); \
                 logged once per runtime",
                self.limit >> 20
            );
        }
        taken.is_ok()
    }

    /// [`try_reserve`](Self::try_reserve) for an op: past the limit, the
    /// `RangeError` JS sees, naming `what` and both limits.
    pub fn reserve(&self, bytes: usize, what: &str) -> Result<(), JsErrorBox> {
        if self.try_reserve(bytes, what) {
            return Ok(());
        }
        Err(JsErrorBox::range_error(format!(
            "{what} of {bytes} bytes would take this worker past its {} MiB for memory outside the JS heap \
             ({} bytes held; --max-heap-mb sets both limits)",
            self.limit >> 20,
            self.used()
        )))
    }

    /// Gives back `bytes` taken by [`try_reserve`](Self::try_reserve).
    pub fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// The bytes that may still be taken.
    pub fn room(&self) -> usize {
        self.limit.saturating_sub(self.used())
    }

    /// The bytes held now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// Bytes the host made for JS, reserved from a runtime's budget. They reach
/// JS as a `Uint8Array` whose backing store gives the reservation back when
/// the engine frees it; dropped before that, they give it back at once.
pub struct CountedBytes(Box<Held>);

/// The bytes behind a [`CountedBytes`] and the budget they are counted in.
struct Held {
    bytes: Vec<u8>,
    budget: Arc<ExternalBudget>,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.release(self.bytes.len());
    }
}

impl CountedBytes {
    /// Reserves `bytes` (`what` names them for the refusal) from `budget`,
    /// or refuses with a `RangeError` past it.
    pub fn reserve(budget: &Arc<ExternalBudget>, bytes: Vec<u8>, what: &str) -> Result<Self, JsErrorBox> {
        budget.reserve(bytes.len(), what)?;
        Ok(Self(Box::new(Held {
            bytes,
            budget: budget.clone(),
        })))
    }

    /// Hands the bytes to the engine as a `Uint8Array`.
    pub fn into_uint8array<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Uint8Array>, JsErrorBox> {
        unsafe extern "C" fn free(_data: *mut std::ffi::c_void, _len: usize, held: *mut std::ffi::c_void) {
            // SAFETY: `held` is the `Box::into_raw` below; the engine calls
            // its deleter once.
            drop(unsafe { Box::from_raw(held as *mut Held) });
        }
        let len = self.0.bytes.len();
        let held = Box::into_raw(self.0);
        // SAFETY: `held` is valid until `free`; its bytes do not move (the
        // Vec is not touched again until it is dropped there).
        let data = unsafe { (*held).bytes.as_mut_ptr() } as *mut std::ffi::c_void;
        let store = unsafe { v8::ArrayBuffer::new_backing_store_from_ptr(data, len, free, held as *mut _) };
        let buffer = v8::ArrayBuffer::with_backing_store(scope, &store.make_shared());
        v8::Uint8Array::new(scope, buffer, 0, len)
            .ok_or_else(|| JsErrorBox::range_error(format!("a Uint8Array of {len} bytes could not be made")))
    }
}

impl<'a> ToV8<'a> for CountedBytes {
    type Error = JsErrorBox;

    fn to_v8<'i>(self, scope: &mut v8::PinScope<'a, 'i>) -> Result<v8::Local<'a, v8::Value>, JsErrorBox> {
        self.into_uint8array(scope).map(Into::into)
    }
}

/// deno_core's `op_encode` (`TextEncoder.encode`, `core.encode`): a
/// string's UTF-8 bytes, counted against the runtime's budget.
#[op2]
pub fn op_fwbench_encode<'s, 'i>(
    scope: &mut v8::PinScope<'s, 'i>,
    state: &OpState,
    text: v8::Local<'s, v8::Value>,
) -> Result<v8::Local<'s, v8::Uint8Array>, JsErrorBox> {
    let text =
        v8::Local::<v8::String>::try_from(text).map_err(|_| JsErrorBox::type_error("Invalid argument"))?;
    let bytes = text.to_rust_string_lossy(scope).into_bytes();
    let budget = state.borrow::<Arc<ExternalBudget>>();
    CountedBytes::reserve(budget, bytes, "an encoded string")?.into_uint8array(scope)
}

/// deno_web's `op_blob_read_part`: a copy of a Blob part's bytes, counted
/// against the runtime's budget.
#[op2]
pub async fn op_fwbench_blob_read_part(
    state: Rc<RefCell<OpState>>,
    #[scoped] id: uuid::Uuid,
) -> Result<CountedBytes, JsErrorBox> {
    let (part, budget) = {
        let state = state.borrow();
        let part = state.borrow::<Arc<dyn BlobStoreTrait>>().get_part(&id);
        (part, state.borrow::<Arc<ExternalBudget>>().clone())
    };
    let part = part.ok_or_else(|| JsErrorBox::type_error("Blob part not found"))?;
    let bytes = part.read().await.to_vec();
    CountedBytes::reserve(&budget, bytes, "a Blob read")
}

/// An ArrayBuffer allocator for V8 that counts every backing store against
/// `budget` and refuses one past it (V8 then throws a `RangeError`). The
/// memory itself comes from calloc/malloc, as with V8's default allocator.
#[cfg(feature = "v8")]
pub fn counting_allocator(budget: Arc<ExternalBudget>) -> deno_core::v8::UniqueRef<deno_core::v8::Allocator> {
    use std::ffi::c_void;

    use deno_core::v8;

    unsafe extern "C" fn allocate(budget: &ExternalBudget, len: usize) -> *mut c_void {
        if !budget.try_reserve(len, "an ArrayBuffer") {
            return std::ptr::null_mut();
        }
        // SAFETY: calloc with a non-zero size; a null result is V8's
        // "allocation failed", as from the default allocator.
        let data = unsafe { libc::calloc(len.max(1), 1) };
        if data.is_null() {
            budget.release(len);
        }
        data
    }
    unsafe extern "C" fn allocate_uninitialized(budget: &ExternalBudget, len: usize) -> *mut c_void {
        if !budget.try_reserve(len, "an ArrayBuffer") {
            return std::ptr::null_mut();
        }
        // SAFETY: as in `allocate`; V8 asked for uninitialized memory.
        let data = unsafe { libc::malloc(len.max(1)) };
        if data.is_null() {
            budget.release(len);
        }
        data
    }
    unsafe extern "C" fn free(budget: &ExternalBudget, data: *mut c_void, len: usize) {
        // SAFETY: `data` came from `allocate` or `allocate_uninitialized`
        // with this `len` (V8's contract for Free).
        unsafe { libc::free(data) };
        budget.release(len);
    }
    unsafe extern "C" fn drop(budget: *const ExternalBudget) {
        // SAFETY: the pointer is the `Arc::into_raw` below, dropped once,
        // when V8 drops the allocator.
        unsafe { Arc::from_raw(budget) };
    }
    static VTABLE: v8::RustAllocatorVtable<ExternalBudget> = v8::RustAllocatorVtable {
        allocate,
        allocate_uninitialized,
        free,
        drop,
    };
    // SAFETY: the handle stays valid until V8 calls `drop`, which gives
    // back the reference taken here.
    unsafe { v8::new_rust_allocator(Arc::into_raw(budget), &VTABLE) }
}

/// A Blob's bytes, counted against the budget while the blob store holds
/// them.
#[derive(Debug)]
struct CountedBlobPart {
    bytes: Vec<u8>,
    budget: Arc<ExternalBudget>,
}

impl Drop for CountedBlobPart {
    fn drop(&mut self) {
        self.budget.release(self.bytes.len());
    }
}

#[async_trait::async_trait]
impl BlobPart for CountedBlobPart {
    async fn read<'a>(&'a self) -> &'a [u8] {
        &self.bytes
    }

    fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// deno_web's `op_blob_create_part` (which copies a Blob's bytes into the
/// blob store), counting the copy against the runtime's budget.
#[op2]
#[string]
pub fn op_fwbench_blob_create_part(
    state: &mut OpState,
    #[buffer] data: JsBuffer,
) -> Result<String, JsErrorBox> {
    let budget = state.borrow::<Arc<ExternalBudget>>().clone();
    budget.reserve(data.len(), "a Blob")?;
    let part = CountedBlobPart {
        bytes: data.to_vec(),
        budget,
    };
    let store = state.borrow::<Arc<dyn BlobStoreTrait>>();
    Ok(store.insert_part(Arc::new(part)).to_string())
}

/// Takes `bytes` from the runtime's budget for a buffer JS is about to
/// allocate outside the engine's accounting (QuickJS's SharedArrayBuffers);
/// throws a `RangeError` past it.
#[op2(fast)]
pub fn op_fwbench_external_reserve(state: &mut OpState, #[number] bytes: usize) -> Result<(), JsErrorBox> {
    state
        .borrow::<Arc<ExternalBudget>>()
        .reserve(bytes, "a SharedArrayBuffer")
}

/// Gives back what [`op_fwbench_external_reserve`] took, once the buffer is
/// collected.
#[op2(fast)]
pub fn op_fwbench_external_release(state: &mut OpState, #[number] bytes: usize) {
    state.borrow::<Arc<ExternalBudget>>().release(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_past_the_limit_takes_nothing() {
        let budget = ExternalBudget::new(100);
        assert!(budget.try_reserve(60, "a test"));
        assert!(!budget.try_reserve(41, "a test"));
        assert_eq!(budget.used(), 60);
        assert!(budget.try_reserve(40, "a test"));
        budget.release(100);
        assert_eq!(budget.used(), 0);
        assert!(!budget.try_reserve(usize::MAX, "a test"));
    }
}
