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
fixture!(overlays, "testdata/overlays");
fixture!(service_app_protocols, "testdata/service-app-protocols");
fixture!(monitoring, "testdata/monitoring");
fixture!(
    traffic_intent_envoy,
    "testdata/traffic-intent",
    "--api-versions",
    "gateway.envoyproxy.io/v1alpha1",
    "--kinds",
    "BackendTrafficPolicy",
    "{}"
);
fixture!(
    traffic_intent_istio,
    "testdata/traffic-intent",
    "--api-versions",
    "networking.istio.io/v1",
    "--kinds",
    "DestinationRule",
    "{}"
);
fixture!(
    traffic_intent_neither,
    "testdata/traffic-intent",
    "--api-versions",
    "monitoring.coreos.com/v1",
    "--kinds",
    "DestinationRule",
    "--allow-empty",
    "{}"
);
fixture!(
    traffic_intent_unlisted,
    "testdata/traffic-intent",
    "--kinds",
    "DestinationRule",
    "--allow-empty",
    "{}"
);
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

// Inheritance, revisions and pins: a profile, two children, three InferenceServices (one
// pinned, one auto-selected), and the same repository after a profile change.
fixture!(inheritance_pins, "examples/inheritance-pins");
fixture!(
    inheritance_pins_tree,
    "examples/inheritance-pins",
    "tree",
    "sglang-profile",
    "{}"
);
fixture!(
    inheritance_pins_tree_json,
    "examples/inheritance-pins",
    "tree",
    "sglang-profile",
    "--format",
    "json",
    "{}"
);
fixture!(
    inheritance_pins_tree_auto,
    "examples/inheritance-pins",
    "tree",
    "vllm-llama-3b",
    "--show-unattributed-users",
    "{}"
);
fixture!(
    inheritance_pins_tree_isvc,
    "examples/inheritance-pins",
    "tree",
    "--isvc",
    "team-a/chat",
    "{}"
);
fixture!(
    inheritance_pins_effective,
    "examples/inheritance-pins",
    "explain",
    "--effective",
    "--isvc",
    "team-a/chat",
    "{}"
);
fixture!(
    inheritance_pins_effective_runtime,
    "examples/inheritance-pins",
    "explain",
    "--effective",
    "--runtime",
    "sglang-llama-8b",
    "-n",
    "team-a",
    "{}"
);
fixture!(pin_drift, "testdata/pin-drift");
fixture!(
    pin_drift_check_strict,
    "testdata/pin-drift",
    "check",
    "--strict",
    "{}"
);
fixture!(
    pin_drift_tree,
    "testdata/pin-drift",
    "tree",
    "sglang-llama-3b",
    "{}"
);
fixture!(
    pin_drift_effective,
    "testdata/pin-drift",
    "explain",
    "--effective",
    "--isvc",
    "team-a/chat",
    "{}"
);
fixture!(
    seventy_effective,
    "examples/llama-70b",
    "explain",
    "--effective",
    "--isvc",
    "llama-demo/llama-3-3-70b-instruct",
    "{}"
);
// Model metadata from a Hugging Face snapshot (`ome-render.io/model-config`).
fixture!(model_config_example, "examples/llama-awq-snapshot");
fixture!(model_config, "testdata/model-config/annotated");
fixture!(
    model_config_unannotated,
    "testdata/model-config/unannotated"
);
fixture!(model_config_escape, "testdata/model-config/escape");

// Admission as OME v1.3's schema and webhooks make it (SEMANTICS.md#admission): every
// InferenceService, runtime and model here is refused, each failing rule with OME's message.
fixture!(admission_shape, "testdata/admission-shape");
fixture!(admission_autoscaling, "testdata/admission-autoscaling");
fixture!(
    admission_traffic_rollout,
    "testdata/admission-traffic-rollout"
);
fixture!(admission_warnings, "testdata/admission-warnings");
fixture!(admission_runtimes, "testdata/admission-runtimes");
fixture!(admission_models, "testdata/admission-models");

// Autoscaling, budgets and KEDA as OME v1.3 resolves them (SEMANTICS.md#autoscaling).
fixture!(autoscaling, "testdata/autoscaling");
fixture!(autoscaling_errors, "testdata/autoscaling-errors");
fixture!(replica_defaults, "testdata/replica-defaults");
fixture!(settings_old_layout, "testdata/settings-old-layout");
fixture!(
    deploy_config,
    "testdata/deploy-config/resources.yaml",
    "--deploy-config",
    "testdata/deploy-config/cluster/config-map.yaml"
);
fixture!(keda, "testdata/keda");
fixture!(keda_refused, "testdata/keda-refused");

// LeaderWorkerSets (SEMANTICS.md#objects) and the v1.2.2 → v1.3 migration lint
// (SEMANTICS.md#migration).
fixture!(multinode, "testdata/multinode");
// The cluster's APIs as input (SEMANTICS.md#api-versions): listed, the LeaderWorkerSet passes
// without the note; a list without its API is an error naming the object and the API; a
// malformed entry is a usage error.
fixture!(
    multinode_apis_listed,
    "testdata/multinode",
    "--api-versions",
    "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet",
    "{}"
);
fixture!(
    multinode_api_unlisted,
    "testdata/multinode",
    "--api-versions",
    "keda.sh/v1alpha1",
    "{}"
);
fixture!(
    api_versions_malformed,
    "testdata/multinode",
    "--api-versions",
    "leaderworkerset.x-k8s.io/v1/leaderWorkerSet",
    "{}"
);
fixture!(migration, "testdata/migration", "--verbose", "{}");
fixture!(migration_strict, "testdata/migration", "--strict", "{}");
// Inside the GitOps tools: orchestrators' bookkeeping annotations never reach a rendered
// object.
fixture!(bookkeeping_annotations, "testdata/bookkeeping-annotations");
