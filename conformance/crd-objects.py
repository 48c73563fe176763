#!/usr/bin/env python3
"""Objects for conformance/crd-validate.sh, written deterministically into OUT.

  crd-objects.py templates OUT TEMPLATE...   the corpus cluster templates and
      ClusterClasses, envsubst-ed: ${VAR:=default} (or :-, =, -; nested, spaced as drone/envsubst
      reads them) takes its default, the others the
      values below (what `generate cluster` would be given), one file per template.
  crd-objects.py mutations OUT COMPONENTS...  per served version of every CRD in the
      components files (sorted by group, kind, version): one object with an unknown
      field under spec, one with a wrong type (the first string, integer or boolean
      field of spec, properties taken in sorted order, depth first), one with an enum
      violation when some field of spec has an enum; one file per CRD version, one
      document per mutation. No randomness: the same CRDs give the same bytes.
"""
import json
import os
import re
import sys

import yaml  # PyYAML

VALUES = {
    "CLUSTER_NAME": "c1",
    "NAMESPACE": "default",
    "KUBERNETES_VERSION": "v1.31.0",
    "WORKER_MACHINE_COUNT": "1",
    "CONTROL_PLANE_MACHINE_COUNT": "1",
    "DOCKER_SERVICE_DOMAIN": "cluster.local",
    "DOCKER_SERVICE_CIDRS": "10.128.0.0/12",
    "DOCKER_POD_CIDRS": "192.168.0.0/16",
    "DOCKER_SERVICE_IPV6_CIDRS": "fd00:100:64::/108",
    "DOCKER_POD_IPV6_CIDRS": "fd00:100:96::/48",
    "CNI_RESOURCES": "cni",
    "TOKEN": "token",
    "SERVER": "https://127.0.0.1:6443",
}
VAR = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::?[=-]([^{}]*))?\}")


def envsubst(text):
    def sub(m):
        name, default = m.group(1), m.group(2)
        if default is not None:
            return default
        return VALUES.get(name, "value")

    # Innermost first: ${A:-${B}} is ${A:-b}, then b.
    while True:
        out = VAR.sub(sub, text)
        if out == text:
            return out
        text = out


def templates(out, paths):
    for p in paths:
        parts = p.split(os.sep)
        # .../<repo>/infrastructure-docker/<version>/<file>
        name = "-".join(parts[-4:-1] + [parts[-1]])
        with open(p) as f:
            text = envsubst(f.read())
        with open(os.path.join(out, name), "w") as f:
            f.write(text)


def crds(paths):
    found = {}
    for p in paths:
        with open(p) as f:
            for d in yaml.safe_load_all(f):
                if not isinstance(d, dict) or d.get("kind") != "CustomResourceDefinition":
                    continue
                spec = d.get("spec") or {}
                for v in spec.get("versions") or []:
                    schema = ((v.get("schema") or {}).get("openAPIV3Schema")) or {}
                    if not v.get("served") or not schema:
                        continue
                    key = (spec["group"], spec["names"]["kind"], v["name"])
                    found[key] = (schema, spec.get("scope") == "Namespaced")
    return [(k, found[k]) for k in sorted(found)]


def first(schema, want, path=()):
    """The first field path (sorted properties, depth first, through arrays) under
    `schema` whose schema satisfies `want`, and that schema."""
    props = schema.get("properties") or {}
    for name in sorted(props):
        s = props[name]
        if want(s):
            return path + (name,), s
        if s.get("type") == "object":
            r = first(s, want, path + (name,))
            if r:
                return r
        if s.get("type") == "array" and isinstance(s.get("items"), dict):
            r = first(s["items"], want, path + (name, 0))
            if r:
                return r
    return None


def put(path, value):
    """The spec value holding `value` at `path` (ints are list indexes)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        return [put(rest, value)]
    return {head: put(rest, value)}


WRONG = {"string": 12, "integer": "twelve", "boolean": "yes", "number": "twelve"}


def mutations(out, paths):
    for (group, kind, version), (schema, namespaced) in crds(paths):
        spec = (schema.get("properties") or {}).get("spec")
        if not isinstance(spec, dict) or spec.get("type") != "object":
            continue
        meta = {"name": "m"}
        if namespaced:
            meta["namespace"] = "default"
        docs = []

        def obj(name, body):
            docs.append({"apiVersion": f"{group}/{version}", "kind": kind,
                         "metadata": dict(meta, name=name), "spec": body})

        if not spec.get("x-kubernetes-preserve-unknown-fields"):
            obj("unknown-field", {"notAField": "x"})
        typed = first(spec, lambda s: s.get("type") in WRONG and "enum" not in s
                      and not s.get("x-kubernetes-int-or-string"))
        if typed:
            path, s = typed
            obj("wrong-type", put(path, WRONG[s["type"]]))
        enum = first(spec, lambda s: "enum" in s and s.get("type") == "string")
        if enum:
            obj("enum", put(enum[0], "NotInTheEnum"))
        name = f"{group}-{kind}-{version}.yaml"
        with open(os.path.join(out, name), "w") as f:
            yaml.safe_dump_all(docs, f, sort_keys=True)


def main():
    mode, out, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    {"templates": templates, "mutations": mutations}[mode](out, paths)


if __name__ == "__main__":
    main()
