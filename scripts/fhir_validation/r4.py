"""R4, checked with fhir.resources' R4B models: structure, cardinality, data types and choice
types, plus the required status codes and the resource types of references, which that
package does not check. Only resources whose R4B definition is R4's are validated."""
from functools import lru_cache

from .bindings import binding_errors
from .references import reference_errors

NAME = "R4"

# The resources whose R4B models are R4's.
MODELS = {"Bundle", "Device", "Medication", "MedicationAdministration", "MedicationRequest", "Observation", "Patient"}

REQUIRED_CODES = {
    ("MedicationAdministration", "status"): {
        "in-progress", "not-done", "on-hold", "completed", "entered-in-error", "stopped", "unknown"},
    ("MedicationRequest", "status"): {
        "active", "on-hold", "cancelled", "completed", "entered-in-error", "stopped", "draft", "unknown"},
    ("MedicationRequest", "intent"): {
        "proposal", "plan", "order", "original-order", "reflex-order", "filler-order", "instance-order", "option"},
    ("Observation", "status"): {
        "registered", "preliminary", "final", "amended", "corrected", "cancelled", "entered-in-error", "unknown"},
    ("Bundle", "type"): {
        "document", "message", "transaction", "transaction-response", "batch", "batch-response", "history",
        "searchset", "collection"},
}
REQUEST_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"}


def unknown_type(resource_type):
    """Why `resource_type` is not validated here, or None if it is."""
    return None if resource_type in MODELS else f"not one this validator knows ({', '.join(sorted(MODELS))})"


@lru_cache(maxsize=None)
def is_resource_type(name):
    """Whether R4B has a (concrete) resource of this name."""
    from fhir.resources.R4B import get_fhir_model_class
    from fhir.resources.R4B.domainresource import DomainResource
    from fhir.resources.R4B.resource import Resource

    try:
        model = get_fhir_model_class(name)
    except ValueError:
        return False
    return issubclass(model, Resource) and model not in (Resource, DomainResource)


def resource_types():
    """Every resource type of R4B's models."""
    from fhir.resources.R4B import fhirtypes

    return sorted(name[:-4] for name in dir(fhirtypes) if name.endswith("Type") and is_resource_type(name[:-4]))


def check(resource):
    """The reasons `resource` (of a type in MODELS) is invalid; empty if it is valid."""
    from fhir.resources.R4B import get_fhir_model_class

    resource_type = resource["resourceType"]
    errors = binding_errors(REQUIRED_CODES, REQUEST_METHODS, resource_type, resource)
    try:
        model = get_fhir_model_class(resource_type).model_validate(resource)
    except Exception as error:  # pydantic's ValidationError, or a value error from fhir.resources
        return errors + [line for line in str(error).splitlines() if not line.strip().startswith("For further")]
    return errors + reference_errors(references(model), is_resource_type, NAME)


def references(value, path=""):
    """(path, reference, type) of every Reference in a validated model."""
    from fhir.resources.R4B.reference import Reference
    from pydantic import BaseModel

    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from references(item, f"{path}.{index}")
    elif isinstance(value, BaseModel):
        if isinstance(value, Reference):
            yield path or "(root)", value.reference, value.type
        for name, field in type(value).model_fields.items():
            yield from references(getattr(value, name), f"{path}.{field.alias or name}".lstrip("."))
