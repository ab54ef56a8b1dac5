"""Every Reference must name a resource type its FHIR version has."""
from urllib.parse import urlsplit


def referenced_type(text):
    """The resource type a `Reference.reference` names: `Patient` of `Patient/p1`,
    `Patient?identifier=S|V` and `https://example.org/fhir/Patient/p1/_history/2`; None for a
    contained (`#m1`) or `urn:` reference, which names no type."""
    if text.startswith("#") or text.startswith("urn:"):
        return None
    if "://" in text:
        segments = [part for part in urlsplit(text).path.split("/") if part]
        if len(segments) >= 4 and segments[-2] == "_history":
            segments = segments[:-2]
        return segments[-2] if len(segments) >= 2 else ""
    return text.split("?", 1)[0].split("/", 1)[0]


def reference_errors(references, is_resource_type, version):
    """The references among `references` ((path, reference, type) each; reference and type
    may be None) whose type `is_resource_type` says `version` does not have."""
    errors = []
    for path, reference, declared in references:
        named = referenced_type(reference) if reference is not None else None
        if named is not None and not is_resource_type(named):
            errors.append(f"{path}.reference: {reference!r} names {named!r}, which is not a resource type of {version}")
        if declared is not None and not is_resource_type(declared):
            errors.append(f"{path}.type: {declared!r} is not a resource type of {version}")
    return errors
