#!/usr/bin/env python3
"""Validates JSON request bodies against Kubernetes OpenAPI v3 schemas.

Usage: validate_bodies.py SPEC_DIR BODY_DIR

Every BODY_DIR/*.json file is {"schema": "<components.schemas key>", "body": {...}}. The
schemas of every SPEC_DIR/*.json document are merged and `#/components/schemas/...` refs
resolved. Checking is stricter than the server's default: an object schema that lists its
properties gets additionalProperties false (the server's fieldValidation=Strict), so a
misspelt field fails too. Prints one line per body; exits 1 if any body is invalid.
"""
import glob
import json
import os
import sys

import jsonschema


def strict(node):
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node \
                and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            strict(value)
    elif isinstance(node, list):
        for value in node:
            strict(value)


def main():
    spec_dir, body_dir = sys.argv[1], sys.argv[2]
    schemas = {}
    for path in sorted(glob.glob(os.path.join(spec_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            schemas.update(json.load(f)["components"]["schemas"])
    strict(schemas)
    root = {"components": {"schemas": schemas}}
    failed = 0
    for path in sorted(glob.glob(os.path.join(body_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        name = case["schema"]
        if name not in schemas:
            print(f"{os.path.basename(path)}: no schema {name}")
            failed += 1
            continue
        schema = {"$ref": "#/components/schemas/" + name, "components": root["components"]}
        validator = jsonschema.Draft4Validator(schema,
                                               format_checker=jsonschema.FormatChecker())
        errors = sorted(validator.iter_errors(case["body"]), key=lambda e: list(e.path))
        if errors:
            failed += 1
            for e in errors:
                where = ".".join(str(p) for p in e.path) or "(root)"
                print(f"{os.path.basename(path)}: {where}: {e.message}")
        else:
            print(f"{os.path.basename(path)}: valid {name}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
