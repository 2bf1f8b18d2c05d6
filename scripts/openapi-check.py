#!/usr/bin/env python3
"""Checks docs/openapi.yaml, with the Python tools scripts/install-deps puts
in its virtual environment (run it with that environment's python).

  openapi-check.py routes DOC
      Validates DOC as an OpenAPI 3.1 document (openapi-spec-validator) and
      prints its operations as JSON: {"/path": ["GET", "HEAD"], ...}.

  openapi-check.py run DOC --url URL --token TOKEN --app NAME [--app NAME]
      Runs schemathesis against the gateway at URL with every check, a
      fixed seed and a bounded number of examples per operation. The
      document is bound to that gateway first: `app` may name only its
      configured apps (the document cannot know a deployment's names), so
      positive cases name one of them and negative ones any other.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# schemathesis.toml for the run: both data checks take their default
# statuses plus 413. A schema-valid event can be longer than the 64 KiB
# API.md allows (500 recipients of 4096-character tokens), a limit on the
# whole body that JSON Schema cannot state, and an invalid one too: 413
# `body_too_large` is API.md's answer to both, before the body is read.
CONFIG = """\
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "413", "429", "5xx"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
"""


# The one rule of the event that JSON Schema cannot state and a generator
# breaks at once: each device once per event (APNs tokens without regard
# to case, a web push subscription by its endpoint; the document's
# `recipients` says so). Generated events that name
# a device twice are not sent; `uniqueItems` covers only identical items.
# The coverage phase applies case hooks only (`filter_case`), the other
# phases body hooks too: the rule is given as both.
HOOKS = """\
import schemathesis


@schemathesis.hook
def filter_case(context, case):
    return names_each_device_once(case.body)


@schemathesis.hook
def filter_body(context, body):
    return names_each_device_once(body)


def names_each_device_once(body):
    recipients = body.get("recipients") if isinstance(body, dict) else None
    if not isinstance(recipients, list):
        return True
    seen = set()
    for recipient in recipients:
        if not isinstance(recipient, dict):
            continue
        name = "endpoint" if recipient.get("platform") == "webpush" else "token"
        if not isinstance(recipient.get(name), str):
            continue
        token = recipient[name]
        key = token.lower() if recipient.get("platform") == "apns" else token
        if key in seen:
            return False
        seen.add(key)
    return True
"""


def load(path):
    with open(path, encoding="utf-8") as file:
        document = yaml.safe_load(file)
    validate(document, cls=OpenAPIV31SpecValidator)
    return document


def routes(arguments):
    document = load(arguments.document)
    operations = {
        path: sorted(method.upper() for method in item if method in METHODS)
        for path, item in document["paths"].items()
    }
    json.dump(operations, sys.stdout, sort_keys=True)
    print()
    return 0


def run(arguments):
    document = load(arguments.document)
    app = document["components"]["schemas"]["Event"]["properties"]["app"]
    app["enum"] = list(arguments.app) + [None]
    with tempfile.TemporaryDirectory(prefix="pushgw-openapi-") as folder:
        bound = os.path.join(folder, "openapi.json")
        with open(bound, "w", encoding="utf-8") as file:
            json.dump(document, file)
        config = os.path.join(folder, "schemathesis.toml")
        with open(config, "w", encoding="utf-8") as file:
            file.write(CONFIG)
        with open(os.path.join(folder, "pushgw_openapi_hooks.py"), "w", encoding="utf-8") as file:
            file.write(HOOKS)
        environment = dict(os.environ, SCHEMATHESIS_HOOKS="pushgw_openapi_hooks",
                           PYTHONPATH=folder + os.pathsep + os.environ.get("PYTHONPATH", ""))
        schemathesis = os.path.join(os.path.dirname(sys.executable), "schemathesis")
        command = [
            schemathesis, "--no-color", "--config-file", config, "run", bound,
            "--url", arguments.url,
            "--header", f"Authorization: Bearer {arguments.token}",
            "--checks", "all",
            "--max-examples", str(arguments.max_examples),
            "--seed", str(arguments.seed),
            "--max-time", str(arguments.max_time),
            "--workers", "1",
            "--request-timeout", "20",
            "--continue-on-failure",
            "--output-sanitize", "false",
            "--suppress-health-check", "all",
        ]
        return subprocess.run(command, check=False, env=environment, cwd=folder).returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("routes")
    listing.add_argument("document")
    listing.set_defaults(action=routes)
    fuzzing = commands.add_parser("run")
    fuzzing.add_argument("document")
    fuzzing.add_argument("--url", required=True)
    fuzzing.add_argument("--token", required=True)
    fuzzing.add_argument("--app", action="append", required=True)
    fuzzing.add_argument("--max-examples", type=int, default=25)
    fuzzing.add_argument("--seed", type=int, default=20261206)
    fuzzing.add_argument("--max-time", type=int, default=75)
    fuzzing.set_defaults(action=run)
    arguments = parser.parse_args()
    return arguments.action(arguments)


if __name__ == "__main__":
    sys.exit(main())
