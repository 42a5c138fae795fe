"""Checks the rendered kinds kubernetes-validate has no schema for, before it runs.

Reads a YAML stream on standard input. A KEDA ScaledObject, a LeaderWorkerSet, an HTTPRoute,
an Envoy Gateway BackendTrafficPolicy, a PodMonitor or an Istio DestinationRule is checked
against its schema in `schemas/` (unknown fields, types, required fields, enums, patterns);
the HTTPRoute, BackendTrafficPolicy, PodMonitor and DestinationRule schemas are the published
CRDs' (see the notices in `schemas/`), made strict about unknown fields as `kubectl apply
--validate=strict` is. The two pod
templates of a LeaderWorkerSet are written out as v1 PodTemplates, so kubernetes-validate
checks them like a Deployment's. Every other document is written out unchanged. A line
`passed for resource <kind>/<name>` is printed on standard error for each checked object;
any schema error ends the run with exit 1.
"""

import json
import pathlib
import sys

import jsonschema
import yaml

HERE = pathlib.Path(__file__).parent
SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): "scaledobject.json",
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): "leaderworkerset.json",
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): "httproute.json",
    ("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy"): "backendtrafficpolicy.json",
    ("monitoring.coreos.com/v1", "PodMonitor"): "podmonitor.json",
    ("networking.istio.io/v1", "DestinationRule"): "destinationrule.json",
}


def strict(schema):
    """A CRD's structural schema with unknown fields refused where the API server prunes."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


def load(name):
    schema = json.loads((HERE / "schemas" / name).read_text())
    # The published CRD schemas are OpenAPI, without `$schema`; the hand-written are strict.
    return schema if "$schema" in schema else strict(schema)


def main():
    docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
    out = []
    failed = False
    for doc in docs:
        key = (doc.get("apiVersion"), doc.get("kind"))
        if key not in SCHEMAS:
            out.append(doc)
            continue
        schema = load(SCHEMAS[key])
        name = doc.get("metadata", {}).get("name", "?")
        errors = sorted(
            jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path)
        )
        for e in errors:
            path = ".".join(str(p) for p in e.path)
            print(f"ERROR {key[1]}/{name} {path}: {e.message}", file=sys.stderr)
            failed = True
        if not errors:
            print(f"passed for resource {key[1].lower()}/{name}", file=sys.stderr)
        if key[1] == "LeaderWorkerSet":
            lwt = doc["spec"]["leaderWorkerTemplate"]
            for part in ("leaderTemplate", "workerTemplate"):
                if part in lwt:
                    out.append(
                        {
                            "apiVersion": "v1",
                            "kind": "PodTemplate",
                            "metadata": {
                                "name": f"{name}-{part.removesuffix('Template')}",
                                "namespace": doc["metadata"]["namespace"],
                            },
                            "template": lwt[part],
                        }
                    )
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)
    sys.exit(1 if failed else 0)


main()
