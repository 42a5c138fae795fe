#!/usr/bin/env python3
"""Makes a generated benchmark corpus pass the API server's pod validation (SEMANTICS.md#pod-validation).

    python3 scripts/bench-pods-valid.py CORPUS_DIR

The shared generator (gen.py) gives some InferenceServices a runner override of
`resources: {limits: {memory: <48-192>Gi}}` under runtimes that request up to 512Gi: merged,
the request exceeds the limit, which the API server refuses and ome-render now reports. This
adds the same memory as the override's request, so the override means what it was meant to
(the container's memory) and the corpus renders. Idempotent; edits the files in place and
leaves a marker file so that a cached corpus is fixed once.
"""
import os
import re
import sys

MARKER = ".pods-valid"
# `resources:` then `limits:` holding only `memory: X`, indented as gen.py writes them.
PATTERN = re.compile(
    r"^(?P<ind> *)resources:\n(?P=ind)  limits:\n(?P=ind)    memory: (?P<mem>\S+)\n(?!(?P=ind)  requests:)",
    re.M,
)


def fix(text):
    return PATTERN.sub(
        lambda m: f"{m['ind']}resources:\n{m['ind']}  limits:\n{m['ind']}    memory: {m['mem']}\n"
        f"{m['ind']}  requests:\n{m['ind']}    memory: {m['mem']}\n",
        text,
    )


def main(corpus):
    if os.path.exists(os.path.join(corpus, MARKER)):
        return
    changed = 0
    for root, _, files in os.walk(os.path.join(corpus, "isvc")):
        for name in sorted(files):
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new = fix(text)
            if new != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                changed += 1
    with open(os.path.join(corpus, MARKER), "w", encoding="utf-8") as f:
        f.write(f"{changed} InferenceServices given a memory request equal to their limit\n")


if __name__ == "__main__":
    main(sys.argv[1])
