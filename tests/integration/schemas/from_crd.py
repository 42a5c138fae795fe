"""Turns a published CRD's openAPIV3Schema into the JSON Schema `crds.py` checks against.

    python3 from_crd.py CRD.yaml KIND VERSION > schema.json

Objects with `properties` refuse other fields (as `kubernetes-validate --strict` does),
unless they carry `x-kubernetes-preserve-unknown-fields`; `x-kubernetes-int-or-string`
becomes an integer or a string; `metadata` is the usual name, namespace, labels and
annotations. The CRD's CEL rules (`x-kubernetes-validations`) are not checked.
"""

import json
import sys

import yaml


def convert(s):
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k == "properties":
            out[k] = {p: convert(x) for p, x in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = convert(v)
        elif k in ("allOf", "anyOf", "oneOf"):
            out[k] = [convert(x) for x in v]
        elif k.startswith("x-kubernetes-") or k in ("description", "format", "nullable"):
            continue
        else:
            out[k] = v
    if s.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "properties" in out and not s.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
    if s.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def main():
    path, kind, version = sys.argv[1:4]
    for doc in yaml.safe_load_all(open(path)):
        if not doc or doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc["spec"]
        if spec["names"]["kind"] != kind:
            continue
        for v in spec["versions"]:
            if v["name"] != version:
                continue
            schema = convert(v["schema"]["openAPIV3Schema"])
            string_map = {"type": "object", "additionalProperties": {"type": "string"}}
            schema["properties"]["metadata"] = {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "namespace": {"type": "string"},
                    "labels": string_map,
                    "annotations": string_map,
                },
                "required": ["name"],
                "additionalProperties": False,
            }
            schema["properties"]["apiVersion"] = {"const": f"{spec['group']}/{version}"}
            schema["properties"]["kind"] = {"const": kind}
            schema["$schema"] = "http://json-schema.org/draft-07/schema#"
            schema["title"] = f"{kind} {spec['group']}/{version}, from {path.split('/')[-1]}"
            json.dump(schema, sys.stdout, indent=1, sort_keys=True)
            print()
            return
    sys.exit(f"no {kind} {version} in {path}")


main()
