//! The executable: the allocator, and the process start without std's runtime preamble.
//!
//! std's `main` wrapper reads `/proc/self/maps` (through `pthread_getattr_np`) to place the main
//! thread's stack guard — about a fifth of what a warm prompt executes (BENCHMARKS.md,
//! "start-up") — for a thread on which no command recurses: `git_ucg::run` runs every command on
//! a thread of its own with a large stack, but for the warm prompt, which recurses nowhere. The
//! kernel's guard gap below the first thread's stack still stops an overflow. The C `main` below does what that preamble did that git-ucg relies on: ignore SIGPIPE
//! (a closed pipe is an error each writer handles; BrokenPipe exits 0), and flush stdout at exit
//! (then it ends the process without the C library's exit handlers: see the end of `main`).
// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc for the commands that read a whole run into memory (hundreds of thousands of small
/// strings: `pending --json` on a large run is 1.7× slower with the C library's allocator), the C
/// library's for the short processes (a prompt, a hook, `--version`), where mimalloc's own start
/// — its arena and page maps, some eighty page faults — costs more than the command's work
/// (BENCHMARKS.md, "start-up"). The choice is made once, in `main`, before anything is allocated,
/// and the first allocation fixes it: every block is freed by the allocator that made it.
struct Allocator;

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
const MIMALLOC: u8 = 2;
static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

impl Allocator {
    fn mimalloc(&self) -> bool {
        match CHOICE.load(Ordering::Relaxed) {
            MIMALLOC => true,
            SYSTEM => false,
            // An allocation before `main` chose: the C library's, from now on.
            _ => match CHOICE.compare_exchange(
                UNDECIDED,
                SYSTEM,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => false,
                Err(chosen) => chosen == MIMALLOC,
            },
        }
    }
}

// SAFETY: every call goes to one allocator for the whole process (`CHOICE` never changes once an
// allocation has been made), so each block is freed or resized by the allocator that made it.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.mimalloc() {
            true => unsafe { mimalloc::MiMalloc.alloc(layout) },
            false => unsafe { System.alloc(layout) },
        }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match self.mimalloc() {
            true => unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) },
            false => unsafe { System.alloc_zeroed(layout) },
        }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match self.mimalloc() {
            true => unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) },
            false => unsafe { System.dealloc(ptr, layout) },
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match self.mimalloc() {
            true => unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) },
            false => unsafe { System.realloc(ptr, layout, new_size) },
        }
    }
}

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(argc: libc::c_int, argv: *const *const libc::c_char) -> libc::c_int {
    let words = (1..usize::try_from(argc).unwrap_or(0)).map(|i| {
        // SAFETY: the C runtime hands `main` `argc` valid, NUL-terminated strings in `argv`.
        unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) }.to_bytes()
    });
    let chosen = match git_ucg::cli::is_short_lived(words) {
        true => SYSTEM,
        false => MIMALLOC,
    };
    // Fails only if something was allocated already: then the C library's allocator stays.
    let _ = CHOICE.compare_exchange(UNDECIDED, chosen, Ordering::Relaxed, Ordering::Relaxed);
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts; std does the
    // same in its own preamble. Children get SIGPIPE's default back (std's process spawning).
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // std's `args_os` works without the preamble on every unix: glibc hands argv to std's
    // `.init_array` hook, other platforms keep it for the process.
    let code = git_ucg::run(std::env::args_os());
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // Everything git-ucg writes is flushed, its files closed and its children waited for by
    // now; what the C library's exit would still run is the allocator handing its memory back
    // page range by page range (mimalloc's exit purge: a millisecond after a large run), which
    // the kernel does anyway, all at once.
    // SAFETY: `_exit` ends the process at once; nothing after it runs.
    unsafe { libc::_exit(libc::c_int::from(code)) }
}
