#!/usr/bin/env python3
"""Post or update the one capi-render comment of a pull request (GitHub) or merge
request (GitLab): the comment whose body starts with the marker that
`capi-render diff --output-format markdown` writes on its first line. Standard library
only, so it runs on any CI image with python3.

  pr-comment.py github --repo OWNER/NAME --pr N --body comment.md
      token: GITHUB_TOKEN; API: GITHUB_API_URL (default https://api.github.com)
  pr-comment.py gitlab --project ID --mr N --body comment.md
      token: GITLAB_TOKEN (a project access token with api scope); API: CI_API_V4_URL

Prints `created <url>` or `updated <url>`. Exit 1 with the API's status on an error.
"""

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

MARKER = "<!-- capi-render diff -->"


def call(method, url, headers, data=None):
    body = None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read().decode()
            return json.loads(text) if text else None, r.headers
    except urllib.error.HTTPError as e:
        sys.exit(f"pr-comment: {method} {url}: HTTP {e.code}: {e.read().decode()[:300]}")
    except urllib.error.URLError as e:
        sys.exit(f"pr-comment: {method} {url}: {e.reason}")


def next_link(headers):
    """GitHub's pagination: the rel="next" URL of the Link header."""
    m = re.search(r'<([^>]+)>;\s*rel="next"', headers.get("Link", "") or "")
    return m.group(1) if m else None


def github(args, body):
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        sys.exit("pr-comment: set GITHUB_TOKEN (the workflow's token with pull-requests: write)")
    h = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"}
    url = f"{api}/repos/{args.repo}/issues/{args.pr}/comments?per_page=100"
    while url:
        comments, headers = call("GET", url, h)
        for c in comments:
            if c.get("body", "").startswith(MARKER):
                done, _ = call("PATCH", f"{api}/repos/{args.repo}/issues/comments/{c['id']}", h, {"body": body})
                return f"updated {done.get('html_url', c['id'])}"
        nxt = next_link(headers)
        url = urllib.parse.urljoin(url, nxt) if nxt else None
    done, _ = call("POST", f"{api}/repos/{args.repo}/issues/{args.pr}/comments", h, {"body": body})
    return f"created {done.get('html_url', done.get('id'))}"


def gitlab(args, body):
    api = os.environ.get("CI_API_V4_URL", "").rstrip("/")
    token = os.environ.get("GITLAB_TOKEN")
    if not api or not token:
        sys.exit("pr-comment: set CI_API_V4_URL (GitLab sets it) and GITLAB_TOKEN (api scope)")
    h = {"PRIVATE-TOKEN": token}
    project = urllib.parse.quote(str(args.project), safe="")
    notes = f"{api}/projects/{project}/merge_requests/{args.mr}/notes"
    page = 1
    while True:
        found, headers = call("GET", f"{notes}?per_page=100&page={page}", h)
        for n in found:
            if n.get("body", "").startswith(MARKER):
                call("PUT", f"{notes}/{n['id']}", h, {"body": body})
                return f"updated note {n['id']}"
        nxt = headers.get("X-Next-Page", "")
        if not nxt:
            break
        page = int(nxt)
    done, _ = call("POST", notes, h, {"body": body})
    return f"created note {done.get('id')}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="forge", required=True)
    g = sub.add_parser("github")
    g.add_argument("--repo", required=True)
    g.add_argument("--pr", required=True, type=int)
    g.add_argument("--body", required=True)
    l = sub.add_parser("gitlab")
    l.add_argument("--project", required=True)
    l.add_argument("--mr", required=True, type=int)
    l.add_argument("--body", required=True)
    args = p.parse_args()
    with open(args.body, encoding="utf-8") as f:
        body = f.read()
    if not body.startswith(MARKER):
        sys.exit(f"pr-comment: {args.body} does not start with {MARKER}: make it with `capi-render diff --output-format markdown`")
    print(github(args, body) if args.forge == "github" else gitlab(args, body))


if __name__ == "__main__":
    main()
