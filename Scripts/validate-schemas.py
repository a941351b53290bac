#!/usr/bin/env python3
"""Checks policies and policy test files against schema/ with an independent validator.

Every policy in Policies/ and every *.test.yaml must validate; every file under
Tests/SchemaFixtures/invalid/ must be refused (each says in a comment why). YAML is read as
policy-run reads it, by the YAML 1.2 core schema: only true/false are booleans and timestamps
stay strings. Ends with 'N passed, M failed'; exits 1 when anything failed.
"""
import json
import pathlib
import re
import sys

import jsonschema
import yaml

root = pathlib.Path(__file__).resolve().parent.parent


class CoreSchemaLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.1's extra booleans and timestamps taken out."""


CoreSchemaLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
CoreSchemaLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def validator(name):
    schema = json.loads((root / "schema" / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


policy = validator("policy.schema.json")
test = validator("policy-test.schema.json")
passed, failed = 0, 0


def check(path, chosen, should_pass):
    global passed, failed
    document = yaml.load(path.read_text(), Loader=CoreSchemaLoader)
    errors = sorted(chosen.iter_errors(document), key=lambda e: list(e.absolute_path))
    ok = not errors if should_pass else bool(errors)
    shown = path.relative_to(root)
    if ok:
        passed += 1
        if not should_pass:
            print(f"ok    {shown}: refused ({errors[0].message[:100]} at {'.'.join(map(str, errors[0].absolute_path)) or 'the top'})")
    else:
        failed += 1
        if should_pass:
            for error in errors[:5]:
                print(f"FAIL  {shown}: {error.message[:200]} at {'.'.join(map(str, error.absolute_path)) or 'the top'}")
        else:
            print(f"FAIL  {shown}: the schema accepts it")


for path in sorted((root / "Policies").glob("*.yaml")):
    check(path, test if path.name.endswith(".test.yaml") else policy, True)
for path in sorted((root / "Tests" / "SchemaFixtures" / "invalid").glob("*.yaml")):
    check(path, test if path.name.endswith(".test.yaml") else policy, False)
print(f"schemas: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
