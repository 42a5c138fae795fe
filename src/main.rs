//! The `ome-render` binary: parses arguments and hands over to the library.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
