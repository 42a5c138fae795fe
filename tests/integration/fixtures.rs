//! Fixture directories rendered end to end, each compared with a reviewed snapshot of its
//! arguments, exit code, standard error and standard output.
//!
//! A case is a path under the repository (a `testdata/<case>` directory or an example) and
//! the arguments to run it with; `{}` in the arguments stands for the path.

use crate::support::run;

fn render_case(path: &str, args: &[&str]) -> String {
    let mut full: Vec<&str> = args
        .iter()
        .map(|a| if *a == "{}" { path } else { a })
        .collect();
    if !args.contains(&"{}") {
        full.push(path);
    }
    let out = run(&full);
    format!(
        "args: {}\nexit: {}\n--- stderr\n{}--- stdout\n{}",
        full.join(" "),
        out.code,
        out.stderr,
        out.stdout
    )
}

macro_rules! fixture {
    ($name:ident, $path:literal $(, $arg:literal)* $(,)?) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), render_case($path, &[$($arg),*]));
        }
    };
}

// Rendering (issue: the core renderer).
fixture!(seed_named, "testdata/seed-named");
fixture!(command_flags, "testdata/command-flags");
fixture!(router, "testdata/router");
fixture!(passthrough, "testdata/passthrough");
fixture!(no_model, "testdata/no-model");
