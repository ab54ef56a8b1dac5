"""DSTU2 (1.0.2), checked with the models of fhirclient 1.0.6, generated from FHIR 1.0.2:
constructed with strict=True they reject unknown elements, wrong types and missing
required elements. Added here: the required codes, one value per choice type, the dateTime
pattern (fhirclient only logs a date it cannot read) and the resource types of references."""
import importlib
import logging
import pkgutil
import re
from functools import lru_cache

from .bindings import binding_errors
from .references import reference_errors

NAME = "DSTU2"

REQUIRED_CODES = {
    ("MedicationAdministration", "status"): {"in-progress", "on-hold", "completed", "entered-in-error", "stopped"},
    ("MedicationOrder", "status"): {"active", "on-hold", "completed", "entered-in-error", "stopped", "draft"},
    ("Bundle", "type"): {
        "document", "message", "transaction", "transaction-response", "batch", "batch-response", "history",
        "searchset", "collection"},
}
REQUEST_METHODS = {"GET", "POST", "PUT", "DELETE"}

# DSTU2's dateTime; its date is a prefix of it, its instant a case of it.
DATE_TIME = re.compile(
    r"-?[0-9]{4}(-(0[1-9]|1[0-2])(-(0[0-9]|[1-2][0-9]|3[0-1])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?"
    r"(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00)))?)?)?")


def unknown_type(resource_type):
    """Why `resource_type` is not validated here, or None if it is."""
    return None if isinstance(resource_type, str) and is_resource_type(resource_type) else "not a DSTU2 resource type"


@lru_cache(maxsize=None)
def is_resource_type(name):
    """Whether fhirclient's DSTU2 models have a (concrete) resource of this name."""
    from fhirclient.models.domainresource import DomainResource
    from fhirclient.models.resource import Resource

    if not name.isalnum():
        return False
    try:
        model = getattr(importlib.import_module(f"fhirclient.models.{name.lower()}"), name, None)
    except ImportError:
        return False
    return isinstance(model, type) and issubclass(model, Resource) and model not in (Resource, DomainResource)


def resource_types():
    """Every resource type of fhirclient's DSTU2 models."""
    import fhirclient.models

    modules = [info.name for info in pkgutil.iter_modules(fhirclient.models.__path__) if not info.name.endswith("_tests")]
    return sorted({name for module in modules for name in vars(importlib.import_module(f"fhirclient.models.{module}"))
                   if is_resource_type(name)})


def check(resource):
    """The reasons `resource` (of a DSTU2 resource type) is invalid; empty if it is valid."""
    from fhirclient.models.fhirabstractbase import FHIRValidationError
    from fhirclient.models.fhirelementfactory import FHIRElementFactory

    resource_type = resource["resourceType"]
    errors = binding_errors(REQUIRED_CODES, REQUEST_METHODS, resource_type, resource)
    logging.disable(logging.WARNING)  # a date it cannot read: reported by the pattern below
    try:
        model = FHIRElementFactory.instantiate(resource_type, resource)
    except FHIRValidationError as error:
        return errors + list(validation_errors(error))
    finally:
        logging.disable(logging.NOTSET)
    return errors + element_errors(model) + reference_errors(references(model), is_resource_type, NAME)


def validation_errors(error, path=""):
    """fhirclient's nested FHIRValidationError as one line per error, each with its path."""
    from fhirclient.models.fhirabstractbase import FHIRValidationError

    if isinstance(error, FHIRValidationError):
        here = ".".join(part for part in (path, error.path) if part)
        for inner in error.errors:
            yield from validation_errors(inner, here)
    else:
        text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
        text = re.sub(r"<(?:class ')?(?:[\w.]+\.)?(\w+)(?: object at 0x[0-9a-f]+|')>", r"\1", text)
        yield f"{path}: {text}" if path else text


def elements(value, path=""):
    """(path, element) of every model element under `value`, `value` included."""
    from fhirclient.models.fhirabstractbase import FHIRAbstractBase

    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from elements(item, f"{path}.{index}")
    elif isinstance(value, FHIRAbstractBase):
        yield path, value
        for name, json_name, *_ in value.elementProperties():
            yield from elements(getattr(value, name), f"{path}.{json_name}".lstrip("."))


def element_errors(model):
    """Choice types given more than one value, and dates that are not DSTU2 dateTimes."""
    from fhirclient.models.fhirdate import FHIRDate

    errors = []
    for path, element in elements(model):
        chosen = {}
        for name, json_name, _, _, choice, _ in element.elementProperties():
            value = getattr(element, name)
            if value is None:
                continue
            if choice is not None:
                chosen.setdefault(choice, []).append(json_name)
            for date in (value if isinstance(value, list) else [value]):
                if isinstance(date, FHIRDate) and not DATE_TIME.fullmatch(str(date.origval)):
                    errors.append(f"{path}.{json_name}: {date.origval!r} is not a DSTU2 dateTime".lstrip("."))
        errors += [f"{path or '(root)'}: {choice}[x] has more than one value ({', '.join(names)})"
                   for choice, names in chosen.items() if len(names) > 1]
    return errors


def references(model):
    """(path, reference, None) of every Reference: DSTU2's has no `type`."""
    from fhirclient.models.reference import Reference

    return [(path, element.reference, None) for path, element in elements(model) if isinstance(element, Reference)]
