#!/usr/bin/env python3
"""The GitHub Action's logic (action.yml), standard library only, so tests run it offline.

    action.py install   obtain ome-render; writes `binary=PATH` to $GITHUB_OUTPUT
    action.py diff      render the pull request's base and head (`ome-render diff --base-ref`),
                        write the Markdown report to $GITHUB_STEP_SUMMARY, pass the
                        `--error-format github` annotations through, create or update ONE
                        sticky pull-request comment, and fail on render errors

Inputs come as INPUT_* environment variables (action.yml maps them); the runner's GITHUB_*
variables say where the event, the API, the summary and the outputs are. A token that may
not comment (a fork's pull request gets a read-only one: HTTP 403) is a warning: the report
is still in the job summary.
"""

import hashlib
import io
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request

# The hidden marker that finds the sticky comment again.
MARKER = "<!-- ome-render-diff -->"
# GitHub refuses comment bodies over 65,536 characters; the report stays under this.
COMMENT_LIMIT = 65_000


def env(name, default=""):
    return os.environ.get(name, default)


def flag(name, default="false"):
    return env(name, default).strip().lower() in ("1", "true", "yes", "on")


def escape_data(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def warning(message):
    print(f"::warning title=ome-render::{escape_data(message)}", flush=True)


def notice(message):
    print(f"::notice title=ome-render::{escape_data(message)}", flush=True)


def set_output(name, value):
    path = env("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        if "\n" in value:
            delimiter = "OME_RENDER_EOF_" + hashlib.sha256(value.encode()).hexdigest()[:16]
            f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            f.write(f"{name}={value}\n")


def append_summary(markdown):
    path = env("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(markdown)
            if not markdown.endswith("\n"):
                f.write("\n")


# --- obtaining ome-render -----------------------------------------------------------------


def target_triple():
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}.get(
        machine, machine
    )
    system = platform.system()
    if system == "Linux":
        return f"{arch}-unknown-linux-gnu"
    if system == "Darwin":
        return f"{arch}-apple-darwin"
    return None


def action_repository():
    """OWNER/REPO of this action. `github.action_repository` is empty inside a composite
    action's steps, so the runner's checkout path of the action
    (`…/_actions/OWNER/REPO/REF`) is read too."""
    repo = env("ACTION_REPOSITORY") or env("GITHUB_ACTION_REPOSITORY")
    if repo:
        return repo
    parts = os.path.normpath(env("ACTION_PATH")).split(os.sep)
    if "_actions" in parts:
        i = len(parts) - 1 - parts[::-1].index("_actions")
        if len(parts) >= i + 3:
            return f"{parts[i + 1]}/{parts[i + 2]}"
    return ""


def download_release(version, dest):
    """The released binary `ome-render-<triple>.tar.gz` of `v<version>`, its SHA-256 checked
    against the `.sha256` beside it. None when there is no such release."""
    triple = target_triple()
    repo = action_repository()
    if not triple or not repo:
        warning("cannot tell which repository releases this action: building ome-render instead")
        return None
    server = env("GITHUB_SERVER_URL", "https://github.com")
    base = f"{server}/{repo}/releases/download/v{version.lstrip('v')}/ome-render-{triple}.tar.gz"
    try:
        with urllib.request.urlopen(base, timeout=60) as r:
            archive = r.read()
        with urllib.request.urlopen(base + ".sha256", timeout=60) as r:
            want = r.read().decode().split()[0]
    except (urllib.error.URLError, OSError, IndexError) as e:
        warning(f"no released ome-render {version} for {triple} ({e}); building it from source")
        return None
    if hashlib.sha256(archive).hexdigest() != want:
        raise SystemExit(f"ome-render {version}: the download does not match its SHA-256")
    # Only the binary is taken out, by its content: no path from the archive is used.
    with tarfile.open(fileobj=io.BytesIO(archive)) as t:
        member = next((m for m in t.getmembers() if m.isfile() and m.name.split("/")[-1] == "ome-render"), None)
        if member is None:
            raise SystemExit(f"ome-render {version}: the archive holds no ome-render binary")
        content = t.extractfile(member).read()
    binary = os.path.join(dest, "ome-render")
    with open(binary, "wb") as f:
        f.write(content)
    os.chmod(binary, 0o755)
    return binary


def build_from_source():
    source = env("ACTION_PATH") or env("GITHUB_ACTION_PATH") or os.getcwd()
    target = env("CARGO_TARGET_DIR") or os.path.join(env("RUNNER_TEMP", tempfile.gettempdir()), "ome-render-target")
    cmd = ["cargo", "build", "--release", "--locked", "--manifest-path", os.path.join(source, "Cargo.toml"),
           "--target-dir", target]
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True)
    return os.path.join(target, "release", "ome-render")


def install():
    binary = env("INPUT_BINARY")
    if binary:
        print(f"using {binary}")
    else:
        version = env("INPUT_VERSION", "source").strip()
        binary = None
        if version and version != "source":
            dest = os.path.join(env("RUNNER_TEMP", tempfile.gettempdir()), "ome-render-bin")
            os.makedirs(dest, exist_ok=True)
            binary = download_release(version, dest)
        if binary is None:
            binary = build_from_source()
    subprocess.run([binary, "--version"], check=True)
    set_output("binary", binary)
    return 0


# --- the diff -----------------------------------------------------------------------------

ANNOTATION = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")


def unescape(text, prop=False):
    text = text.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%25", "%")


def parse_annotations(lines):
    """The workflow commands ome-render wrote: (level, properties, message)."""
    found = []
    for line in lines:
        m = ANNOTATION.match(line)
        if not m:
            continue
        props = {}
        for part in (m.group(2) or "").split(","):
            if "=" in part:
                k, v = part.split("=", 1)
                props[k] = unescape(v, prop=True)
        found.append((m.group(1), props, unescape(m.group(3))))
    return found


def failure_report(annotations, stderr, code):
    """The report when the render fails: what fails, from the annotations."""
    out = ["### ome-render diff: the render fails", ""]
    errors = [a for a in annotations if a[0] == "error"]
    if code == 1:
        out.append(f"**{len(errors)} error{'' if len(errors) == 1 else 's'}**; nothing is compared until they are fixed "
                   "(the annotations point at the files of this pull request).")
        out.append("")
        # At most 50 errors, and within the comment's limit (GitHub refuses a longer body,
        # and the previous report would stay up): each error's lines cut at 1,000 characters.
        budget = COMMENT_LIMIT - len(MARKER) - 200 - sum(len(l) + 1 for l in out)
        shown = 0
        for _, props, message in errors[:50]:
            where = props.get("file", "")
            if where and props.get("line"):
                where += ":" + props["line"]
            first, _, rest = message.partition("\n")
            title = props.get("title", "")
            line = f"- `{where}` " if where else "- "
            line += f"**{title}**: {first}" if title else first
            lines = [line[:1000]]
            if rest.strip():
                lines.append(("  " + rest.strip().replace("\n", "\n  "))[:1000])
            size = sum(len(l) + 1 for l in lines)
            if size > budget:
                break
            budget -= size
            out.extend(lines)
            shown += 1
        if len(errors) > shown:
            out.append(f"- … and {len(errors) - shown} more")
    else:
        out.append("ome-render could not run:")
        out.append("")
        out.append("```")
        out.append(stderr.strip()[-4000:])
        out.append("```")
    return "\n".join(out) + "\n"


def event():
    path = env("GITHUB_EVENT_PATH")
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def git(*args, check=True):
    return subprocess.run(["git", *args], check=check, capture_output=True, text=True)


def base_ref(payload):
    ref = env("INPUT_BASE_REF").strip()
    if ref:
        return ref
    pr = payload.get("pull_request") or {}
    sha = (pr.get("base") or {}).get("sha")
    if sha:
        return sha
    if env("GITHUB_BASE_REF"):
        return "origin/" + env("GITHUB_BASE_REF")
    return None


def ensure_commit(ref):
    """Fetches the base commit when the checkout is shallow and lacks it."""
    if git("cat-file", "-e", f"{ref}^{{commit}}", check=False).returncode == 0:
        return
    print(f"fetching {ref}", flush=True)
    name = ref[len("origin/"):] if ref.startswith("origin/") else ref
    fetched = git("fetch", "--no-tags", "--depth=1", "origin", name, check=False)
    if fetched.returncode != 0:
        raise SystemExit(f"cannot fetch the base {ref}: {fetched.stderr.strip()}")
    if ref.startswith("origin/"):
        git("update-ref", f"refs/remotes/{ref}", "FETCH_HEAD")


class Api:
    """The few GitHub REST calls the sticky comment needs."""

    def __init__(self, url, token, repo):
        self.url, self.token, self.repo = url.rstrip("/"), token, repo

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "ome-render-action")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read().decode() or "null"
            return json.loads(text)

    def find_comment(self, number):
        page = 1
        while True:
            comments = self.call("GET", f"/repos/{self.repo}/issues/{number}/comments?per_page=100&page={page}")
            for c in comments:
                # The action's own comment starts with the marker; a person quoting it
                # elsewhere in theirs is left alone (editing it would be refused anyway).
                if (c.get("body") or "").startswith(MARKER) and is_bot(c):
                    return c
            if len(comments) < 100:
                return None
            page += 1


def is_bot(comment):
    """Whether a comment was written by an app (the workflow's token writes as one)."""
    user = comment.get("user") or {}
    return user.get("type") == "Bot" or user.get("login", "").endswith("[bot]")


def sticky_comment(payload, body, differences):
    """Creates or updates the ONE comment that carries MARKER. Never fails the step."""
    pr = payload.get("pull_request") or {}
    number = pr.get("number")
    token = env("INPUT_TOKEN")
    repo = env("GITHUB_REPOSITORY") or (payload.get("repository") or {}).get("full_name", "")
    if not flag("INPUT_COMMENT", "true"):
        return "off"
    if not number:
        print("not a pull request: no comment")
        return "skipped"
    if not token or not repo:
        warning("no token: the report is in the job summary only")
        return "skipped"
    api = Api(env("GITHUB_API_URL", "https://api.github.com"), token, repo)
    try:
        existing = api.find_comment(number)
        if existing:
            api.call("PATCH", f"/repos/{repo}/issues/comments/{existing['id']}", {"body": body})
            print(f"updated comment {existing['id']}")
            return "updated"
        if not differences:
            print("no differences and no earlier comment: nothing to post")
            return "skipped"
        created = api.call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})
        print(f"created comment {created.get('id')}")
        return "created"
    except urllib.error.HTTPError as e:
        detail = ""
        try:
            detail = json.loads(e.read().decode()).get("message", "")
        except (ValueError, AttributeError, OSError):
            pass
        why = "the token may not comment (a pull request from a fork gets a read-only token; " \
              "give the job `permissions: pull-requests: write`)" if e.code in (401, 403, 404) else "the API refused"
        warning(f"cannot comment on pull request #{number}: HTTP {e.code} {detail}; {why}. "
                "The report is in the job summary.")
        return "forbidden" if e.code in (401, 403, 404) else "failed"
    except (urllib.error.URLError, OSError, ValueError) as e:
        warning(f"cannot comment on pull request #{number}: {e}. The report is in the job summary.")
        return "failed"


def diff():
    payload = event()
    ref = base_ref(payload)
    if not ref:
        print("::error title=ome-render::no base to compare with: run on pull_request or set the base-ref input")
        return 1
    ensure_commit(ref)
    binary = env("OME_RENDER") or "ome-render"
    paths = env("INPUT_PATHS", ".").split() or ["."]
    # --exit-code: 3 says the renders differ, 0 that they don't; 1 and 2 are failures.
    cmd = [binary, "diff", "--base-ref", ref, "--format", "markdown", "--exit-code",
           "--max-bytes", str(COMMENT_LIMIT - len(MARKER) - 1), "--error-format", "github", "-q"]
    if flag("INPUT_STRICT"):
        cmd.append("--strict")
    cmd += shlex.split(env("INPUT_ARGS"))
    cmd += ["--", *paths]
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    run = subprocess.run(cmd, capture_output=True, text=True)
    # The annotations: workflow commands the runner reads from the step's output.
    sys.stdout.write(run.stderr)
    sys.stdout.flush()
    differences = run.returncode == 3
    if run.returncode in (0, 3):
        report = run.stdout
    else:
        report = failure_report(parse_annotations(run.stderr.splitlines()), run.stderr, run.returncode)
    body = f"{MARKER}\n{report}"
    append_summary(report)
    report_path = os.path.join(env("RUNNER_TEMP", tempfile.gettempdir()), "ome-render-diff.md")
    with open(report_path, "w", encoding="utf-8") as f:
        f.write(report)
    comment = sticky_comment(payload, body, differences or run.returncode not in (0, 3))
    set_output("differences", "true" if differences else "false")
    set_output("exit-code", str(run.returncode))
    set_output("report", report_path)
    set_output("comment", comment)
    if run.returncode not in (0, 3):
        print(f"::error title=ome-render::the render fails (ome-render exited with {run.returncode}); "
              "see the annotations and the job summary")
        return 1
    return 0


# --- failing in one line -------------------------------------------------------------------


def fail(step, message):
    """Every failure ends here: one `::error::` line, and the job summary says what failed.
    Never a traceback."""
    print(f"::error title=ome-render::{step} failed: {escape_data(message)}", flush=True)
    longest = max((len(run) for run in re.findall(r"`+", message)), default=0)
    fence = "`" * max(3, longest + 1)
    try:
        append_summary(f"### ome-render: {step} failed\n\n{fence}\n{message}\n{fence}\n")
    except OSError as e:
        print(f"::warning title=ome-render::cannot write the job summary: {escape_data(str(e))}", flush=True)
    return 1


def main(argv):
    if len(argv) != 2 or argv[1] not in ("install", "diff"):
        print(__doc__, file=sys.stderr)
        return 2
    step = "obtaining ome-render" if argv[1] == "install" else "the diff"
    try:
        return install() if argv[1] == "install" else diff()
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            raise
        return fail(step, str(e.code))
    except subprocess.CalledProcessError as e:
        command = " ".join(shlex.quote(str(c)) for c in e.cmd) if isinstance(e.cmd, list) else str(e.cmd)
        return fail(step, f"`{command}` exited with {e.returncode}")
    except KeyboardInterrupt:
        return fail(step, "interrupted")
    except Exception as e:  # noqa: BLE001 -- the last resort: one line, not a traceback
        return fail(step, f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
