#!/usr/bin/env python3
"""Regenerates src/memwall/deploy/testdata/k8s-openapi-v1.31.json, the schemas the emitted
Kubernetes manifests are validated against (tools/memwall/cmd_plan_emit_test.cc).

It keeps, from the Kubernetes OpenAPI v3 documents of core/v1 and apps/v1, the definitions reachable
by $ref from io.k8s.api.apps.v1.Deployment and io.k8s.api.core.v1.Service, and from the
LeaderWorkerSet CRD its v1 openAPIV3Schema (as io.x-k8s.leaderworkerset.v1.LeaderWorkerSet, the
name the API server publishes a CRD under), each reduced to the keywords a validator needs
(descriptions dropped). The test reads only the committed file; this script is not run by the build.

usage: scripts/k8s-openapi-extract.py CORE_V1_JSON APPS_V1_JSON LWS_CRD_YAML OUT_JSON \
           --kubernetes-source TEXT --lws-source TEXT
"""
import argparse
import json

import yaml

KEEP = {
    "$ref", "type", "format", "properties", "required", "enum", "items", "additionalProperties",
    "allOf", "oneOf", "anyOf", "nullable", "minimum", "maximum", "minLength", "maxLength",
    "pattern", "minItems", "maxItems", "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
    "x-kubernetes-group-version-kind", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
}
# Keywords whose value is data, not a schema.
VALUES = {"enum", "required", "x-kubernetes-group-version-kind", "x-kubernetes-list-map-keys"}
ROOTS = ["io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.Service"]
LWS_NAME = "io.x-k8s.leaderworkerset.v1.LeaderWorkerSet"
REF_PREFIX = "#/components/schemas/"


def prune(node):
    if isinstance(node, list):
        return [prune(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key not in KEEP:
            continue
        if key == "properties":
            out[key] = {name: prune(schema) for name, schema in value.items()}
        elif key in VALUES:
            out[key] = value
        else:
            out[key] = prune(value)
    return out


def refs(node, found):
    if isinstance(node, list):
        for x in node:
            refs(x, found)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                found.append(value[len(REF_PREFIX):])
            else:
                refs(value, found)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("core")
    ap.add_argument("apps")
    ap.add_argument("lws_crd")
    ap.add_argument("out")
    ap.add_argument("--kubernetes-source", required=True)
    ap.add_argument("--lws-source", required=True)
    args = ap.parse_args()

    schemas = {}
    for path in (args.core, args.apps):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for name, schema in doc["components"]["schemas"].items():
            if name in schemas and schemas[name] != schema:
                raise SystemExit(f"{name} differs between the two documents")
            schemas[name] = schema

    definitions = {}
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in definitions:
            continue
        definitions[name] = prune(schemas[name])
        found = []
        refs(definitions[name], found)
        todo.extend(found)

    with open(args.lws_crd, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    lws = prune(version["schema"]["openAPIV3Schema"])
    lws["x-kubernetes-group-version-kind"] = [
        {"group": crd["spec"]["group"], "kind": crd["spec"]["names"]["kind"], "version": "v1"}]
    definitions[LWS_NAME] = lws

    out = {
        "source": {
            "kubernetes": args.kubernetes_source,
            "leaderworkerset": args.lws_source,
            "extracted_by": "scripts/k8s-openapi-extract.py: the definitions reachable by $ref "
                            "from " + " and ".join(ROOTS) + ", and the LeaderWorkerSet CRD's v1 "
                            "openAPIV3Schema as " + LWS_NAME + "; only the keywords a validator "
                            "reads (" + ", ".join(sorted(KEEP)) + ")",
        },
        "kinds": {
            "apps/v1 Deployment": "io.k8s.api.apps.v1.Deployment",
            "v1 Service": "io.k8s.api.core.v1.Service",
            "leaderworkerset.x-k8s.io/v1 LeaderWorkerSet": LWS_NAME,
        },
        # What the API server validates a custom resource's metadata against (the CRD schema says
        # only "type: object" there).
        "custom_resource_metadata": "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    }
    # One definition per line, so a regeneration's diff names the definitions that changed.
    text = json.dumps(out, indent=1)[:-2] + ',\n "definitions": {\n'
    text += ",\n".join(f"  {json.dumps(name)}: {json.dumps(schema, separators=(',', ':'))}"
                       for name, schema in sorted(definitions.items()))
    text += "\n }\n}\n"
    json.loads(text)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
