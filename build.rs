//! Links the git-ucg executable statically, at a fixed address, on Linux with glibc.
//!
//! A prompt or a hook is a process start, and for a dynamically linked Rust program the start is
//! mostly the dynamic loader's: mapping `libgcc_s` and the C library, then looking up every C
//! function the program calls through its global offset table (Rust calls them through it, so
//! lazy binding defers none of them) — about 250,000 instructions and 40 page faults before
//! `main`, and a third of a millisecond on the machines of BENCHMARKS.md ("start-up", "the commit
//! hook"). A static executable has all of it resolved at link time.
//!
//! rustc links against `-lgcc_s -lc …` after a `-Bdynamic` of its own, so `-static` alone still
//! gives a dynamic program. The C compiler's driver is given `-static` (the static start files, no
//! loader) and a search directory, searched before the system's, whose `libgcc_s.a`, `libc.a`, …
//! are linker scripts naming the static archives: each library rustc asks for resolves to its
//! static form. Only the binary is linked so; the library, the tests and the benches are not.
//!
//! Where the static archives cannot be found (no static C library installed), when cross
//! compiling, or with `GIT_UCG_LINK=dynamic`, the executable is linked dynamically as before: at a
//! fixed address (`-no-pie`: no relocations to apply at start) and lazily bound.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GIT_UCG_LINK");
    println!("cargo:rerun-if-env-changed=CC");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os != "linux" || target_env != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    let wants_dynamic = std::env::var("GIT_UCG_LINK").is_ok_and(|v| v == "dynamic");
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    let out_dir = std::env::var_os("OUT_DIR").map(PathBuf::from);
    match out_dir.filter(|_| native && !wants_dynamic) {
        Some(out_dir) if static_libraries(&out_dir.join("static")).is_some() => {
            println!("cargo:rustc-link-arg-bins=-static");
            println!(
                "cargo:rustc-link-arg-bins=-L{}",
                out_dir.join("static").display()
            );
        }
        _ => {
            // Bind the C library's functions when first called, as git's own executable does:
            // the price is partial RELRO (the lazily bound table stays writable), as for git.
            println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
        }
    }
}

/// Writes into `dir` a linker script for each library rustc links a Linux program against,
/// naming its static archive (the C library and the compiler's support libraries grouped, as
/// they refer to each other). `None` when an archive is missing.
fn static_libraries(dir: &Path) -> Option<()> {
    let archive = |name: &str| -> Option<String> {
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(compiler)
            .arg(format!("-print-file-name={name}"))
            .output()
            .ok()?;
        let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        // The compiler prints the bare name back when it has no such file.
        let found = path.is_absolute() && path.is_file();
        // A linker script cannot quote a path with a space or a parenthesis.
        let plain = path
            .to_str()
            .filter(|p| !p.contains([' ', '(', ')', '"', '\n']))?
            .to_string();
        found.then_some(plain)
    };
    let (c, unwind, support) = (
        archive("libc.a")?,
        archive("libgcc_eh.a")?,
        archive("libgcc.a")?,
    );
    let mut scripts = vec![
        ("libc.a", format!("GROUP ( {c} {unwind} {support} )\n")),
        ("libgcc_s.a", format!("GROUP ( {unwind} {support} {c} )\n")),
    ];
    for name in ["libm.a", "librt.a", "libpthread.a", "libdl.a", "libutil.a"] {
        scripts.push((name, format!("INPUT ( {} )\n", archive(name)?)));
    }
    std::fs::create_dir_all(dir).ok()?;
    for (name, script) in scripts {
        std::fs::write(dir.join(name), script).ok()?;
    }
    Some(())
}
