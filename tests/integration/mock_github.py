#!/usr/bin/env python3
"""A local stand-in for the few GitHub REST calls the action makes, for tests/integration/action.rs.

    mock_github.py STATE_FILE

Listens on 127.0.0.1 (a free port, printed on the first line of standard output) and keeps
one pull request's comments in memory, writing them and every request to STATE_FILE after
each request. The token `forbidden` gets 403 on writes, as a fork's read-only token does.
It starts with one comment that is not the action's, so the marker, not "the only comment",
must find the sticky one.
"""

import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

state = {
    "comments": [{"id": 1, "body": "Looks good to me", "user": {"login": "reviewer"}}],
    "requests": [],
}
next_id = [100]


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body):
        # The state first: once the client has its answer, the test may read it.
        with open(sys.argv[1] + ".new", "w", encoding="utf-8") as f:
            json.dump(state, f)
        os.replace(sys.argv[1] + ".new", sys.argv[1])
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"null")

    def record(self):
        url = urlparse(self.path)
        state["requests"].append({"method": self.command, "path": url.path})
        return url

    def forbidden(self):
        return self.headers.get("Authorization") == "Bearer forbidden"

    def do_GET(self):
        url = self.record()
        if re.fullmatch(r"/repos/[^/]+/[^/]+/issues/\d+/comments", url.path):
            q = parse_qs(url.query)
            per_page = int(q.get("per_page", ["30"])[0])
            page = int(q.get("page", ["1"])[0])
            self.reply(200, state["comments"][(page - 1) * per_page : page * per_page])
        else:
            self.reply(404, {"message": "Not Found"})

    def do_POST(self):
        url = self.record()
        if self.forbidden():
            return self.reply(403, {"message": "Resource not accessible by integration"})
        if re.fullmatch(r"/repos/[^/]+/[^/]+/issues/\d+/comments", url.path):
            comment = {"id": next_id[0], "body": self.body()["body"], "user": {"login": "github-actions[bot]"}}
            next_id[0] += 1
            state["comments"].append(comment)
            self.reply(201, comment)
        else:
            self.reply(404, {"message": "Not Found"})

    def do_PATCH(self):
        url = self.record()
        if self.forbidden():
            return self.reply(403, {"message": "Resource not accessible by integration"})
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", url.path)
        found = [c for c in state["comments"] if m and c["id"] == int(m.group(1))]
        if not found:
            return self.reply(404, {"message": "Not Found"})
        found[0]["body"] = self.body()["body"]
        self.reply(200, found[0])

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
