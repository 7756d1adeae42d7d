//! Links the git-ucg executable as a fixed-address (non-PIE), lazily bound program on Linux with
//! glibc.
//!
//! A prompt or a hook is a process start; for a position-independent executable the dynamic
//! loader first applies some 15,000 relocations (the addresses in clap's, gix's and std's static
//! tables), which was a third of what `git-ucg --version` executed and a good share of its page
//! faults (BENCHMARKS.md, "start-up"). A fixed-address executable has them resolved at link time.
//! Only the binary is linked so; the code stays position-independent, and the libraries and
//! tests are untouched.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        // Bind the C library's functions when first called, as git's own executable does, not
        // all ~170 of them before `main`: a sixth of a warm prompt's instructions. The price is
        // partial RELRO (the lazily bound table stays writable), as for git.
        println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
    }
}
