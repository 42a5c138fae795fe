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
import unicodedata
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


class ActionError(Exception):
    """A failure the step reports as one `::error::` line (main prints it), never a traceback."""


# The targets the release workflow builds (.github/workflows/release.yml's matrix; a test
# compares the two lists). Linux binaries are static (musl), so they run on any distribution.
RELEASED_TRIPLES = (
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
)

VERSION = re.compile(r"^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def target_triple(system=None, machine=None):
    """The release triple for this runner, or None where no binary is released."""
    system = system or platform.system()
    machine = (machine or platform.machine()).lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}.get(machine)
    if arch is None:
        return None
    if system == "Linux":
        return f"{arch}-unknown-linux-musl"
    if system == "Darwin":
        return f"{arch}-apple-darwin"
    return None


def action_checkout():
    """The parts `OWNER`, `REPO`, `REF` of the runner's checkout path of this action
    (`…/_actions/OWNER/REPO/REF`), or None when the action runs from elsewhere (`uses: ./`)."""
    parts = os.path.normpath(env("ACTION_PATH")).split(os.sep)
    if "_actions" in parts:
        i = len(parts) - 1 - parts[::-1].index("_actions")
        if len(parts) >= i + 4:
            return parts[i + 1], parts[i + 2], parts[i + 3]
    return None


def action_repository():
    """OWNER/REPO of this action. `github.action_repository` is empty inside a composite
    action's steps, so the runner's checkout path of the action is read too."""
    repo = env("ACTION_REPOSITORY") or env("GITHUB_ACTION_REPOSITORY")
    if repo:
        return repo
    checkout = action_checkout()
    return f"{checkout[0]}/{checkout[1]}" if checkout else ""


def source_version():
    """The version in the action's own Cargo.toml, or None."""
    try:
        with open(os.path.join(env("ACTION_PATH") or ".", "Cargo.toml"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'^version\s*=\s*"([^"]+)"', line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return None


def release_version():
    """The release that matches the action's own ref: `uses: OWNER/ome-render@v0.3.0` is
    0.3.0. A ref that is no version (a commit SHA, as pinning by hash has it, or a branch)
    means the version of the action's Cargo.toml at that ref."""
    ref = env("ACTION_REF") or env("GITHUB_ACTION_REF")
    if not ref:
        checkout = action_checkout()
        ref = checkout[2] if checkout else ""
    m = VERSION.match(ref.strip())
    if m:
        return m.group(1)
    version = source_version()
    if version is None:
        raise ActionError(f"cannot tell which ome-render release the action's ref {ref!r} is: "
                          "set the `version` input (such as 0.3.0, or `source`)")
    return version


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def download_release(version, dest):
    """The released binary `ome-render-<triple>.tar.gz` of `v<version>`, its SHA-256 checked
    against the `.sha256` beside it. Any failure is an ActionError: no build from source."""
    m = VERSION.match(version)
    if not m:
        raise ActionError(f"the version input {version!r} is neither a release (such as 0.3.0) nor `source`")
    version = m.group(1)
    triple = target_triple()
    if triple is None:
        raise ActionError(f"no ome-render release is built for {platform.system()} {platform.machine()}: "
                          "set `version: source` to build it with cargo")
    repo = action_repository()
    if not repo:
        raise ActionError("cannot tell which repository releases this action: set `version: source` or `binary`")
    server = env("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    name = f"ome-render-{triple}.tar.gz"
    url = f"{server}/{repo}/releases/download/v{version}/{name}"
    try:
        archive = fetch(url)
        checksum = fetch(url + ".sha256").decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        raise ActionError(f"cannot download ome-render {version} for {triple}: {url} answered HTTP {e.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise ActionError(f"cannot download ome-render {version} for {triple} from {url}: "
                          f"{getattr(e, 'reason', e)}") from None
    want = (checksum.split() or [""])[0].lower()
    if not SHA256.match(want):
        raise ActionError(f"ome-render {version}: {name}.sha256 holds no SHA-256")
    got = hashlib.sha256(archive).hexdigest()
    if got != want:
        raise ActionError(f"ome-render {version}: SHA-256 mismatch for {name}: "
                          f"the download is {got}, {name}.sha256 says {want}")
    # Only the binary is taken out, by its content: no path from the archive is used.
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as t:
            member = next((m for m in t.getmembers() if m.isfile() and m.name.split("/")[-1] == "ome-render"), None)
            if member is None:
                raise ActionError(f"ome-render {version}: {name} holds no ome-render binary")
            content = t.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ActionError(f"ome-render {version}: {name} is not a readable archive ({e})") from None
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
    try:
        built = subprocess.run(cmd)
    except OSError as e:
        raise ActionError(f"`version: source` needs cargo, which cannot run here ({e})") from None
    if built.returncode != 0:
        raise ActionError(f"cargo build failed (exit {built.returncode}); see the log above")
    return os.path.join(target, "release", "ome-render")


def install():
    binary = env("INPUT_BINARY")
    if binary:
        print(f"using {binary}")
    else:
        # An empty `version` (action.yml's default) is the release of the action's own ref.
        version = env("INPUT_VERSION").strip() or release_version()
        if version == "source":
            binary = build_from_source()
        else:
            dest = os.path.join(env("RUNNER_TEMP", tempfile.gettempdir()), "ome-render-bin")
            os.makedirs(dest, exist_ok=True)
            print(f"downloading ome-render {version}", flush=True)
            binary = download_release(version, dest)
    try:
        ran = subprocess.run([binary, "--version"])
    except OSError as e:
        raise ActionError(f"{binary} cannot run: {e.strerror or e}") from None
    if ran.returncode != 0:
        raise ActionError(f"{binary} --version failed (exit {ran.returncode})")
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


def acts_on_terminal(c):
    """Whether a terminal could act on `c` rather than show it: control characters, and the
    format characters that reorder text (as src/diagnostics/escape.rs decides)."""
    return unicodedata.category(c) == "Cc" or c in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def markdown_text(s):
    """`s` as Markdown text that is no markup, as the Rust renderer writes it
    (SEMANTICS.md#output-escaping): HTML's special characters as entities, other ASCII
    punctuation (backticks, brackets, `@`, `|`, `*`, ...) as character references, control
    characters and line breaks shown escaped."""
    out = []
    for c in s:
        if c == "&":
            out.append("&amp;")
        elif c == "<":
            out.append("&lt;")
        elif c == ">":
            out.append("&gt;")
        elif c == '"':
            out.append("&quot;")
        elif acts_on_terminal(c):
            out.append(f"&#92;u&#123;{ord(c):x}&#125;")
        elif c.isascii() and not c.isalnum() and c not in " -./," and c.isprintable():
            out.append(f"&#{ord(c)};")
        else:
            out.append(c)
    return "".join(out)


def markdown_code(s):
    """`s` as inline code that no backtick in it can close."""
    return f"<code>{markdown_text(s)}</code>"


def markdown_fence(body):
    """A code fence longer than any run of backticks in `body` (at least three)."""
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    return "`" * max(longest + 1, 3)


def terminal_lines(s):
    """`s` as lines, every control character but the line break and the tab shown escaped."""
    return "".join(f"\\u{{{ord(c):x}}}" if acts_on_terminal(c) and c not in "\n\t" else c for c in s)


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
            # Every input-derived part escaped (a message quotes values from the pull
            # request), each cut at 1,000 characters before it is escaped.
            first, _, rest = message.partition("\n")
            title = props.get("title", "")
            line = f"- {markdown_code(where[:1000])} " if where else "- "
            line += f"**{markdown_text(title[:200])}**: " if title else ""
            lines = [line + markdown_text(first[:1000])]
            if rest.strip():
                lines.append("  " + "<br>".join(markdown_text(l) for l in rest.strip()[:1000].split("\n")))
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
        body = terminal_lines(stderr.strip()[-4000:])
        fence = markdown_fence(body)
        out.append(fence)
        out.append(body)
        out.append(fence)
    return "\n".join(out) + "\n"


def event():
    path = env("GITHUB_EVENT_PATH")
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def git(*args, check=True):
    return subprocess.run(["git", *args], check=check, capture_output=True, text=True)


# A commit named by its hash, full or abbreviated.
COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")
# What `git check-ref-format` refuses anywhere in a name: control characters, space, `~ ^ : ? * [ \\`.
REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def valid_ref(ref):
    """Whether `ref` is a commit hash or a ref name `git check-ref-format --allow-onelevel`
    accepts, and cannot be read as an option or a refspec (no leading `-` or `+`). The base
    ref comes from the workflow's input or the event: it reaches `git fetch`, and a name such
    as `--upload-pack=CMD` would run a command."""
    if COMMIT.match(ref):
        return True
    if not ref or ref.startswith(("-", "+")) or ref == "@" or len(ref) > 1024:
        return False
    if REF_FORBIDDEN.search(ref) or ".." in ref or "@{" in ref:
        return False
    if ref.startswith("/") or ref.endswith(("/", ".")) or "//" in ref:
        return False
    return all(not c.startswith(".") and not c.endswith(".lock") for c in ref.split("/"))


def base_ref(payload):
    ref = env("INPUT_BASE_REF").strip()
    if not ref:
        pr = payload.get("pull_request") or {}
        ref = str((pr.get("base") or {}).get("sha") or "")
    if not ref and env("GITHUB_BASE_REF"):
        ref = "origin/" + env("GITHUB_BASE_REF")
    if not ref:
        return None
    if not valid_ref(ref):
        raise ActionError(f"the base ref {ref!r} is not a commit hash or a valid Git ref name "
                          "(git check-ref-format; it may not start with '-')")
    return ref


def ensure_commit(ref):
    """Fetches the base commit when the checkout is shallow and lacks it. `ref` is valid
    (base_ref); `--end-of-options` keeps it an argument all the same."""
    if git("cat-file", "-e", "--end-of-options", f"{ref}^{{commit}}", check=False).returncode == 0:
        return
    print(f"fetching {ref}", flush=True)
    name = ref[len("origin/"):] if ref.startswith("origin/") else ref
    fetched = git("fetch", "--no-tags", "--depth=1", "--end-of-options", "origin", name, check=False)
    if fetched.returncode != 0:
        raise ActionError(f"cannot fetch the base {ref}: {fetched.stderr.strip()}")
    if ref.startswith("origin/"):
        git("update-ref", "--end-of-options", f"refs/remotes/{ref}", "FETCH_HEAD")


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
    except ActionError as e:
        return fail(step, str(e))
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
