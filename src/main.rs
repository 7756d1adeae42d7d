// mimalloc: the registry writer allocates hundreds of thousands of small strings per run, and a
// prompt or hook process is short-lived; both are measurably faster than with the system allocator
// (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(git_ucg::run(std::env::args_os()))
}
