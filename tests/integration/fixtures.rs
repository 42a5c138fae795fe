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

// Runtime selection and explain.
fixture!(seed_auto, "examples/llama-demo");
fixture!(
    seed_explain,
    "examples/llama-demo",
    "explain",
    "--isvc",
    "llama-demo/llama-3-2-3b-instruct",
    "{}"
);
fixture!(
    explain_team_a,
    "testdata/explain-team-a",
    "explain",
    "--model",
    "llama-3-2-3b-instruct",
    "-n",
    "team-a",
    "{}"
);
fixture!(
    explain_team_a_json,
    "testdata/explain-team-a",
    "explain",
    "--model",
    "llama-3-2-3b-instruct",
    "-n",
    "team-a",
    "--format",
    "json",
    "{}"
);
fixture!(no_runtime, "testdata/no-runtime");
fixture!(named_undeclared, "testdata/named-undeclared");

// Accelerator classes.
fixture!(seventy_l40s, "examples/llama-70b");
fixture!(
    seventy_h100,
    "testdata/seventy-h100",
    "examples/llama-70b/namespace.yaml",
    "examples/llama-70b/model.yaml",
    "examples/llama-70b/runtime.yaml",
    "examples/llama-70b/accelerator-classes.yaml",
    "{}",
);
fixture!(class_policy, "testdata/class-policy");
fixture!(decoder_override, "testdata/decoder-override");
fixture!(class_checks, "testdata/class-checks");
fixture!(class_missing, "testdata/class-missing");

// Errors.
fixture!(errors, "testdata/errors");

// Inside the GitOps tools: orchestrators' bookkeeping annotations never reach a rendered
// object.
fixture!(bookkeeping_annotations, "testdata/bookkeeping-annotations");
