#!/usr/bin/env python3
"""Wrap a directory of manifests as a KRM ResourceList, as kpt sends it to a function: every
document an item, with its file in config.kubernetes.io/path and its index in the file in
config.kubernetes.io/index (and the internal.config.kubernetes.io forms).

    scripts/krm-list.py DIR > list.yaml      (needs PyYAML)

For the benchmark of the KRM function against the directory render (scripts/bench.sh).
"""
import os
import sys

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

root = sys.argv[1]
items = []
for d, dirs, files in os.walk(root):
    dirs[:] = sorted(x for x in dirs if not x.startswith("."))
    for f in sorted(files):
        if not f.endswith((".yaml", ".yml")) or f in ("kustomization.yaml", "ome-render.yaml"):
            continue
        path = os.path.join(d, f)
        rel = os.path.relpath(path, root)
        with open(path) as stream:
            for i, doc in enumerate(yaml.load_all(stream, Loader=Loader)):
                if not isinstance(doc, dict):
                    continue
                meta = doc.setdefault("metadata", {}) or {}
                doc["metadata"] = meta
                annotations = meta.get("annotations") or {}
                meta["annotations"] = annotations
                for key in ("config.kubernetes.io/path", "internal.config.kubernetes.io/path"):
                    annotations[key] = rel
                for key in ("config.kubernetes.io/index", "internal.config.kubernetes.io/index"):
                    annotations[key] = str(i)
                items.append(doc)
config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"},
          "data": {"quiet": "true"}}
yaml.dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
           "functionConfig": config},
          sys.stdout, Dumper=Dumper, default_flow_style=False, sort_keys=False)
