"""R4 (4.0.1) checked a second way, with the strict models of fhirclient 4.x (SMART on FHIR's
Python client, generated from FHIR 4.0.1): unknown elements, wrong types and missing required
elements are errors. It runs in a virtual environment of its own (fhirclient 1.0.6, for
DSTU2, has the same package name), as `python r4_fhirclient.py`: a JSON array of resources
on standard input, a JSON array of their error lists on standard output."""
import importlib
import json
import re
import sys

OBJECT = re.compile(r"<(?:class )?'?fhirclient\.models\.\w+\.(\w+)(?:'| object at 0x[0-9a-f]+)>")


def model(resource_type):
    """fhirclient's class for `resource_type`, or None."""
    if not isinstance(resource_type, str) or not resource_type.isalnum():
        return None
    try:
        module = importlib.import_module(f"fhirclient.models.{resource_type.lower()}")
    except ImportError:
        return None
    return getattr(module, resource_type, None)


def check(resource):
    """The reasons fhirclient's strict model refuses `resource`; empty if it takes it."""
    from fhirclient.models.fhirabstractbase import FHIRValidationError

    cls = model(resource.get("resourceType") if isinstance(resource, dict) else None)
    if cls is None:
        return ["not a resource type of fhirclient's R4 models"]
    try:
        cls(resource, strict=True)
    except FHIRValidationError as error:
        return list(flatten(error, FHIRValidationError))
    return []


def flatten(error, kind, path=""):
    """Each error under `error` (nested by element) as `path: message`, without object addresses."""
    if not isinstance(error, kind):
        # A KeyError's text is its argument's repr: quoted.
        message = OBJECT.sub(r"\1", str(error.args[0] if isinstance(error, KeyError) and error.args else error))
        yield f"{path}: {message}" if path else message
        return
    here = ".".join(part for part in (path, error.path) if part)
    for inner in error.errors:
        yield from flatten(inner, kind, here)


if __name__ == "__main__":
    json.dump([check(resource) for resource in json.load(sys.stdin)], sys.stdout)
