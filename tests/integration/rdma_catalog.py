"""Checks a render (JSON lines on standard input) against OME's RDMA injection.

    python rdma_catalog.py RUNTIME_YAML < rendered.jsonl

Every pod template (a Deployment's, a LeaderWorkerSet's leader and worker) whose annotations
ask for RDMA (`rdma.ome.io/auto-inject: "true"`) must hold, in the container the annotations
name (default `ome-container`), what v1.3's `oci-roce` profile injects, each exactly once: its
environment (a variable the runtime sets itself keeps the runtime's value), the `dshm` and
`/dev/infiniband` volumes and mounts, and the `IPC_LOCK` capability. Prints the number of
templates checked; exits 1 with the reasons otherwise.
"""
import json
import sys

import yaml

# OME v1.3's `oci-roce` profile (pkg/webhook rdma_injector.go, newest v1.3 line: no UCX_TLS,
# no UCX_NET_DEVICES since ome-projects/ome#837), written here from OME's table, not ours.
OCI_ROCE = {
    "NCCL_NET_PLUGIN": "none",
    "NCCL_DEBUG": "INFO",
    "NCCL_CROSS_NIC": "2",
    "NCCL_SOCKET_NTHREADS": "16",
    "NCCL_CUMEM_ENABLE": "0",
    "NCCL_IB_SPLIT_DATA_ON_QPS": "0",
    "NCCL_IB_QPS_PER_CONNECTION": "16",
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_IB_HCA": "=mlx5_0,mlx5_1,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,"
    "mlx5_12,mlx5_13,mlx5_14,mlx5_15,mlx5_16,mlx5_17",
    "NCCL_IB_TC": "41",
    "NCCL_IB_SL": "0",
    "NCCL_IB_TIMEOUT": "22",
    "HCOLL_ENABLE_MCAST_ALL": "0",
    "coll_hcoll_enable": "0",
    "RX_QUEUE_LEN": "8192",
    "IB_RX_QUEUE_LEN": "8192",
    "NCCL_SOCKET_IFNAME": "eth0",
    "NCCL_IGNORE_CPU_AFFINITY": "1",
    "GLOO_SOCKET_IFNAME": "eth0",
}


def own_env(node, found):
    """Every `env` entry the runtime writes anywhere: name -> the values it gives."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "env" and isinstance(value, list):
                for e in value:
                    if isinstance(e, dict) and "name" in e:
                        found.setdefault(e["name"], set()).add(str(e.get("value", "")))
            own_env(value, found)
    elif isinstance(node, list):
        for item in node:
            own_env(item, found)
    return found


def templates(obj):
    spec = obj.get("spec", {})
    if obj["kind"] == "Deployment":
        yield "spec.template", spec.get("template")
    elif obj["kind"] == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate", {})
        yield "leaderTemplate", lwt.get("leaderTemplate")
        yield "workerTemplate", lwt.get("workerTemplate")


def check(where, template, runtime_env, errors):
    ann = template.get("metadata", {}).get("annotations", {})
    if ann.get("rdma.ome.io/auto-inject") != "true":
        return False
    assert ann.get("rdma.ome.io/profile", "oci-roce") == "oci-roce", where
    pod = template["spec"]
    name = ann.get("rdma.ome.io/container-name") or "ome-container"
    containers = [c for c in pod.get("containers", []) if c["name"] == name]
    if len(containers) != 1:
        errors.append(f"{where}: {len(containers)} containers named {name}")
        return True
    c = containers[0]
    env = [e["name"] for e in c.get("env", [])]
    dups = sorted({n for n in env if env.count(n) > 1})
    if dups:
        errors.append(f"{where}: env names twice: {dups}")
    values = {e["name"]: e.get("value") for e in c.get("env", [])}
    for var, value in OCI_ROCE.items():
        if var not in values:
            errors.append(f"{where}: {var} not injected")
        elif var in runtime_env:
            if values[var] not in runtime_env[var]:
                errors.append(f"{where}: {var}={values[var]!r}, the runtime's own value is {runtime_env[var]}")
        elif values[var] != value:
            errors.append(f"{where}: {var}={values[var]!r}, the profile's is {value!r}")
    for var in ("UCX_TLS", "UCX_NET_DEVICES"):
        if var in values and var not in runtime_env:
            errors.append(f"{where}: {var} injected (gone from the profile since ome#837)")
    mounts = [m["mountPath"] for m in c.get("volumeMounts", [])]
    for path in ("/dev/shm", "/dev/infiniband"):
        if mounts.count(path) != 1:
            errors.append(f"{where}: {mounts.count(path)} mounts at {path}")
    volumes = pod.get("volumes", [])
    names = [v["name"] for v in volumes]
    if len(set(names)) != len(names):
        errors.append(f"{where}: volume names twice: {names}")
    if names.count("dshm") != 1:
        errors.append(f"{where}: {names.count('dshm')} dshm volumes")
    infiniband = [v for v in volumes if v.get("hostPath", {}).get("path") == "/dev/infiniband"]
    if len(infiniband) != 1:
        errors.append(f"{where}: {len(infiniband)} /dev/infiniband volumes")
    caps = c.get("securityContext", {}).get("capabilities", {}).get("add", [])
    if caps.count("IPC_LOCK") != 1:
        errors.append(f"{where}: IPC_LOCK {caps.count('IPC_LOCK')} times in {caps}")
    return True


def main(runtime_path):
    with open(runtime_path, encoding="utf-8") as f:
        runtime_env = own_env(yaml.safe_load(f), {})
    errors, checked = [], 0
    for line in sys.stdin:
        if not line.strip():
            continue
        obj = json.loads(line)
        for field, template in templates(obj):
            where = f"{obj['kind']}/{obj['metadata']['name']} {field}"
            if template and check(where, template, runtime_env, errors):
                checked += 1
    if errors:
        sys.exit("\n".join(errors))
    print(checked)


if __name__ == "__main__":
    main(sys.argv[1])
