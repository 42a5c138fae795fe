//! Records the version line `ome-render --version` prints: the package version, and the Git
//! commit and its date when the source is a Git checkout (a source tarball has none, and the
//! line is the version alone).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let line = match (
        git(&["rev-parse", "--short=7", "HEAD"]),
        git(&["log", "-1", "--format=%cs", "HEAD"]),
    ) {
        (Some(commit), Some(date)) => format!("{version} ({commit} {date})"),
        _ => version.to_string(),
    };
    println!("cargo:rustc-env=OME_RENDER_VERSION={line}");
    // Rebuild the line when HEAD moves: the files Git updates then.
    for path in ["HEAD", "logs/HEAD"] {
        if let Some(file) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
