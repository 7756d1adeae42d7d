fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(git_ucg::run(std::env::args_os()))
}
